// The targets an experiment runs against: configured servers checked on first use, managed ones
// started on demand, and what was used recorded without secrets (targets/targets.h).
#include "targets/targets.h"

#include <functional>
#include <stdexcept>

#include "common/key_slot.h"
#include "targets/pg_conninfo.h"
#include "targets/replication.h"
#include "targets/side_by_side.h"

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
  if (cfg_.pg_conninfo)
    if (std::string why = pg_conninfo_refusal(*cfg_.pg_conninfo); !why.empty())
      throw TargetError(TargetField::PgServer, why);
  for (std::size_t i = 0; i < cfg_.pg_standby_conninfos.size(); ++i)
    if (std::string why = pg_conninfo_refusal(cfg_.pg_standby_conninfos[i]); !why.empty())
      throw TargetError(TargetField::PgStandby, "standby " + std::to_string(i + 1) + ": " + why);
  if (cfg_.pg_limits.statement_timeout < std::chrono::seconds(1))
    throw std::invalid_argument("the PostgreSQL statement timeout must be at least 1 s");
  if (cfg_.redis_timeout < std::chrono::milliseconds(100))
    throw std::invalid_argument("the Redis timeout must be at least 100 ms");
}

Targets::~Targets() {
  // The managed servers stop side by side: quitting waits for the slowest, not for the sum. Each
  // is thrown away (PostgreSQL's immediate shutdown), so none waits for another: PgBouncer and
  // the standbys need not go before their server.
  std::vector<std::function<void()>> stops;
  auto add = [&stops](auto& server) {
    if (server) stops.emplace_back([&server] { server.reset(); });
  };
  add(pgbouncer_);
  for (auto& s : standbys_) add(s);
  add(pg_);
  for (auto& r : redis_) add(r);
  add(cluster_);
  run_side_by_side(std::move(stops));
}

namespace {

bool recorded(const std::vector<TargetInfo>& used, const std::string& kind,
              const std::string& address) {
  for (const auto& t : used)
    if (t.kind == kind && t.address == address) return true;
  return false;
}

}  // namespace

PgTarget Targets::postgres(std::stop_token stop, PgUse use) {
  std::lock_guard lock(mu_);
  if (cfg_.pg_conninfo) {
    const std::string address = redact_conninfo(*cfg_.pg_conninfo);
    const bool first = !recorded(used_, "postgres", address);
    const bool check_schema = use == PgUse::OwnSchema && !pg_schema_checked_;
    if (first || check_schema) {
      // Checked once, on first use: fails fast (the connect timeout) with the target and the
      // reason, refuses a schema Perflab does not own, and tells the run which version it
      // measured.
      std::string version;
      try {
        PgConnection c(*cfg_.pg_conninfo, cfg_.pg_limits, stop);
        version = c.server_version_string();
        if (check_schema) pg_check_own_schema(c, cfg_.pg_schema);
      } catch (const PgError& e) {
        throw TargetError(TargetField::PgServer, e.what());
      }
      pg_schema_checked_ = pg_schema_checked_ || check_schema;
      if (first) used_.push_back({"postgres", address, false, version});
    }
    return {*cfg_.pg_conninfo, cfg_.pg_schema, false, cfg_.pg_limits};
  }
  if (!pg_) {
    pg_ = std::make_unique<ManagedPostgres>(cfg_.managed_pg, stop);
    used_.push_back({"postgres", redact_conninfo(pg_->conninfo()), true, pg_->version()});
  }
  return {pg_->conninfo(), cfg_.pg_schema, true, cfg_.pg_limits};
}

PgTarget Targets::pg_pooler(std::stop_token stop, int pool_size) {
  PgTarget server = postgres(stop);
  std::lock_guard lock(mu_);
  ManagedPgBouncerOptions opts = cfg_.managed_pgbouncer;
  if (pool_size > 0) opts.default_pool_size = pool_size;
  if (pgbouncer_ && pgbouncer_->options().default_pool_size != opts.default_pool_size) {
    // Another pool size: a PgBouncer of its own, so that no server connection of the old pool
    // is counted with the new one.
    const std::string old = redact_conninfo(pgbouncer_->conninfo());
    std::erase_if(used_,
                  [&](const TargetInfo& t) { return t.kind == "pgbouncer" && t.address == old; });
    pgbouncer_.reset();
  }
  if (!pgbouncer_) {
    try {
      pgbouncer_ = std::make_unique<ManagedPgBouncer>(server.conninfo, opts, stop);
    } catch (const StartStopped&) {
      throw;
    } catch (const ServerError& e) {
      throw TargetError(TargetField::PgServer, e.what());
    }
    used_.push_back(
        {"pgbouncer", redact_conninfo(pgbouncer_->conninfo()), true, pgbouncer_->version()});
  }
  server.conninfo = pgbouncer_->conninfo();
  return server;
}

