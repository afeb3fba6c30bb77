// A managed PgBouncer in transaction mode in front of one PostgreSQL (targets/managed_pgbouncer.h):
// its configuration written into a folder of its own, started as the server's user, waited for.
#include "targets/managed_pgbouncer.h"

#include <libpq-fe.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include "targets/child_process.h"
#include "targets/owned_folder.h"
#include "targets/pg_conninfo.h"
#include "targets/postgres.h"
#include "targets/secret.h"
#include "targets/server_binary.h"
#include "targets/server_start.h"

namespace fs = std::filesystem;

namespace perflab {

namespace {

// Where PgBouncer finds the server, read from a connection to it (so that defaults, services
// and the environment resolve as libpq resolves them).
struct Upstream {
  std::string host, dbname, user;
  int port = 0;
  std::optional<std::string> password;
};

// A name PgBouncer's configuration takes as it is (no quoting needed).
bool plain_name(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
          c == '/'))
      return false;
  return true;
}

Upstream read_upstream(const std::string& server_conninfo, const std::stop_token& stop) {
  Upstream u;
  try {
    PgConnection c(server_conninfo, PgLimits{10}, stop);
    u.host = c.host();
    u.port = c.port();
    PgResult r = c.exec("SELECT current_database(), current_user");
    u.dbname = std::string(r.value(0, 0));
    u.user = std::string(r.value(0, 1));
  } catch (const PgError& e) {
    throw_if_stopped(stop, "reading PgBouncer's server");
    throw ServerError(std::string("PgBouncer's server does not answer: ") + e.what());
  }
  u.password = parse_conninfo(server_conninfo).password;
  for (const std::string* s : {&u.host, &u.dbname, &u.user})
    if (!plain_name(*s))
      throw ServerError(
          "PgBouncer is configured only for plain names (letters, digits, _ - . /); "
          "got '" +
          *s + "'");
  return u;
}

// A value in PgBouncer's auth file: "..." with " doubled.
std::string auth_quoted(const std::string& v) {
  std::string out = "\"";
  for (char c : v) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string pgbouncer_ini(const Upstream& u, const fs::path& dir, int port,
                          const ManagedPgBouncerOptions& o) {
  std::ostringstream ini;
  ini << "[databases]\n"
      << u.dbname << " = host=" << u.host << " port=" << u.port << " dbname=" << u.dbname
      << " user=" << u.user << "\n\n[pgbouncer]\n"
      << "listen_addr = 127.0.0.1\nlisten_port = " << port
      << "\nunix_socket_dir =\n"
      // Every client, the admin console's too, proves the password of the auth file (mode 0600).
      << "auth_type = scram-sha-256\nauth_file = " << (dir / "users.txt").string() << "\n"
      << "pool_mode = transaction\n"
      << "max_client_conn = " << o.max_client_conn << "\n"
      << "default_pool_size = " << o.default_pool_size << "\n"
      << "reserve_pool_size = 0\nmin_pool_size = 0\n"
      // Bounded waits: a client waits at most this long for a server connection.
      << "query_wait_timeout = 60\nserver_connect_timeout = 10\nserver_login_retry = 1\n"
      << "admin_users = " << u.user << "\n"
      << "log_connections = 0\nlog_disconnections = 0\nlog_pooler_errors = 1\n";
  return ini.str();
}

std::string pgbouncer_version(const fs::path& exe) {
  const std::string cmd = "'" + exe.string() + "' --version 2>/dev/null";
  FILE* f = popen(cmd.c_str(), "re");
  if (!f) return "PgBouncer";
  char line[256];
  std::string out;
  if (fgets(line, sizeof line, f)) out = line;
  pclose(f);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out.empty() ? "PgBouncer" : out;
}

bool log_says_listening(const fs::path& log, int port) {
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.find("listening on 127.0.0.1:" + std::to_string(port)) != std::string::npos;
}

}  // namespace

