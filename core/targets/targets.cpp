#include "targets/targets.h"

#include <stdexcept>

#include "targets/postgres.h"

namespace perflab {

Targets::Targets(TargetsConfig cfg) : cfg_(std::move(cfg)) {
  // Perflab touches only its own schema and key prefix: an empty one would mean "everything".
  if (cfg_.pg_schema.empty())
    throw std::invalid_argument("the PostgreSQL schema for Perflab must not be empty");
  if (cfg_.redis_prefix.empty())
    throw std::invalid_argument("the Redis key prefix for Perflab must not be empty");
  if (cfg_.pg_conninfo && cfg_.pg_conninfo->empty())
    throw std::invalid_argument(
        "the PostgreSQL conninfo is empty; leave it unset to use a managed server");
}

Targets::~Targets() = default;

PgTarget Targets::postgres() {
  std::lock_guard lock(mu_);
  if (cfg_.pg_conninfo) {
    const std::string address = redact_conninfo(*cfg_.pg_conninfo);
    bool known = false;
    for (const auto& t : used_) known = known || (t.kind == "postgres" && t.address == address);
    if (!known) {
      // Connect once on first use: fails fast (5 s) with the target and the reason, and tells
      // the run which server version it measured.
      PgConnection c(*cfg_.pg_conninfo, 5);
      used_.push_back({"postgres", address, false, c.server_version_string()});
    }
    return {*cfg_.pg_conninfo, cfg_.pg_schema, false};
  }
  if (!pg_) {
    pg_ = std::make_unique<ManagedPostgres>(cfg_.managed_pg);
    used_.push_back({"postgres", pg_->conninfo(), true, pg_->version()});
  }
  return {pg_->conninfo(), cfg_.pg_schema, true};
}

RedisTarget Targets::redis(std::size_t count) {
  std::lock_guard lock(mu_);
  if (count == 0) count = 1;
  if (!cfg_.redis_nodes.empty()) {
    if (cfg_.redis_nodes.size() < count)
      throw std::runtime_error("this needs " + std::to_string(count) + " Redis nodes, but only " +
                               std::to_string(cfg_.redis_nodes.size()) +
                               " were configured; add more host:port entries or leave Redis "
                               "unset to use managed servers");
    for (const auto& ep : cfg_.redis_nodes) {
      bool known = false;
      for (const auto& t : used_) known = known || (t.kind == "redis" && t.address == ep.address());
      if (known) continue;
      RedisClient c(ep, std::chrono::seconds(5));
      used_.push_back({"redis", ep.address(), false, c.server_version()});
    }
    return {cfg_.redis_nodes, cfg_.redis_prefix, false};
  }
  while (redis_.size() < count) {
    redis_.push_back(std::make_unique<ManagedRedis>());
    const ManagedRedis& r = *redis_.back();
    used_.push_back({"redis", r.endpoint().address(), true, r.version()});
  }
  RedisTarget t{{}, cfg_.redis_prefix, true};
  for (std::size_t i = 0; i < count; ++i) t.nodes.push_back(redis_[i]->endpoint());
  return t;
}

ManagedPostgres* Targets::managed_postgres() {
  std::lock_guard lock(mu_);
  return pg_.get();
}

std::vector<ManagedRedis*> Targets::managed_redis() {
  std::lock_guard lock(mu_);
  std::vector<ManagedRedis*> out;
  for (auto& r : redis_) out.push_back(r.get());
  return out;
}

std::vector<TargetInfo> Targets::describe() const {
  std::lock_guard lock(mu_);
  return used_;
}

}  // namespace perflab
