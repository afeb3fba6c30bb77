#include "targets/managed_postgres.h"

#include <libpq-fe.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <optional>

#include "targets/child_process.h"
#include "targets/owned_folder.h"
#include "targets/postgres.h"
#include "targets/server_binary.h"
#include "targets/server_start.h"

namespace fs = std::filesystem;

namespace perflab {

namespace {

void check_options(const ManagedPostgresOptions& opts) {
  if (opts.max_connections < 1 || opts.max_connections > 10000)
    throw ServerError("max_connections must be from 1 to 10000, got " +
                      std::to_string(opts.max_connections));
  if (opts.shared_buffers.empty() ||
      opts.shared_buffers.find_first_of(" \t'\"\\") != std::string::npos)
    throw ServerError("invalid shared_buffers '" + opts.shared_buffers + "'");
}

// initdb into dir/data, as the server's user; its output goes to dir/initdb.log.
void init_cluster(const fs::path& initdb, const fs::path& dir, const fs::path& data,
                  const Credentials& creds) {
  if (mkdir(data.c_str(), 0700) != 0)
    throw ServerError("cannot create " + data.string() + ": " + errno_text(errno));
  if (creds.drop && chown(data.c_str(), creds.uid, creds.gid) != 0)
    throw ServerError("cannot give " + data.string() + " to user " + creds.user + ": " +
                      errno_text(errno));
  SpawnSpec init;
  init.exe = initdb;
  init.args = {"-D", data.string(), "-U",         "perflab",   "--auth=trust",
               "-E", "UTF8",        "--locale=C", "--no-sync", "--no-instructions"};
  init.log = dir / "initdb.log";
  init.cwd = dir;
  init.creds = creds;
  init.death_signal = SIGKILL;
  pid_t init_pid = spawn(init);
  int status = 0;
  if (!wait_exit(init_pid, std::chrono::seconds(180), &status)) {
    stop_child(init_pid, SIGKILL, std::chrono::seconds(1));
    throw ServerError("initdb did not finish within 180 s; " + log_tail(init.log));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw ServerError("initdb " + describe_exit_status(status) + "; " + log_tail(init.log));
}

struct StartedPostgres {
  pid_t pid = -1;
  int port = 0;
  std::string version;
};

// The server's command line on `port`, logging to its log.
SpawnSpec postgres_spec(const fs::path& postgres, const fs::path& dir, const fs::path& data,
                        int port, const ManagedPostgresOptions& opts, const Credentials& creds) {
  SpawnSpec srv;
  srv.exe = postgres;
  srv.args = {"-D", data.string(),
              "-p", std::to_string(port),
              "-c", "listen_addresses=127.0.0.1",
              "-c", "unix_socket_directories=" + dir.string(),
              "-c", "max_connections=" + std::to_string(opts.max_connections),
              "-c", "shared_buffers=" + opts.shared_buffers,
              "-c", "logging_collector=off"};
  if (!opts.durable)
    for (const char* s : {"fsync=off", "synchronous_commit=off", "full_page_writes=off"})
      srv.args.insert(srv.args.end(), {"-c", s});
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
                                                   const Credentials& creds, int attempt,
                                                   std::string& why_not) {
  const int port = free_loopback_port();
  const SpawnSpec srv = postgres_spec(postgres, dir, data, port, opts, creds);
  const pid_t pid = spawn(srv);
  const std::string ping = "host=127.0.0.1 port=" + std::to_string(port) +
                           " dbname=postgres user=perflab connect_timeout=2";
  int exit_status = 0;
  const WaitResult w = wait_ready(
      pid, std::chrono::seconds(60), [&] { return PQping(ping.c_str()) == PQPING_OK; },
      &exit_status);
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
    PgConnection c(ping, 5);
    std::string served = std::string(c.exec("SHOW data_directory").value(0, 0));
    std::error_code ec;
    if (fs::canonical(served, ec).string() != fs::canonical(data).string()) {
      stop_child(pid, SIGINT, std::chrono::seconds(10));
      why_not = "port " + std::to_string(port) + " answered with another server";
      return std::nullopt;
    }
    c.exec("CREATE DATABASE perflab");
    return StartedPostgres{pid, port, c.server_version_string()};
  } catch (const PgError& e) {
    stop_child(pid, SIGINT, std::chrono::seconds(10));
    throw ServerError(std::string("PostgreSQL started but could not be prepared: ") + e.what() +
                      "; " + log_tail(srv.log));
  }
}

}  // namespace

ManagedPostgres::ManagedPostgres(ManagedPostgresOptions opts) {
  check_options(opts);
  const fs::path initdb = find_server_binary("initdb");
  const fs::path postgres = initdb.parent_path() / "postgres";
  if (!is_executable_file(postgres)) throw ServerError(debian_package_hint("postgres"));
  const Credentials creds = unprivileged_credentials();

  dir_ = make_owned_folder("perflab-pg-", creds);
  try {
    const fs::path data = dir_ / "data";
    init_cluster(initdb, dir_, data, creds);
    std::string last_error;
    for (int attempt = 0; attempt < 5; ++attempt) {
      if (auto started =
              start_postgres_once(postgres, dir_, data, opts, creds, attempt, last_error)) {
        pid_ = started->pid;
        port_ = started->port;
        version_ = std::move(started->version);
        return;
      }
    }
    throw ServerError("could not start PostgreSQL on a free port: " + last_error);
  } catch (...) {
    remove_folder(dir_);
    throw;
  }
}

ManagedPostgres::~ManagedPostgres() {
  stop_child(pid_, SIGINT, std::chrono::seconds(10));  // SIGINT: fast shutdown
  remove_folder(dir_);
}

std::string ManagedPostgres::conninfo() const {
  return "host=127.0.0.1 port=" + std::to_string(port_) + " dbname=perflab user=perflab";
}

bool ManagedPostgres::running() const {
  return child_alive(pid_);
}

}  // namespace perflab
