#pragma once
// A managed Redis: a throwaway redis-server (also a Redis Cluster node) Perflab runs on a free
// loopback port with no persistence, stopped and its folder removed with the object.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <stop_token>
#include <string>

#include "common/endpoint.h"
#include "targets/child_process.h"
#include "targets/server_error.h"

namespace perflab {

struct ManagedRedisOptions {
  // A Redis Cluster node (cluster-enabled yes): its cluster bus on a free port of its own
  // (cluster-port), its node table in its folder (nodes.conf).
  bool cluster = false;
  // cluster-node-timeout: how long a node may not answer before it is failed (and, with a
  // replica, failed over). Small for the failover demonstration.
  std::chrono::milliseconds cluster_node_timeout{5000};
};

// How long a managed redis-server may take to stop: a throwaway one stops at once (SIGTERM,
// nothing to save, no wait for lagging replicas); one that has not (frozen, hung) is killed.
inline constexpr std::chrono::seconds kRedisStopGrace{1};

// A throwaway redis-server on 127.0.0.1 with no persistence, stopped within kRedisStopGrace; as
// root, run as the servers' unprivileged user (unprivileged_credentials).
class ManagedRedis {
 public:
  // Starts; throws ServerError, StartStopped when `stop` ends the wait for it to answer.
  explicit ManagedRedis(ManagedRedisOptions opts = {}, std::stop_token stop = {});
  ~ManagedRedis();  // stops it and removes its folder
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
  void start(const std::stop_token& stop = {});
  ManagedRedisOptions opts_;
  Credentials creds_;  // who the server runs as (child_process.h)
  std::filesystem::path dir_;
  int port_ = 0;
  int bus_port_ = 0;
  pid_t pid_ = -1;
  std::string version_;
};

}  // namespace perflab
