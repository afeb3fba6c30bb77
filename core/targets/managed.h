#pragma once
// Managed local servers: throwaway PostgreSQL and redis-server processes that Perflab starts
// on free loopback ports, waits for, and stops. They die with Perflab: each child gets
// PR_SET_PDEATHSIG, and children are forked from one long-lived spawner thread (the parent-death
// signal follows the forking *thread*, so forking from a short-lived worker would kill them).
#include <sys/types.h>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

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

// A free TCP port on 127.0.0.1 (bound then released).
int free_loopback_port();

// Locates a server binary: PostgreSQL's in /usr/lib/postgresql/<newest>/bin (or pg_config
// --bindir, or PATH), others on PATH. Throws ServerError naming the Debian package to install.
std::filesystem::path find_server_binary(const std::string& name);

}  // namespace perflab
