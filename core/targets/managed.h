#pragma once
// Managed local servers: throwaway PostgreSQL and redis-server processes that Perflab starts
// on free loopback ports, waits for, and stops. They die with Perflab: each child gets
// PR_SET_PDEATHSIG, and children are forked from one long-lived spawner thread (the parent-death
// signal follows the forking *thread*, so forking from a short-lived worker would kill them).
#include <sys/types.h>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "targets/redis.h"

namespace perflab {

// A server could not be started; the message says why, and for a missing binary which
// Debian package to install.
class ServerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ManagedPostgresOptions {
  int max_connections = 300;  // 100 concurrent clients plus peers (pgbench) plus slack
  bool durable = true;        // false: fsync=off, synchronous_commit=off (tests only)
  std::string shared_buffers = "128MB";
};

// A throwaway PostgreSQL cluster: initdb into a folder Perflab owns, postgres on 127.0.0.1.
// When Perflab runs as root, initdb and postgres run as an unprivileged user ("postgres" if it
// exists, else "nobody"). Stopped (fast shutdown) and its folder removed on destruction.
class ManagedPostgres {
 public:
  explicit ManagedPostgres(ManagedPostgresOptions opts = {});  // starts; throws ServerError
  ~ManagedPostgres();
  ManagedPostgres(const ManagedPostgres&) = delete;
  ManagedPostgres& operator=(const ManagedPostgres&) = delete;

  std::string conninfo() const;  // host=127.0.0.1 port=N dbname=perflab user=perflab
  int port() const { return port_; }
  pid_t pid() const { return pid_; }  // the postmaster
  std::string version() const { return version_; }
  // Its folder: the cluster in data/, the logs, the Unix socket.
  const std::filesystem::path& data_dir() const { return dir_; }
  bool running() const;

 private:
  std::filesystem::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::string version_;
};

// A throwaway redis-server on 127.0.0.1 with no persistence.
class ManagedRedis {
 public:
  ManagedRedis();  // starts; throws ServerError
  ~ManagedRedis();
  ManagedRedis(const ManagedRedis&) = delete;
  ManagedRedis& operator=(const ManagedRedis&) = delete;

  RedisEndpoint endpoint() const { return {"127.0.0.1", port_, {}}; }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string version() const { return version_; }
  const std::filesystem::path& dir() const { return dir_; }  // its folder (log, --dir)
  bool running() const;
  // Simulates a crash (SIGKILL) or restarts on the same port; for failure tests.
  void kill_now();
  void restart();

 private:
  void start();
  std::filesystem::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::string version_;
};

// A folder Perflab owns under the temporary directory (its owner's pid recorded, so folders of
// a Perflab that died are removed later), removed with everything in it on destruction.
class TempFolder {
 public:
  explicit TempFolder(const std::string& prefix);  // e.g. "perflab-pgbench-"; throws ServerError
  ~TempFolder();
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

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

// A free TCP port on 127.0.0.1 (bound then released).
int free_loopback_port();

// Locates a server binary: PostgreSQL's in /usr/lib/postgresql/<newest>/bin (or pg_config
// --bindir, or PATH), others on PATH. Throws ServerError naming the Debian package to install.
std::filesystem::path find_server_binary(const std::string& name);

}  // namespace perflab
