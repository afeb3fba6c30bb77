#pragma once
// A managed hot standby of a managed PostgreSQL: a base backup of the primary in a folder of its
// own, streaming the primary's WAL and answering reads, stopped and removed with the object.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <stop_token>
#include <string>

#include "targets/managed_postgres.h"
#include "targets/server_error.h"

namespace perflab {

// A hot standby of `primary`: pg_basebackup -R as the primary's kPgSetupUser (its password in
// the child's environment only; the primary's address and that password written as
// primary_conninfo into the standby's own private data folder), then postgres with
// hot_standby=on on a free loopback port, as the same unprivileged user as the primary, with the
// primary's roles and passwords. Ready when it answers and its WAL receiver
// streams. Every wait is bounded, and ended by a stop request; on a failure nothing is left
// behind. Stopped (immediate shutdown, as the primary) and its folder removed on destruction.
class ManagedPostgresStandby : public ManagedPgServer {
 public:
  // Throws ServerError naming the step and the log's tail; StartStopped when `stop` ends it.
  // Its roles' passwords are its primary's.
  explicit ManagedPostgresStandby(const ManagedPostgres& primary, ManagedPostgresOptions opts = {},
                                  std::stop_token stop = {},
                                  std::chrono::seconds ready_within = std::chrono::seconds(120));
};

}  // namespace perflab
