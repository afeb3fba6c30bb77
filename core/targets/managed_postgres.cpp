// A managed PostgreSQL: its cluster initdb'd with a password for its superuser, started, and
// stopped with its folder (targets/managed_postgres.h).
#include "targets/managed_postgres.h"

#include <libpq-fe.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "targets/child_process.h"
#include "targets/owned_folder.h"
#include "targets/postgres_server.h"
#include "targets/secret.h"
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

// The file initdb reads the superuser's password from (--pwfile: never on a command line, which
// every user may read in /proc), removed once initdb has read it, however it ended.
class PasswordFile {
 public:
  PasswordFile(fs::path path, const std::string& password, const Credentials& creds)
      : path_(std::move(path)) {
    write_private_file(path_, password + "\n", 0600, creds);
  }
  ~PasswordFile() {
    std::error_code ec;
    fs::remove(path_, ec);
  }
  PasswordFile(const PasswordFile&) = delete;
  PasswordFile& operator=(const PasswordFile&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// initdb into dir/data, as the server's user, with kPgSetupUser as its superuser and
// scram-sha-256 for every connection (local and host, replication too); its output goes to
// dir/initdb.log.
void init_cluster(const fs::path& initdb, const fs::path& dir, const fs::path& data,
                  const std::string& setup_password, const Credentials& creds,
                  const std::stop_token& stop) {
  if (mkdir(data.c_str(), 0700) != 0)
    throw ServerError("cannot create " + data.string() + ": " + errno_text(errno));
  if (creds.drop && chown(data.c_str(), creds.uid, creds.gid) != 0)
    throw ServerError("cannot give " + data.string() + " to user " + creds.user + ": " +
                      errno_text(errno));
  const PasswordFile pwfile(dir / "initdb.pw", setup_password, creds);
  SpawnSpec init;
  init.exe = initdb;
  init.args = {"-D",
               data.string(),
               "-U",
               kPgSetupUser,
               "--pwfile=" + pwfile.path().string(),
               "--auth=scram-sha-256",
               "-E",
               "UTF8",
               "--locale=C",
               "--no-sync",
               "--no-instructions"};
  init.log = dir / "initdb.log";
  init.cwd = dir;
  init.creds = creds;
  init.death_signal = SIGKILL;
  pid_t init_pid = spawn(init);
  int status = 0;
  if (!wait_exit_unless_stopped(init_pid, std::chrono::seconds(180), &status, stop)) {
    stop_child(init_pid, SIGKILL, std::chrono::seconds(1));
    throw_if_stopped(stop, "initdb ran");
    throw ServerError("initdb did not finish within 180 s; " + log_tail(init.log));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw ServerError("initdb " + describe_exit_status(status) + "; " + log_tail(init.log));
}

}  // namespace

std::string managed_pg_conninfo(int port, const ManagedPgPasswords& passwords, bool setup) {
  return "host=127.0.0.1 port=" + std::to_string(port) +
         (setup ? std::string(" dbname=postgres user=") + kPgSetupUser +
                      " password=" + passwords.setup
                : std::string(" dbname=perflab user=") + kPgUser + " password=" + passwords.user);
}

ManagedPostgres::ManagedPostgres(ManagedPostgresOptions opts, std::stop_token stop) {
  check_options(opts);
  const fs::path initdb = find_server_binary("initdb");
  const fs::path postgres = initdb.parent_path() / "postgres";
  if (!is_executable_file(postgres)) throw ServerError(debian_package_hint("postgres"));
  const Credentials creds = unprivileged_credentials();
  passwords_ = {random_password(), random_password()};

  dir_ = make_owned_folder("perflab-pg-", creds);
  try {
    const fs::path data = dir_ / "data";
    init_cluster(initdb, dir_, data, passwords_.setup, creds, stop);
    StartedPostgres started =
        start_postgres_server(postgres, dir_, data, opts, creds, passwords_, true, stop);
    pid_ = started.pid;
    port_ = started.port;
    version_ = std::move(started.version);
  } catch (...) {
    discard();
    throw;
  }
}

ManagedPgServer::~ManagedPgServer() {
  stop_postgres_server(pid_);
  remove_folder_detached(dir_);  // its data: quitting does not wait for the blocks to be freed
}

void ManagedPgServer::discard() {
  stop_postgres_server(pid_);
  remove_folder(dir_);
  pid_ = -1;
  dir_.clear();
}

bool ManagedPgServer::running() const {
  return child_alive(pid_);
}

}  // namespace perflab
