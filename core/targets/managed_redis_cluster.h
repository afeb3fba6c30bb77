#pragma once
// A managed Redis Cluster: throwaway redis-server nodes in cluster mode (ManagedRedis) on
// loopback, slots assigned, joined and replicated, stopped with the object.
#include <chrono>
#include <cstddef>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "common/endpoint.h"
#include "targets/managed_redis.h"
#include "targets/server_error.h"

namespace perflab {

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
// A stop request ends the start at any step (a node's start, a command, the waits for the
// nodes to agree) within a fraction of a second: StartStopped, every node stopped and its
// folder removed.
class ManagedRedisCluster {
 public:
  // Throws ServerError, StartStopped when `stop` ends the start.
  explicit ManagedRedisCluster(ManagedRedisClusterOptions opts = {}, std::stop_token stop = {});
  ManagedRedisCluster(const ManagedRedisCluster&) = delete;
  ManagedRedisCluster& operator=(const ManagedRedisCluster&) = delete;
  ~ManagedRedisCluster();  // every node stopped side by side (side_by_side.h), folders removed

  // Every node, masters first (as formed), then the replicas (replica i of master i).
  std::vector<RedisEndpoint> seeds() const;
  std::size_t masters() const { return static_cast<std::size_t>(opts_.masters); }
  ManagedRedis& master(std::size_t i) { return *nodes_.at(i); }
  ManagedRedis* replica_of(std::size_t i);  // nullptr without replicas
  std::string version() const { return nodes_.front()->version(); }
  const ManagedRedisClusterOptions& options() const { return opts_; }
  // Waits until every running node reports cluster_state:ok and the same slot map as the
  // others, every replica in sync (and, with every node up, every master with a replica): after
  // a resharding or a failover. Throws ServerError after `limit` naming what is missing,
  // StartStopped when `stop` ends the wait.
  void wait_ok(std::chrono::milliseconds limit, std::stop_token stop = {}) const;

 private:
  void form(const std::stop_token& stop);
  void stop_nodes();
  ManagedRedisClusterOptions opts_;
  std::vector<std::unique_ptr<ManagedRedis>> nodes_;
};

}  // namespace perflab
