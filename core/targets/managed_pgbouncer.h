#pragma once
// A managed PgBouncer: Debian's pgbouncer in transaction mode in front of one PostgreSQL, on a
// free loopback port, with a folder of its own; stopped and removed with the object.
#include <sys/types.h>

#include <filesystem>
#include <stop_token>
#include <string>
#include <vector>

#include "targets/server_error.h"

namespace perflab {

struct ManagedPgBouncerOptions {
  // Client connections it accepts: 1,000 clients of the pooled benchmark plus slack.
  int max_client_conn = 1100;
  // Server connections per database and user: PgBouncer's own default. A pool this small keeps
  // the server's backends near its cores; clients beyond it wait in PgBouncer, not in the server.
  int default_pool_size = 20;
};

// PgBouncer (pool_mode = transaction) in front of the PostgreSQL `server_conninfo` names
// (host, port, dbname, user; its password goes only into the auth file, mode 0600 in its private
// folder, never into its configuration or log). Clients, its admin console's too, connect as that
// user to that database on 127.0.0.1:port() with that password (auth_type = scram-sha-256; a
// random one when the conninfo has none); PgBouncer logs in to the server with it. When Perflab
// runs as root it runs as the unprivileged user PostgreSQL runs as. Throws ServerError.
class ManagedPgBouncer {
 public:
  // StartStopped when `stop` ends the wait for it to listen (nothing left behind).
  explicit ManagedPgBouncer(const std::string& server_conninfo, ManagedPgBouncerOptions opts = {},
                            std::stop_token stop = {});
  ~ManagedPgBouncer();  // immediate shutdown (SIGTERM), folder removed
  ManagedPgBouncer(const ManagedPgBouncer&) = delete;
  ManagedPgBouncer& operator=(const ManagedPgBouncer&) = delete;

  // server_conninfo with the address replaced by PgBouncer's and the password kept (or the one
  // drawn for it): never record it (redact_conninfo).
  std::string conninfo() const { return conninfo_; }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string version() const { return version_; }  // e.g. "PgBouncer 1.18.0"
  const ManagedPgBouncerOptions& options() const { return opts_; }
  // Its folder: pgbouncer.ini, the auth file, its log.
  const std::filesystem::path& dir() const { return dir_; }
  bool running() const;
  // The server's backends PgBouncer holds now (their pids, from SHOW SERVERS on its admin
  // console). Throws ServerError when the console does not answer.
  std::vector<int> server_pids() const;

 private:
  void start(const std::filesystem::path& exe, const std::stop_token& stop);
  ManagedPgBouncerOptions opts_;
  std::string server_conninfo_, conninfo_;
  std::string user_;      // the server's user, PgBouncer's admin too
  std::string password_;  // user_'s, in the auth file
  std::filesystem::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::string version_;
};

}  // namespace perflab
