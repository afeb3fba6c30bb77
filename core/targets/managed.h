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

struct ManagedRedisOptions {
  // A Redis Cluster node (cluster-enabled yes): its cluster bus on a free port of its own
  // (cluster-port), its node table in its folder (nodes.conf).
  bool cluster = false;
  // cluster-node-timeout: how long a node may not answer before it is failed (and, with a
  // replica, failed over). Small for the failover demonstration.
  std::chrono::milliseconds cluster_node_timeout{5000};
};

// A throwaway redis-server on 127.0.0.1 with no persistence.
class ManagedRedis {
 public:
  explicit ManagedRedis(ManagedRedisOptions opts = {});  // starts; throws ServerError
  ~ManagedRedis();
  ManagedRedis(const ManagedRedis&) = delete;
  ManagedRedis& operator=(const ManagedRedis&) = delete;

  RedisEndpoint endpoint() const { return {"127.0.0.1", port_, {}}; }
  int port() const { return port_; }
  int cluster_bus_port() const { return bus_port_; }  // 0 unless a cluster node
  pid_t pid() const { return pid_; }
  std::string version() const { return version_; }
  const std::filesystem::path& dir() const { return dir_; }  // its folder (log, --dir)
  bool running() const;
  // Simulates a crash (SIGKILL) or restarts on the same port; for failure tests.
  void kill_now();
  void restart();

 private:
  void start();
  ManagedRedisOptions opts_;
  std::filesystem::path dir_;
  int port_ = 0;
  int bus_port_ = 0;
  pid_t pid_ = -1;
  std::string version_;
};

struct ManagedRedisClusterOptions {
  int masters = 3;                               // 3 to 16; the slots are split evenly, in order
  bool replicas = false;                         // one replica for each master
  std::chrono::milliseconds node_timeout{5000};  // cluster-node-timeout of every node
  // Bound of the whole start: forming, gossip and replicas catching up (a loaded machine).
  std::chrono::seconds ready_within{90};
};

// A throwaway Redis Cluster on loopback: `masters` redis-server processes in cluster mode
// (ManagedRedis, so the same spawner, parent-death signal, folders and stop), slots assigned
// with CLUSTER ADDSLOTSRANGE, joined with CLUSTER MEET, replicas attached with CLUSTER REPLICATE;
// ready when every node reports cluster_state:ok and the same slot map with every replica.
class ManagedRedisCluster {
 public:
  explicit ManagedRedisCluster(ManagedRedisClusterOptions opts = {});  // throws ServerError
  ManagedRedisCluster(const ManagedRedisCluster&) = delete;
  ManagedRedisCluster& operator=(const ManagedRedisCluster&) = delete;
  ~ManagedRedisCluster();

  // Every node, masters first (as formed), then the replicas (replica i of master i).
  std::vector<RedisEndpoint> seeds() const;
  std::size_t masters() const { return static_cast<std::size_t>(opts_.masters); }
  ManagedRedis& master(std::size_t i) { return *nodes_.at(i); }
  ManagedRedis* replica_of(std::size_t i);  // nullptr without replicas
  std::string version() const { return nodes_.front()->version(); }
  const ManagedRedisClusterOptions& options() const { return opts_; }
  // Waits until every running node reports cluster_state:ok and the same slot map as the
  // others, every replica in sync (and, with every node up, every master with a replica): after
  // a resharding or a failover. Throws ServerError after `limit` naming what is missing.
  void wait_ok(std::chrono::milliseconds limit) const;

 private:
  ManagedRedisClusterOptions opts_;
  std::vector<std::unique_ptr<ManagedRedis>> nodes_;
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
