#pragma once
// Read-your-writes on a hot standby: after an append commits on the primary, how long until a
// read on a standby returns it (the replication lag a client that reads from a standby sees).
#include <chrono>
#include <cstdint>
#include <stop_token>
#include <string>

#include "targets/postgres.h"

namespace perflab::iolist {

// Polls one standby connection for a stream's version. Not thread-safe: one per client.
class StandbyProbe {
 public:
  // How long the probe pauses between two reads that did not see the version yet: the lag's
  // resolution beside one read's round trip.
  static constexpr std::chrono::microseconds kPause{100};

  StandbyProbe(PgConnection& standby, const std::string& schema);

  // Reads the stream's latest version on the standby until it is at least `version`; returns
  // the time from `since_ns` (wall_ns(), when the append returned) until the read that saw it
  // returned, in ns. Throws PgError when it is not visible within `limit`, or on a stop.
  std::int64_t wait_visible(std::int64_t stream_id, std::int64_t version, std::int64_t since_ns,
                            std::chrono::milliseconds limit, std::stop_token stop = {});

 private:
  PgConnection& conn_;
  std::string sql_;
};

}  // namespace perflab::iolist
