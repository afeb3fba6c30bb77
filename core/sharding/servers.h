#pragma once
// The servers a sharding run measures, up until it ends: the Redis nodes (and the Redis Cluster
// when needed), a port per variant (perflab-proxy per write strategy, twemproxy), the cleanup of
// the keys the load generator wrote there. The sweep and the latency groups share them.
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "sharding/sharding_run.h"
#include "targets/redis.h"

namespace perflab::sharding {

class Twemproxy;  // nutcracker as a child process (sharding/servers.cpp)

// Removes the keys the load generator wrote, and only those, when the run ends, however it ends:
// <key_prefix><12 digits> below the keyspace (or the one literal key of keyspace 0). Small
// keyspaces are deleted by name; large ones by a SCAN of exactly that shape.
class KeyCleanup {
 public:
  KeyCleanup(RedisTarget t, std::string key_prefix, std::int64_t keyspace, std::stop_token stop)
      : t_(std::move(t)), key_prefix_(std::move(key_prefix)), keyspace_(keyspace), stop_(stop) {}
  KeyCleanup(const KeyCleanup&) = delete;
  KeyCleanup& operator=(const KeyCleanup&) = delete;
  ~KeyCleanup();

 private:
  void clean(RedisClient& c) const;

  RedisTarget t_;
  std::string key_prefix_;
  std::int64_t keyspace_;
  std::stop_token stop_;
};

// Removes the run's keys on the cluster, and only those, when it ends: <key_prefix>... on each
// master, one key per UNLINK (the keys of one master can be in several slots).
class ClusterKeyCleanup {
 public:
  ClusterKeyCleanup(std::optional<RedisClusterTarget> t, std::string key_prefix,
                    std::stop_token stop)
      : t_(std::move(t)), key_prefix_(std::move(key_prefix)), stop_(std::move(stop)) {}
  ClusterKeyCleanup(const ClusterKeyCleanup&) = delete;
  ClusterKeyCleanup& operator=(const ClusterKeyCleanup&) = delete;
  ~ClusterKeyCleanup();

 private:
  std::optional<RedisClusterTarget> t_;
  std::string key_prefix_;
  std::stop_token stop_;
};

// The servers a run measures, up until it ends: a port per variant that could be started.
struct ServersUnderTest {
  ServersUnderTest();
  ServersUnderTest(ServersUnderTest&&) noexcept;
  ~ServersUnderTest();
  std::vector<Variant> variants;  // those asked for, less those that cannot run (a note says why)
  std::map<std::string, int> ports;
  std::optional<RedisClusterTarget> cluster;
  std::map<std::string, std::unique_ptr<proxy::Proxy>> proxies;
  std::unique_ptr<Twemproxy> twem;
};

// Starts what `variants` need on the run's nodes (and cluster): a proxy per write strategy,
// twemproxy; a variant that cannot run (twemproxy not installed, ...) is left out with a note.
ServersUnderTest start_servers(RunContext& ctx, const RedisTarget& target,
                               const std::optional<RedisClusterTarget>& cluster,
                               const std::vector<Variant>& variants);

// The load generator's own --cluster mode (a cluster-aware client).
bool cluster_client(const Variant& v);

// `base` pointed at variant v: its port, its host (`direct_host` for Redis direct), --cluster
// and the cluster's password for a cluster client.
BenchOptions variant_bench_options(BenchOptions base, const ServersUnderTest& s, const Variant& v,
                                   const std::string& direct_host);

// The Redis nodes and, when `need` says so, the Redis Cluster of a run, as its targets, each
// described in the run; the keys under `key_prefix` (keyspace -r) removed when it ends. The
// progress reads `nodes_progress` while the nodes start, `cluster_progress` for the cluster.
struct RunServers {
  RunServers(RunContext& ctx, const TargetNeeds& need, const std::string& key_suffix,
             std::int64_t keyspace, double nodes_progress, double cluster_progress);
  RedisTarget target;
  std::string key_prefix;  // the run's prefix + key_suffix
  KeyCleanup cleanup;
  std::optional<RedisClusterTarget> cluster;
  ClusterKeyCleanup cluster_cleanup;
};

}  // namespace perflab::sharding
