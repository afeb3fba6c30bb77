// Read-your-writes on a hot standby: polling a stream's version after an append
// (iolist/read_your_writes.h).
#include "iolist/read_your_writes.h"

#include <string>
#include <thread>

#include "common/clock.h"
#include "targets/pg_text.h"

namespace perflab::iolist {

StandbyProbe::StandbyProbe(PgConnection& standby, const std::string& schema)
    : conn_(standby),
      sql_("SELECT coalesce(max(stream_version), 0) FROM " + pg_quote_ident(schema) +
           ".events WHERE stream_id = $1") {}

std::int64_t StandbyProbe::wait_visible(std::int64_t stream_id, std::int64_t version,
                                        std::int64_t since_ns, std::chrono::milliseconds limit,
                                        std::stop_token stop) {
  const std::string id = std::to_string(stream_id);
  PgParams p;
  p.add_text(id.c_str());
  const std::int64_t deadline = since_ns + std::chrono::nanoseconds(limit).count();
  for (;;) {
    const std::int64_t seen =
        std::stoll(std::string(conn_.exec_params(sql_.c_str(), p).value(0, 0)));
    const std::int64_t now = wall_ns();
    if (seen >= version) return now - since_ns;
    if (stop.stop_requested())
      throw PgError("stopped while waiting for stream " + id + " on " + conn_.describe());
    if (now > deadline)
      throw PgError("stream " + id + " version " + std::to_string(version) +
                    " was not visible on " + conn_.describe() + " within " +
                    std::to_string(limit.count()) + " ms");
    std::this_thread::sleep_for(kPause);
  }
}

}  // namespace perflab::iolist
