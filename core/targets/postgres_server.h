#pragma once
// Starting a managed PostgreSQL server on a cluster folder that is ready (initdb'd, or a base
// backup for a standby): on a free loopback port, with a bounded wait until it answers.
#include <sys/types.h>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <stop_token>
#include <string>

#include "targets/child_process.h"
#include "targets/managed_postgres.h"

namespace perflab {

struct StartedPostgres {
  pid_t pid = -1;
  int port = 0;
  std::string version;
};

// Starts `postgres` on `data` (its log and Unix socket in `dir`, which must be private) as
// creds' user, on a free port (another one tried when it was taken meanwhile), and checks, as
// kPgSetupUser, that the server answering is this one. A primary gets the measuring role kPgUser
// (with its password) and Perflab's database, owned by it; a standby has both from its primary.
// Throws ServerError with the log's tail; StartStopped when `stop` ends the start (the server
// stopped).
StartedPostgres start_postgres_server(const std::filesystem::path& postgres,
                                      const std::filesystem::path& dir,
                                      const std::filesystem::path& data,
                                      const ManagedPostgresOptions& opts, const Credentials& creds,
                                      const ManagedPgPasswords& passwords, bool primary,
                                      const std::stop_token& stop = {});

// How a managed server stops: immediate shutdown (SIGQUIT: its backends end at once, no
// shutdown checkpoint is written and synced), since its folder is removed right after; one that
// has not stopped within kPgStopGrace is killed.
inline constexpr int kPgStopSignal = SIGQUIT;
inline constexpr std::chrono::seconds kPgStopGrace{5};
// Stops a managed server's postmaster that way (nothing when pid <= 0).
void stop_postgres_server(pid_t pid);

}  // namespace perflab