std::vector<PgTarget> Targets::postgres_standbys(std::size_t count, std::stop_token stop) {
  const PgTarget primary = postgres(stop);  // checked (or started) first
  std::lock_guard lock(mu_);
  if (count == 0) count = 1;
  if (!cfg_.pg_standby_conninfos.empty() || cfg_.pg_conninfo) {
    if (!cfg_.pg_conninfo)
      throw TargetError(TargetField::PgStandby,
                        "external standbys need their primary: name it as the PostgreSQL server, "
                        "or leave the standbys unset to use managed ones");
    if (cfg_.pg_standby_conninfos.size() < count)
      throw TargetError(TargetField::PgStandby,
                        "this needs " + std::to_string(count) +
                            " standbys of the PostgreSQL server, but " +
                            std::to_string(cfg_.pg_standby_conninfos.size()) +
                            " were configured; Perflab never makes a standby of a server it "
                            "does not manage");
    std::vector<TargetInfo> checked;
    // A failure is the standby's (shown beside the standbys), but for the primary's connection.
    TargetField about = TargetField::PgStandby;
    try {
      std::optional<PgConnection> p;
      for (const auto& s : cfg_.pg_standby_conninfos) {
        const std::string address = redact_conninfo(s);
        if (recorded(used_, "postgres-standby", address)) continue;
        if (!p) {
          about = TargetField::PgServer;
          p.emplace(primary.conninfo, cfg_.pg_limits, stop);
          about = TargetField::PgStandby;
        }
        PgConnection c(s, cfg_.pg_limits, stop);
        if (std::string why = pg_standby_refusal(c, *p); !why.empty())
          throw TargetError(TargetField::PgStandby, why);
        checked.push_back({"postgres-standby", address, false, c.server_version_string()});
      }
    } catch (const PgError& e) {
      throw TargetError(about, e.what());
    }
    used_.insert(used_.end(), checked.begin(), checked.end());
    std::vector<PgTarget> out;
    for (const auto& s : cfg_.pg_standby_conninfos)
      out.push_back({s, cfg_.pg_schema, false, cfg_.pg_limits});
    return out;
  }
  while (standbys_.size() < count) {
    standbys_.push_back(std::make_unique<ManagedPostgresStandby>(*pg_, cfg_.managed_pg, stop));
    const ManagedPostgresStandby& s = *standbys_.back();
    used_.push_back({"postgres-standby", redact_conninfo(s.conninfo()), true, s.version()});
  }
  std::vector<PgTarget> out;
  for (std::size_t i = 0; i < count; ++i)
    out.push_back({standbys_[i]->conninfo(), cfg_.pg_schema, true, cfg_.pg_limits});
  return out;
}

RedisTarget Targets::redis(std::size_t count, std::stop_token stop) {
  std::lock_guard lock(mu_);
  if (count == 0) count = 1;
  if (!cfg_.redis_nodes.empty()) {
    if (cfg_.redis_nodes.size() < count)
      throw TargetError(TargetField::RedisServer,
                        "this needs " + std::to_string(count) + " Redis nodes, but only " +
                            std::to_string(cfg_.redis_nodes.size()) +
                            " were configured; add more host:port entries or leave Redis "
                            "unset to use managed servers");
    // Every node is checked before the prefix is claimed on any: a refusal at the last node
    // leaves the first ones as they were.
    std::vector<RedisClient> clients;
    std::vector<TargetInfo> checked;
    try {
      for (const auto& ep : cfg_.redis_nodes) {
        if (recorded(used_, "redis", ep.address()) || recorded(checked, "redis", ep.address()))
          continue;
        clients.emplace_back(ep, cfg_.redis_timeout, stop);
        checked.push_back({"redis", ep.address(), false, clients.back().server_version()});
      }
      std::vector<PrefixNode> nodes;
      for (auto& c : clients) nodes.push_back({&c, {}});
      redis_claim_prefix(nodes, cfg_.redis_prefix);
    } catch (const RedisError& e) {
      throw TargetError(TargetField::RedisServer, e.what());
    }
    used_.insert(used_.end(), checked.begin(), checked.end());
    return {cfg_.redis_nodes, cfg_.redis_prefix, false, cfg_.redis_timeout};
  }
  while (redis_.size() < count) {
    redis_.push_back(std::make_unique<ManagedRedis>(ManagedRedisOptions{}, stop));
    const ManagedRedis& r = *redis_.back();
    used_.push_back({"redis", r.endpoint().address(), true, r.version()});
  }
  RedisTarget t{{}, cfg_.redis_prefix, true, cfg_.redis_timeout};
  for (std::size_t i = 0; i < count; ++i) t.nodes.push_back(redis_[i]->endpoint());
  return t;
}

