#pragma once
// The targets an experiment runs against: configured external servers, or managed local
// servers started on demand (the default) and kept until the Targets object is destroyed.
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "common/run.h"
#include "targets/cluster.h"
#include "targets/managed_pgbouncer.h"
#include "targets/managed_postgres.h"
#include "targets/managed_postgres_standby.h"
#include "targets/managed_redis.h"
#include "targets/managed_redis_cluster.h"
#include "targets/ownership.h"
#include "targets/postgres.h"
#include "targets/redis.h"

namespace perflab {

struct TargetsConfig {
  std::optional<std::string> pg_conninfo;  // external PostgreSQL; absent = managed
  // External hot standbys of pg_conninfo (each checked: in recovery, a copy of that primary);
  // empty = managed standbys of the managed primary.
  std::vector<std::string> pg_standby_conninfos;
  std::vector<RedisEndpoint> redis_nodes;  // external Redis nodes; empty = managed
  // Seed nodes of an external Redis Cluster (the password of the first used on every node);
  // empty = a managed cluster.
  std::vector<RedisEndpoint> redis_cluster;
  ManagedRedisClusterOptions managed_cluster;
  std::string pg_schema = "perflab";      // the only schema Perflab touches
  std::string redis_prefix = "perflab:";  // the only keys Perflab touches
  ManagedPostgresOptions managed_pg;
  ManagedPgBouncerOptions managed_pgbouncer;      // the pooler in front of the PostgreSQL target
  PgLimits pg_limits;                             // bounds of every PostgreSQL operation
  std::chrono::milliseconds redis_timeout{5000};  // bound of every Redis command
};

struct PgTarget {
  std::string conninfo;  // may hold a password: never record it, use redact_conninfo()
  std::string schema;
  bool managed = false;
  PgLimits limits;
  // A connection bounded by the limits; a stop request ends its waits (targets/io_wait.h).
  PgConnection connect(std::stop_token stop = {}) const { return {conninfo, limits, stop}; }
};

struct RedisTarget {
  std::vector<RedisEndpoint> nodes;
  std::string prefix;
  bool managed = false;
  std::chrono::milliseconds timeout{5000};
  RedisClient connect(std::size_t node, std::stop_token stop = {}) const {
    return RedisClient(nodes.at(node), timeout, stop);
  }
};

struct RedisClusterTarget {
  std::vector<RedisEndpoint> seeds;
  std::string prefix;
  bool managed = false;
  std::chrono::milliseconds timeout{5000};
  ClusterClient connect(std::stop_token stop = {}) const {
    return ClusterClient(seeds, timeout, std::move(stop));
  }
};

// What an experiment needs from the targets for a given set of parameters.
struct TargetNeeds {
  bool postgres = false;
  std::size_t redis_nodes = 0;  // 0: no Redis
  bool redis_cluster = false;
  bool pg_pooler = false;       // PostgreSQL also through a managed PgBouncer
  int pg_pool_size = 0;         // that PgBouncer's server connections; 0: TargetsConfig's default
  std::size_t pg_standbys = 0;  // hot standbys of the PostgreSQL server (with postgres)
  // The run only reads the user's own tables (caching on your query): no schema of Perflab's
  // is made or checked, so a role with only SELECT suffices.
  bool pg_read_only = false;
};

// What a run does on the PostgreSQL target: in Perflab's own schema, or only reading the
// user's tables (TargetNeeds::pg_read_only).
enum class PgUse { OwnSchema, ReadOnly };

class Targets {
 public:
  explicit Targets(TargetsConfig cfg = {});
  ~Targets();

  // The PostgreSQL target: the configured one, or a managed cluster started on first use. A
  // configured one is checked on first use (connection, version, and for PgUse::OwnSchema
  // Perflab's schema: see pg_check_own_schema); throws TargetError naming the server and the
  // reason.
  PgTarget postgres(std::stop_token stop = {}, PgUse use = PgUse::OwnSchema);
  // At least `count` hot standbys of postgres(): the configured ones (all of them; each checked
  // on first use to be in recovery and a copy of the configured primary, or refused with a
  // TargetError that changed nothing), or `count` managed standbys of the managed primary (more
  // are started as needed). Perflab never makes a standby of, promotes or reconfigures a server
  // it does not manage.
  std::vector<PgTarget> postgres_standbys(std::size_t count, std::stop_token stop = {});
  // At least `count` Redis nodes: the configured ones (all of them; throws if fewer than
  // count), or `count` managed servers (more are started as needed). Configured nodes are
  // checked on first use (connection, version, Perflab's prefix claimed: redis_claim_prefix);
  // throws TargetError.
  RedisTarget redis(std::size_t count = 1, std::stop_token stop = {});
  // The Redis Cluster: the configured one (checked on first use: its slot map read, Perflab's
  // prefix claimed on every master; throws TargetError), or a managed cluster of
  // config().managed_cluster started on first use.
  RedisClusterTarget redis_cluster(std::stop_token stop = {});
  // Checks, before anything is measured, every configured target `needs` names, within the
  // connect timeout; managed servers pass (they are Perflab's, started when first used).
  // Throws TargetError with one line naming the target and what to change.
  void preflight(const TargetNeeds& needs, std::stop_token stop = {});
  // Starts now the managed servers `needs` names that are not running yet (configured ones are
  // left alone), so that a run started next measures at once. Throws TargetError.
  void start_managed(const TargetNeeds& needs, std::stop_token stop = {});
  // The PostgreSQL target through a managed PgBouncer (transaction mode) started on first use in
  // front of postgres(); the same schema, limits and `managed` (whose the server is). A pool size
  // (its server connections, 0: config().managed_pgbouncer's) other than the running one's
  // replaces it with one of that size. Throws TargetError.
  PgTarget pg_pooler(std::stop_token stop = {}, int pool_size = 0);
  // Managed servers (nullptr / empty when external or not started yet).
  ManagedPostgres* managed_postgres();
  ManagedPgBouncer* managed_pgbouncer();  // replaced by pg_pooler() for another pool size
  // The managed PgBouncer as it is now, read under the lock (another thread's pg_pooler() may
  // replace it); nullopt when none was started.
  struct PoolerState {
    int port = 0;
    int pool_size = 0;
    std::string version;
    bool running = false;
  };
  std::optional<PoolerState> managed_pgbouncer_state();
  std::vector<ManagedPostgresStandby*> managed_standbys();
  std::vector<ManagedRedis*> managed_redis();
  ManagedRedisCluster* managed_cluster();  // nullptr when external or not started yet

  // What has been used, secrets removed, with versions: for Run::targets.
  std::vector<TargetInfo> describe() const;
  const TargetsConfig& config() const { return cfg_; }

 private:
  TargetsConfig cfg_;
  mutable std::mutex mu_;
  std::unique_ptr<ManagedPostgres> pg_;
  // Every managed server stops side by side with the others when Targets goes (~Targets).
  std::unique_ptr<ManagedPgBouncer> pgbouncer_;
  std::vector<std::unique_ptr<ManagedPostgresStandby>> standbys_;
  std::vector<std::unique_ptr<ManagedRedis>> redis_;
  std::unique_ptr<ManagedRedisCluster> cluster_;
  std::vector<TargetInfo> used_;
  bool pg_schema_checked_ = false;  // the configured PostgreSQL's (pg_check_own_schema passed)
};

}  // namespace perflab
