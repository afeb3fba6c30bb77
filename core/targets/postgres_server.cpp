// Starting a managed PostgreSQL server process: its command line, the bounded wait until it
// answers, and the check that the server answering is the one started (targets/postgres_server.h).
#include "targets/postgres_server.h"

#include <libpq-fe.h>
#include <signal.h>

#include <chrono>
#include <optional>

#include "targets/postgres.h"
#include "targets/server_start.h"

namespace fs = std::filesystem;

namespace perflab {

namespace {

// The server's command line on `port`, logging to its log.
SpawnSpec postgres_spec(const fs::path& postgres, const fs::path& dir, const fs::path& data,
                        int port, const ManagedPostgresOptions& opts, const Credentials& creds,
                        bool primary) {
  SpawnSpec srv;
  srv.exe = postgres;
  srv.args = {"-D", data.string(),
              "-p", std::to_string(port),
              "-c", "listen_addresses=127.0.0.1",
              "-c", "unix_socket_directories=" + dir.string(),
              "-c", "unix_socket_permissions=0700",
              "-c", "max_connections=" + std::to_string(opts.max_connections),
              "-c", "shared_buffers=" + opts.shared_buffers,
              "-c", "logging_collector=off"};
  if (!opts.durable)
    for (const char* s : {"fsync=off", "synchronous_commit=off", "full_page_writes=off"})
      srv.args.insert(srv.args.end(), {"-c", s});
  if (!primary) srv.args.insert(srv.args.end(), {"-c", "hot_standby=on"});  // answers reads
  srv.log = dir / "postgres.log";
  srv.cwd = dir;
  srv.creds = creds;
  srv.death_signal = SIGINT;  // fast shutdown when Perflab dies
  return srv;
}

// One start on a free port. nullopt (and why_not) when the port turned out to be someone
// else's, so another port is worth a try; throws when the server cannot start at all.
std::optional<StartedPostgres> start_postgres_once(const fs::path& postgres, const fs::path& dir,
                                                   const fs::path& data,
                                                   const ManagedPostgresOptions& opts,
                                                   const Credentials& creds,
                                                   const ManagedPgPasswords& passwords,
                                                   bool primary, int attempt, std::string& why_not,
                                                   const std::stop_token& stop) {
  const int port = free_loopback_port();
  const SpawnSpec srv = postgres_spec(postgres, dir, data, port, opts, creds, primary);
  const pid_t pid = spawn(srv);
  const std::string ping = managed_pg_conninfo(port, passwords, true) + " connect_timeout=2";
  int exit_status = 0;
  const WaitResult w = wait_ready(
      pid, std::chrono::seconds(60), [&] { return PQping(ping.c_str()) == PQPING_OK; },
      &exit_status, stop);
  if (w == WaitResult::Stopped) {
    stop_postgres_server(pid);
    throw_if_stopped(stop, "starting PostgreSQL on port " + std::to_string(port));
  }
  if (w == WaitResult::Exited) {
    if (log_mentions_port_in_use(srv.log)) {
      why_not = "port " + std::to_string(port) + " was taken";
      std::error_code ec;
      fs::rename(srv.log, dir / ("postgres-attempt" + std::to_string(attempt) + ".log"), ec);
      return std::nullopt;
    }
    throw ServerError("PostgreSQL (" + postgres.string() + ") " +
                      describe_exit_status(exit_status) + " during start; " + log_tail(srv.log));
  }
  if (w == WaitResult::TimedOut) {
    stop_child(pid, SIGKILL, std::chrono::seconds(1));
    throw ServerError("PostgreSQL did not answer on 127.0.0.1:" + std::to_string(port) +
                      " within 60 s; " + log_tail(srv.log));
  }
  // Make sure the server answering is ours, not another one that took the port meanwhile.
  try {
    PgConnection c(ping, PgLimits{}, stop);
    std::string served = std::string(c.exec("SHOW data_directory").value(0, 0));
    std::error_code ec;
    if (fs::canonical(served, ec).string() != fs::canonical(data).string()) {
      stop_postgres_server(pid);
      why_not = "port " + std::to_string(port) + " answered with another server";
      return std::nullopt;
    }
    if (primary) {  // a standby has the role and the database from its primary
      // The password's SCRAM verifier, not the password, goes to the server (and so could
      // reach its log, were a statement logged).
      c.exec("CREATE ROLE " + std::string(kPgUser) + " LOGIN IN ROLE pg_monitor PASSWORD '" +
             c.encrypt_password(passwords.user, kPgUser) + "'");
      c.exec("CREATE DATABASE perflab OWNER " + std::string(kPgUser));
    }
    return StartedPostgres{pid, port, c.server_version_string()};
  } catch (const PgError& e) {
    stop_postgres_server(pid);
    throw_if_stopped(stop, "preparing PostgreSQL on port " + std::to_string(port));
    throw ServerError(std::string("PostgreSQL started but could not be prepared: ") + e.what() +
                      "; " + log_tail(srv.log));
  }
}

}  // namespace

void stop_postgres_server(pid_t pid) {
  stop_child(pid, kPgStopSignal, kPgStopGrace);
}

StartedPostgres start_postgres_server(const fs::path& postgres, const fs::path& dir,
                                      const fs::path& data, const ManagedPostgresOptions& opts,
                                      const Credentials& creds, const ManagedPgPasswords& passwords,
                                      bool primary, const std::stop_token& stop) {
  std::string last_error;
  for (int attempt = 0; attempt < 5; ++attempt)
    if (auto started = start_postgres_once(postgres, dir, data, opts, creds, passwords, primary,
                                           attempt, last_error, stop))
      return std::move(*started);
  throw ServerError("could not start PostgreSQL on a free port: " + last_error);
}

}  // namespace perflab
