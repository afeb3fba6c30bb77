// A managed hot standby: base backup, start, and the wait until it streams
// (targets/managed_postgres_standby.h).
#include "targets/managed_postgres_standby.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "targets/child_process.h"
#include "targets/owned_folder.h"
#include "targets/postgres.h"
#include "targets/postgres_server.h"
#include "targets/replication.h"
#include "targets/server_binary.h"
#include "targets/server_start.h"

namespace fs = std::filesystem;

namespace perflab {

namespace {

// pg_basebackup of the primary into dir/data as the server's user, within `limit`, connecting as
// the primary's superuser (replication needs its REPLICATION attribute) with the password in its
// environment; its output goes to dir/basebackup.log.
void base_backup(const fs::path& exe, const ManagedPostgres& primary, const fs::path& dir,
                 const fs::path& data, const Credentials& creds, std::chrono::seconds limit,
                 const std::stop_token& stop) {
  if (mkdir(data.c_str(), 0700) != 0)
    throw ServerError("cannot create " + data.string() + ": " + errno_text(errno));
  if (creds.drop && chown(data.c_str(), creds.uid, creds.gid) != 0)
    throw ServerError("cannot give " + data.string() + " to user " + creds.user + ": " +
                      errno_text(errno));
  SpawnSpec spec;
  spec.exe = exe;
  spec.args = {"-h",        "127.0.0.1",  "-p", std::to_string(primary.port()),
               "-U",        kPgSetupUser, "-D", data.string(),
               "-X",        "stream",     "-R", "--checkpoint=fast",
               "--no-sync", "-w"};
  spec.env = {"PGPASSWORD=" + primary.passwords().setup};
  spec.log = dir / "basebackup.log";
  spec.cwd = dir;
  spec.creds = creds;
  spec.death_signal = SIGKILL;
  const pid_t pid = spawn(spec);
  int status = 0;
  if (!wait_exit_unless_stopped(pid, limit, &status, stop)) {
    stop_child(pid, SIGKILL, std::chrono::seconds(1));
    throw_if_stopped(stop, "pg_basebackup copied the primary");
    throw ServerError("pg_basebackup did not finish within " + std::to_string(limit.count()) +
                      " s; " + log_tail(spec.log));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw ServerError("pg_basebackup " + describe_exit_status(status) + "; " + log_tail(spec.log));
}

}  // namespace

ManagedPostgresStandby::ManagedPostgresStandby(const ManagedPostgres& primary,
                                               ManagedPostgresOptions opts, std::stop_token stop,
                                               std::chrono::seconds ready_within) {
  const fs::path initdb = find_server_binary("initdb");
  const fs::path postgres = initdb.parent_path() / "postgres";
  const fs::path basebackup = initdb.parent_path() / "pg_basebackup";
  for (const fs::path& exe : {postgres, basebackup})
    if (!is_executable_file(exe)) throw ServerError(debian_package_hint("postgres"));
  const Credentials creds = unprivileged_credentials();
  const auto deadline = std::chrono::steady_clock::now() + ready_within;
  passwords_ = primary.passwords();

  dir_ = make_owned_folder("perflab-pgstandby-", creds);
  try {
    const fs::path data = dir_ / "data";
    base_backup(basebackup, primary, dir_, data, creds, ready_within, stop);
    StartedPostgres started =
        start_postgres_server(postgres, dir_, data, opts, creds, passwords_, false, stop);
    pid_ = started.pid;
    port_ = started.port;
    version_ = std::move(started.version);
    // Ready once its WAL receiver streams from the primary.
    PgConnection c(setup_conninfo(), PgLimits{}, stop);
    std::string status = "no WAL receiver";
    const bool streaming = poll_until(
        deadline,
        [&] {
          const auto r = pg_wal_receiver(c);
          status = r ? r->status : "no WAL receiver";
          return r && r->status == "streaming";
        },
        stop);
    throw_if_stopped(stop, "waiting for the standby to stream");
    if (!streaming)
      throw ServerError("the standby on port " + std::to_string(port_) +
                        " did not stream from its primary within " +
                        std::to_string(ready_within.count()) + " s (" + status + "); " +
                        log_tail(dir_ / "postgres.log"));
  } catch (const PgError& e) {
    discard();
    throw_if_stopped(stop, "checking the standby");
    throw ServerError(std::string("the standby started but could not be checked: ") + e.what());
  } catch (...) {
    discard();
    throw;
  }
}

}  // namespace perflab