RedisClusterTarget Targets::redis_cluster(std::stop_token stop) {
  std::lock_guard lock(mu_);
  if (!cfg_.redis_cluster.empty()) {
    // Every master is checked before the prefix is claimed on any (as for nodes above).
    std::vector<RedisClient> clients;
    std::vector<PrefixNode> nodes;
    std::vector<TargetInfo> checked;
    try {
      ClusterClient cluster(cfg_.redis_cluster, cfg_.redis_timeout, stop);
      // Every master carries Perflab's mark, in a slot of its own.
      for (const auto& range : cluster.slot_map()) {
        RedisEndpoint master = range.master;
        if (recorded(used_, "redis-cluster", master.address()) ||
            recorded(checked, "redis-cluster", master.address()))
          continue;
        master.password = cfg_.redis_cluster.front().password;
        clients.emplace_back(master, cfg_.redis_timeout, stop);
        checked.push_back(
            {"redis-cluster", master.address(), false, clients.back().server_version()});
        nodes.push_back({nullptr, cluster_tag_for_slot(range.first)});
      }
      for (std::size_t i = 0; i < nodes.size(); ++i) nodes[i].client = &clients[i];
      redis_claim_prefix(nodes, cfg_.redis_prefix);
    } catch (const RedisError& e) {
      throw TargetError(TargetField::RedisServer, e.what());
    }
    used_.insert(used_.end(), checked.begin(), checked.end());
    return {cfg_.redis_cluster, cfg_.redis_prefix, false, cfg_.redis_timeout};
  }
  if (!cluster_) {
    cluster_ = std::make_unique<ManagedRedisCluster>(cfg_.managed_cluster, stop);
    for (std::size_t m = 0; m < cluster_->masters(); ++m)
      used_.push_back(
          {"redis-cluster", cluster_->master(m).endpoint().address(), true, cluster_->version()});
  }
  return {cluster_->seeds(), cfg_.redis_prefix, true, cfg_.redis_timeout};
}

void Targets::preflight(const TargetNeeds& needs, std::stop_token stop) {
  if (needs.postgres && cfg_.pg_conninfo)
    postgres(stop, needs.pg_read_only ? PgUse::ReadOnly : PgUse::OwnSchema);
  if (needs.pg_standbys > 0 && cfg_.pg_conninfo) postgres_standbys(needs.pg_standbys, stop);
  if (needs.redis_nodes > 0 && !cfg_.redis_nodes.empty()) redis(needs.redis_nodes, stop);
  if (needs.redis_cluster && !cfg_.redis_cluster.empty()) redis_cluster(stop);
}

void Targets::start_managed(const TargetNeeds& needs, std::stop_token stop) {
  if (needs.postgres && !cfg_.pg_conninfo) postgres(stop);
  if (needs.pg_standbys > 0 && !cfg_.pg_conninfo) postgres_standbys(needs.pg_standbys, stop);
  if (needs.redis_nodes > 0 && cfg_.redis_nodes.empty()) redis(needs.redis_nodes, stop);
  if (needs.redis_cluster && cfg_.redis_cluster.empty()) redis_cluster(stop);
  if (needs.pg_pooler) pg_pooler(stop, needs.pg_pool_size);
}

ManagedRedisCluster* Targets::managed_cluster() {
  std::lock_guard lock(mu_);
  return cluster_.get();
}

ManagedPgBouncer* Targets::managed_pgbouncer() {
  std::lock_guard lock(mu_);
  return pgbouncer_.get();
}

std::optional<Targets::PoolerState> Targets::managed_pgbouncer_state() {
  std::lock_guard lock(mu_);
  if (!pgbouncer_) return std::nullopt;
  return PoolerState{pgbouncer_->port(), pgbouncer_->options().default_pool_size,
                     pgbouncer_->version(), pgbouncer_->running()};
}

ManagedPostgres* Targets::managed_postgres() {
  std::lock_guard lock(mu_);
  return pg_.get();
}

std::vector<ManagedPostgresStandby*> Targets::managed_standbys() {
  std::lock_guard lock(mu_);
  std::vector<ManagedPostgresStandby*> out;
  for (auto& s : standbys_) out.push_back(s.get());
  return out;
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
