#pragma once
// The targets an experiment runs against: configured external servers, or managed local
// servers started on demand (the default) and kept until the Targets object is destroyed.
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/run.h"
#include "targets/managed.h"
#include "targets/redis.h"

namespace perflab {

struct TargetsConfig {
  std::optional<std::string> pg_conninfo;  // external PostgreSQL; absent = managed
  std::vector<RedisEndpoint> redis_nodes;  // external Redis nodes; empty = managed
  std::string pg_schema = "perflab";       // the only schema Perflab touches
  std::string redis_prefix = "perflab:";   // the only keys Perflab touches
  ManagedPostgresOptions managed_pg;
};

struct PgTarget {
  std::string conninfo;  // may hold a password: never record it, use redact_conninfo()
  std::string schema;
  bool managed = false;
};

struct RedisTarget {
  std::vector<RedisEndpoint> nodes;
  std::string prefix;
  bool managed = false;
};

class Targets {
 public:
  explicit Targets(TargetsConfig cfg = {});
  ~Targets();

  // The PostgreSQL target: the configured one, or a managed cluster started on first use.
  PgTarget postgres();
  // At least `count` Redis nodes: the configured ones (all of them; throws if fewer than
  // count), or `count` managed servers (more are started as needed).
  RedisTarget redis(std::size_t count = 1);
  // Managed servers (nullptr / empty when external or not started yet).
  ManagedPostgres* managed_postgres();
  std::vector<ManagedRedis*> managed_redis();

  // What has been used, secrets removed, with versions: for Run::targets.
  std::vector<TargetInfo> describe() const;
  const TargetsConfig& config() const { return cfg_; }

 private:
  TargetsConfig cfg_;
  mutable std::mutex mu_;
  std::unique_ptr<ManagedPostgres> pg_;
  std::vector<std::unique_ptr<ManagedRedis>> redis_;
  std::vector<TargetInfo> used_;
};

}  // namespace perflab
