#pragma once
// A child process Perflab starts and owns (a managed server, or a helper program such as
// pgbench): spawned, waited for within bounds, stopped and reaped.
//
// Children die with Perflab: each gets PR_SET_PDEATHSIG, and every child is forked from one
// long-lived spawner thread (the parent-death signal follows the forking *thread*, so forking
// from a short-lived worker would kill them).
#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "targets/server_error.h"

namespace perflab {

// The user a child runs as: Perflab's own unless `drop`.
struct Credentials {
  bool drop = false;
  uid_t uid = 0;
  gid_t gid = 0;
  std::string user;
};

// When running as root, servers (PostgreSQL must) run as `user`, a user of their own; without
// one, ServerError says how to make it. Not root: Perflab's own user (no drop).
Credentials unprivileged_credentials(const std::string& user = "postgres");

// How to start a child.
struct SpawnSpec {
  std::filesystem::path exe;
  std::vector<std::string> args;  // without argv[0]
  std::filesystem::path log;      // stdout and stderr, appended
  std::filesystem::path err_log;  // when set, stderr goes here instead
  std::vector<std::string> env;   // NAME=VALUE set for the child only (replacing inherited ones)
  std::filesystem::path cwd;
  Credentials creds;
  int death_signal = SIGKILL;
};

// Starts a child from the spawner thread: in its own session, with spec's parent-death signal,
// inheriting none of Perflab's open files. Throws ServerError naming the step that failed
// before exec.
pid_t spawn(const SpawnSpec& spec);

// Reaps pid if it exited within timeout. Returns true when reaped (or not our child anymore).
bool wait_exit(pid_t pid, std::chrono::milliseconds timeout, int* status_out = nullptr);
// Stops a child: sig, wait up to grace, then SIGKILL and reap (its waitpid status in status_out).
void stop_child(pid_t pid, int sig, std::chrono::milliseconds grace, int* status_out = nullptr);
// Is the child still running (not exited; it is not reaped)?
bool child_alive(pid_t pid);

struct ChildProcessOptions {
  std::vector<std::string> args;         // without argv[0]
  std::filesystem::path output;          // stdout, and stderr unless `errors` is set (appended)
  std::filesystem::path errors;          // optional: stderr apart
  std::vector<std::string> environment;  // NAME=VALUE for the child only (e.g. PGPASSWORD)
};

// A helper program Perflab runs and owns (pgbench, nutcracker, ...), started exactly like the
// managed servers: forked from the long-lived spawner thread, in its own session, with the
// parent-death signal, inheriting none of Perflab's open files. Stopped and reaped on destruction.
class ChildProcess {
 public:
  ChildProcess(const std::filesystem::path& exe, ChildProcessOptions opts);  // throws ServerError
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // False once it has exited (it is reaped then and exit_status() is set).
  bool running();
  std::optional<int> exit_status() const { return status_; }  // a waitpid status
  // Waits until it exits (true), or until a stop is requested: then stops it (SIGTERM, SIGKILL
  // after 300 ms) and returns false.
  bool wait(std::stop_token stop = {});
  // The same with a bound: a helper that has not exited after `limit` (e.g. blocked on a frozen
  // server) is stopped as on a stop request.
  enum class Outcome { Exited, Stopped, TimedOut };
  Outcome wait_for(std::chrono::milliseconds limit, std::stop_token stop = {});
  // SIGTERM, then SIGKILL after grace; reaped. Does nothing once it has exited.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(1));

 private:
  pid_t pid_ = -1;
  std::optional<int> status_;
};

// "exited with status 1", "killed by signal Terminated", ... for a waitpid status.
std::string describe_exit_status(int status);

}  // namespace perflab
