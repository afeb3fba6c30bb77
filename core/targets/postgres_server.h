#pragma once
// Starting a managed PostgreSQL server on a cluster folder that is ready (initdb'd, or a base
// backup for a standby): on a free loopback port, with a bounded wait until it answers.
#include <sys/types.h>

#include <filesystem>
#include <string>

#include "targets/child_process.h"
#include "targets/managed_postgres.h"

namespace perflab {

struct StartedPostgres {
  pid_t pid = -1;
  int port = 0;
  std::string version;
};

// Starts `postgres` on `data` (its log and Unix socket in `dir`) as creds' user, on a free
// port (another one tried when it was taken meanwhile), and checks the server answering is this
// one. A primary gets Perflab's database created; a standby has it from its primary. Throws
// ServerError with the log's tail.
StartedPostgres start_postgres_server(const std::filesystem::path& postgres,
                                      const std::filesystem::path& dir,
                                      const std::filesystem::path& data,
                                      const ManagedPostgresOptions& opts, const Credentials& creds,
                                      bool primary);

}  // namespace perflab