ManagedPgBouncer::ManagedPgBouncer(const std::string& server_conninfo, ManagedPgBouncerOptions opts,
                                   std::stop_token stop)
    : opts_(opts), server_conninfo_(server_conninfo) {
  if (opts_.max_client_conn < 1 || opts_.max_client_conn > 100000)
    throw ServerError("max_client_conn must be from 1 to 100000");
  if (opts_.default_pool_size < 1 || opts_.default_pool_size > 10000)
    throw ServerError("default_pool_size must be from 1 to 10000");
  const fs::path exe = find_server_binary("pgbouncer");
  version_ = pgbouncer_version(exe);
  const Upstream up = read_upstream(server_conninfo, stop);
  user_ = up.user;
  // Its clients log in with the server's password; a server that asks for none (trust) gets a
  // random one for PgBouncer alone, so that PgBouncer never lets in someone who has none.
  password_ = up.password ? *up.password : random_password();
  const Credentials creds = unprivileged_credentials();
  dir_ = make_owned_folder("perflab-pgbouncer-", creds);
  try {
    write_private_file(dir_ / "users.txt",
                       auth_quoted(up.user) + " " + auth_quoted(password_) + "\n", 0600, creds);
    std::string last_error;
    for (int attempt = 0; attempt < 5; ++attempt) {
      port_ = free_loopback_port();
      write_private_file(dir_ / "pgbouncer.ini", pgbouncer_ini(up, dir_, port_, opts_), 0644,
                         creds);
      try {
        start(exe, stop);
        conninfo_ = conninfo_with_address(server_conninfo, "127.0.0.1", port_);
        if (!up.password) conninfo_ += " password=" + password_;
        return;
      } catch (const StartStopped&) {
        throw;
      } catch (const ServerError& e) {
        if (!log_mentions_port_in_use(dir_ / "pgbouncer.log")) throw;
        last_error = e.what();
        std::error_code ec;
        fs::rename(dir_ / "pgbouncer.log",
                   dir_ / ("pgbouncer-attempt" + std::to_string(attempt) + ".log"), ec);
      }
    }
    throw ServerError("could not start PgBouncer on a free port: " + last_error);
  } catch (...) {
    remove_folder(dir_);
    throw;
  }
}

void ManagedPgBouncer::start(const fs::path& exe, const std::stop_token& stop) {
  SpawnSpec spec;
  spec.exe = exe;
  spec.args = {(dir_ / "pgbouncer.ini").string()};
  spec.log = dir_ / "pgbouncer.log";
  spec.cwd = dir_;
  spec.creds = unprivileged_credentials();
  spec.death_signal = SIGTERM;
  const pid_t pid = spawn(spec);
  // Ours when its own log says it listens on our port (another program there makes it fail).
  const std::string ping =
      "host=127.0.0.1 port=" + std::to_string(port_) + " dbname=pgbouncer connect_timeout=2";
  int exit_status = 0;
  const WaitResult w = wait_ready(
      pid, std::chrono::seconds(30),
      [&] { return log_says_listening(spec.log, port_) && PQping(ping.c_str()) == PQPING_OK; },
      &exit_status, stop);
  if (w == WaitResult::Stopped) {
    stop_child(pid, SIGTERM, std::chrono::seconds(1));
    throw_if_stopped(stop, "starting pgbouncer on port " + std::to_string(port_));
  }
  if (w == WaitResult::Exited)
    throw ServerError("pgbouncer " + describe_exit_status(exit_status) + " during start on port " +
                      std::to_string(port_) + "; " + log_tail(spec.log));
  if (w == WaitResult::TimedOut) {
    stop_child(pid, SIGKILL, std::chrono::seconds(1));
    throw ServerError("pgbouncer did not answer on 127.0.0.1:" + std::to_string(port_) +
                      " within 30 s; " + log_tail(spec.log));
  }
  pid_ = pid;
}

ManagedPgBouncer::~ManagedPgBouncer() {
  stop_child(pid_, SIGTERM, std::chrono::seconds(5));  // SIGTERM: immediate shutdown
  remove_folder(dir_);
}

std::vector<int> ManagedPgBouncer::server_pids() const {
  // The admin console speaks the simple protocol and takes no SET: plain libpq, bounded by
  // connect_timeout and tcp_user_timeout (the console is PgBouncer's own, on this machine). As
  // keywords and values: the password needs no quoting.
  const std::string port = std::to_string(port_);
  const char* keys[] = {
      "host", "port", "dbname", "user", "password", "connect_timeout", "tcp_user_timeout", nullptr};
  const char* values[] = {"127.0.0.1",       port.c_str(), "pgbouncer", user_.c_str(),
                          password_.c_str(), "5",          "10000",     nullptr};
  std::unique_ptr<PGconn, PgConnFinish> c(PQconnectdbParams(keys, values, 0));
  if (!c || PQstatus(c.get()) != CONNECTION_OK)
    throw ServerError(std::string("PgBouncer's console does not answer: ") +
                      (c ? PQerrorMessage(c.get()) : "out of memory"));
  std::unique_ptr<PGresult, PgResultClear> r(PQexec(c.get(), "SHOW SERVERS"));
  const int col = r ? PQfnumber(r.get(), "remote_pid") : -1;
  if (!r || PQresultStatus(r.get()) != PGRES_TUPLES_OK || col < 0)
    throw ServerError(std::string("PgBouncer's SHOW SERVERS failed: ") + PQerrorMessage(c.get()));
  std::vector<int> pids;
  for (int row = 0; row < PQntuples(r.get()); ++row)
    if (const int pid = std::atoi(PQgetvalue(r.get(), row, col)); pid > 0) pids.push_back(pid);
  return pids;
}

bool ManagedPgBouncer::running() const {
  return child_alive(pid_);
}

}  // namespace perflab
