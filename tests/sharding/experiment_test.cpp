// The sharding experiment, with tiny parameters, against managed Redis servers.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <stop_token>

#include "finding_charts.h"
#include "finding_rules.h"
#include "run_probes.h"
#include "runner/experiment.h"
#include "servers.h"
#include "sharding/experiment.h"
#include "targets/cluster.h"
#include "targets/managed_redis.h"
#include "targets/ownership.h"

using namespace perflab;

namespace {

std::map<std::string, std::string> tiny() {
  return {{"depths", "1,2"},
          {"repeat", "2"},
          {"clients", "2"},
          {"requests", "200"},
          {"tests", "set,mset"},
          {"point_budget_s", "0.5"},
          {"distribution_keys", "2000"},
          {"variants", "direct,coalesced+nodelay,per-reply,twemproxy"}};
}

// tiny() with these depths, tests and variants.
std::map<std::string, std::string> tiny_sweep(const char* depths, const char* tests,
                                              const char* variants) {
  auto p = tiny();
  p["depths"] = depths;
  p["tests"] = tests;
  p["variants"] = variants;
  return p;
}

TEST(ShardingExperiment, ProducesTheSweepAndTheDistribution) {
  auto exp = make_sharding_experiment();
  ASSERT_EQ(exp->id(), "sharding");
  perflab::Run run = execute(*exp, test::shared_targets(), tiny(), {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  for (const char* g : {"sweep_set", "sweep_mset", "dist_nodes", "dist_moved"})
    EXPECT_NE(run.group(g), nullptr) << g;
  for (const char* s :
       {"direct redis", "coalesced+nodelay", "per-reply, no nodelay (lazy)", "twemproxy"}) {
    for (const char* g : {"sweep_set", "sweep_mset"}) {
      const Series* ser = run.find_series(g, s);
      ASSERT_NE(ser, nullptr) << g << " / " << s;
      ASSERT_EQ(ser->points.size(), 2u);
      EXPECT_EQ(ser->points[0].x, 1.0);
      EXPECT_EQ(ser->points[1].x, 2.0);
      for (const auto& p : ser->points) {
        EXPECT_EQ(p.samples.size(), 2u);  // repeat
        EXPECT_GT(p.stats.median, 0);
        EXPECT_TRUE(p.extra.count("p99_ms"));
        EXPECT_GT(p.extra.at("requests"), 0);
      }
    }
  }
  // 2000 keys over 4 nodes, for each scheme.
  for (const char* s : {"modula (crc32)", "ketama", "jump"}) {
    const Series* ser = run.find_series("dist_nodes", s);
    ASSERT_NE(ser, nullptr) << s;
    double sum = 0;
    for (const auto& p : ser->points) sum += p.stats.median;
    EXPECT_EQ(sum, 2000);
  }
  auto finding = [&](const std::string& id) { return test::find_finding(run, id); };
  ASSERT_NE(finding("collapse_p2.set"), nullptr);
  ASSERT_TRUE(finding("collapse_p2.set")->claim.has_value());
  // The article's claim is a collapse of about two orders of magnitude, not its exact figure.
  EXPECT_EQ(finding("collapse_p2.set")->claim->kind, Claim::Kind::Below);
  EXPECT_NE(finding("vs_twemproxy_p1.set"), nullptr);
  // Every comparison and share of a chart's series names that chart (the presentation view shows
  // it beside it).
  for (const auto& v : test::finding_chart_violations(run)) ADD_FAILURE() << v;
  // Every ratio of the sweep carries its interval (variants took turns: paired) and a verdict;
  // the moved shares are exact counts; no finding says what its numbers refute.
  for (const auto& f : run.findings) {
    SCOPED_TRACE(f.id);
    for (const auto& v : test::finding_rule_violations(f)) ADD_FAILURE() << v;
    if (f.id.rfind("moved.", 0) == 0) {
      EXPECT_FALSE(f.ci.has_value());
      continue;
    }
    ASSERT_TRUE(f.ci.has_value());
    EXPECT_EQ(f.ci->method, CiMethod::PairedBootstrap);
    EXPECT_TRUE(f.ci->lo <= f.value && f.value <= f.ci->hi);
    ASSERT_TRUE(f.verdict().has_value());
    EXPECT_EQ(f.comparison.better, Better::Higher);  // req/s
  }
  ASSERT_NE(finding("moved.modula"), nullptr);
  EXPECT_GT(finding("moved.modula")->value, finding("moved.jump")->value);
}

TEST(ShardingExperiment, MeasuresToAPrecisionWithinItsBudget) {
  auto exp = make_sharding_experiment();
  auto p = tiny();
  p["tests"] = "set";
  p["depths"] = "2";
  p["variants"] = "coalesced+nodelay,per-reply";
  p["distribution_keys"] = "100";
  p["point_budget_s"] = "0.2";
  p["precision"] = "0.01";  // not reachable in 3 s: the budget ends the point
  p["precision_budget_s"] = "3";
  const auto t0 = std::chrono::steady_clock::now();
  perflab::Run run = execute(*exp, test::shared_targets(), p, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));
  const Series* s = run.find_series("sweep_set", "coalesced+nodelay");
  ASSERT_NE(s, nullptr);
  const Point& pt = s->points.at(0);
  ASSERT_TRUE(pt.precision.has_value());
  EXPECT_FALSE(pt.precision->reached);
  EXPECT_GE(pt.precision->rounds, 2);  // at least `repeat`
  EXPECT_EQ(pt.samples.size(), static_cast<std::size_t>(pt.precision->rounds));
  const Finding* collapse = test::find_finding(run, "collapse_p2.set");
  ASSERT_NE(collapse, nullptr);
  EXPECT_TRUE(collapse->ci.has_value());
}

TEST(ShardingExperiment, CleansUpOnlyTheKeysItWrote) {
  // An external node (the shared managed one, configured as a user's) and a prefix with a glob
  // character: cleanup must not read it as a pattern that matches the user's keys.
  RedisTarget shared = test::shared_targets().redis(1);
  TargetsConfig cfg;
  cfg.redis_nodes = shared.nodes;
  const std::string tag = test::unique_name("u");
  cfg.redis_prefix = "t*" + tag + ":";
  RedisClient r = shared.connect(0);
  const std::string users_key = "tX" + tag + ":bench:session";  // matches t*<tag>:bench:*
  r.command({"SET", users_key, "a user's"});
  Targets targets(cfg);
  auto p = tiny();
  p["nodes"] = "1";
  p["variants"] = "direct";
  p["keyspace"] = "50";
  perflab::Run run = execute(*make_sharding_experiment(), targets, p, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  EXPECT_EQ(r.command({"GET", users_key}).str, "a user's");
  RedisReply left = r.command({"KEYS", "t\\*" + tag + ":bench:*"});
  EXPECT_TRUE(left.elements.empty()) << left.elements.size() << " benchmark keys left";
  EXPECT_EQ(r.command({"EXISTS", cfg.redis_prefix + std::string(kPrefixMarkKey)}).integer, 1);
  r.command({"DEL", users_key, cfg.redis_prefix + std::string(kPrefixMarkKey)});
}

// Stop as soon as the first proxy benchmark begins (a progress hook, not a guessed delay): the
// run ends promptly, is marked cancelled and keeps the key distribution measured before it.
TEST(ShardingExperiment, StopsWhenAsked) {
  auto exp = make_sharding_experiment();
  auto p = tiny();
  p["requests"] = "100000000";
  p["point_budget_s"] = "600";
  std::stop_source stop;
  std::chrono::steady_clock::time_point stopped_at;
  const RunHooks hooks = test::at_first_step(", -P ", [&] {
    stopped_at = std::chrono::steady_clock::now();
    stop.request_stop();
  });
  perflab::Run run = execute(*exp, test::shared_targets(), p, hooks, stop.get_token());
  ASSERT_TRUE(stop.stop_requested()) << "no benchmark step was reported";
  const auto after_stop = std::chrono::steady_clock::now() - stopped_at;
  EXPECT_EQ(run.status, RunStatus::Cancelled);
  EXPECT_NE(run.group("dist_nodes"), nullptr);  // what was measured is kept
  // Proves the stop is honoured rather than the 10^8 requests being sent (hours), with a bound
  // no loaded machine with ASan comes near.
  EXPECT_LT(after_stop, std::chrono::seconds(60));
}

}  // namespace

// The cluster lines: a managed Redis Cluster measured with the load generator's --cluster and
// with redis-benchmark --cluster, beside one Redis direct; the hash-slot rows of the key
// distribution.
TEST(ShardingExperiment, DrawsRedisClusterBesideDirectRedis) {
  const auto p =
      tiny_sweep("1,16", "set,mget", "direct,cluster,redis-benchmark-cluster,proxy-cluster");
  Targets targets;
  perflab::Run run = execute(*make_sharding_experiment(), targets, p, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  for (const char* g : {"sweep_set", "sweep_mget"})
    for (const char* s : {"Redis Cluster (cluster client)", "perflab-proxy over Redis Cluster"}) {
      const Series* ser = run.find_series(g, s);
      ASSERT_NE(ser, nullptr) << g << " / " << s;
      ASSERT_EQ(ser->points.size(), 2u);
      for (const auto& pt : ser->points) EXPECT_GT(pt.stats.median, 0);
    }
  // redis-benchmark ends on a 250 ms tick: its runs are given the requests to last 2.5 s, not the
  // plan's 200 (which it would report as 200 / 0.25 s).
  const Series* peer = run.find_series("sweep_set", "redis-benchmark --cluster");
  ASSERT_NE(peer, nullptr);
  ASSERT_EQ(peer->points.size(), 2u);
  for (const auto& pt : peer->points) {
    EXPECT_GE(pt.extra.at("seconds"), 2.5) << pt.label;
    EXPECT_GT(pt.extra.at("requests"), 200) << pt.label;
    EXPECT_GT(pt.stats.median, 200 / 0.25 * 2) << pt.label;  // not the tick's reading
  }
  EXPECT_EQ(run.find_series("sweep_mget", "redis-benchmark --cluster"), nullptr);  // it has none
  auto finding = [&](const std::string& id) { return test::find_finding(run, id); };
  for (const char* id :
       {"cluster_vs_direct_p1.set", "cluster_vs_direct_p16.set", "cluster_vs_direct_p16.mget",
        "cluster_vs_redis_benchmark_p1.set", "cluster_vs_redis_benchmark_p16.set",
        "proxy_cluster_vs_cluster_p1.set", "proxy_cluster_vs_cluster_p16.mget"}) {
    const Finding* f = finding(id);
    ASSERT_NE(f, nullptr) << id;
    ASSERT_TRUE(f->ci.has_value()) << id;
    EXPECT_TRUE(f->verdict().has_value()) << id << ": " << finding_sentence(*f);
    EXPECT_TRUE(f->not_judged_because.empty()) << finding_sentence(*f);
  }
  EXPECT_EQ(finding("cluster_vs_redis_benchmark_p1.mget"), nullptr);
  const Series* slots = run.find_series("dist_nodes", "hash slots (CRC16)");
  ASSERT_NE(slots, nullptr);
  double sum = 0;
  for (const auto& pt : slots->points) sum += pt.stats.median;
  EXPECT_EQ(sum, 2000);
  ASSERT_NE(finding("moved.hash"), nullptr);
  EXPECT_GT(finding("moved.hash")->value, 15);  // the new master's fifth, not 4/5
  EXPECT_LT(finding("moved.hash")->value, 25);
  // The run's --cluster keys are gone; the cluster is Perflab's (a managed one, recorded).
  ASSERT_NE(targets.managed_cluster(), nullptr);
  RedisClient m(targets.managed_cluster()->master(0).endpoint());
  EXPECT_TRUE(m.command({"KEYS", "perflab:bench:key:*"}).elements.empty());
  EXPECT_TRUE(std::any_of(run.targets.begin(), run.targets.end(), [](const TargetInfo& t) {
    return t.kind == "redis-cluster" && t.managed;
  }));
}

// A master that goes away in the middle of the run: one line naming it, and what was measured
// before is kept.
TEST(ShardingExperiment, AClusterNodeRefusingConnectionFailsClearlyAndKeepsThePoints) {
  const auto p = tiny_sweep("1,2", "set", "direct,cluster");
  Targets targets;
  std::string dead;
  const RunHooks hooks = test::at_first_step("-P 2, Redis Cluster", [&] {
    ManagedRedis& m = targets.managed_cluster()->master(1);
    dead = m.endpoint().address();
    m.kill_now();
  });
  perflab::Run run = execute(*make_sharding_experiment(), targets, p, hooks, {});
  ASSERT_FALSE(dead.empty());
  EXPECT_EQ(run.status, RunStatus::Failed);
  EXPECT_NE(run.message.find(dead), std::string::npos) << run.message;
  EXPECT_NE(run.message.find("refused"), std::string::npos) << run.message;
  EXPECT_EQ(run.message.find('\n'), std::string::npos) << run.message;
  const Series* ser = run.find_series("sweep_set", "Redis Cluster (cluster client)");
  ASSERT_NE(ser, nullptr);
  EXPECT_EQ(ser->points.size(), 1u);  // -P 1, measured before
  EXPECT_NE(run.group("dist_nodes"), nullptr);
}

// The live demonstrations on a small run: points on a time axis, redirections seen during the
// resharding, the seconds until the killed master's slots take writes again, and "nothing lost".
TEST(ShardingExperiment, ReshardingAndFailoverDemonstrations) {
  auto p = tiny();
  p["sweep"] = "false";
  p["demonstration"] = "both";
  // A master is killed a quarter into the run: 12 s are left for its replica to be promoted
  // (cluster-node-timeout 1 s; a few seconds here), room for a loaded machine with ASan.
  p["demo_s"] = "16";
  p["reshard_slots"] = "40";
  Targets targets;
  perflab::Run run = execute(*make_sharding_experiment(), targets, p, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  EXPECT_EQ(run.group("sweep_set"), nullptr);
  auto finding = [&](const std::string& id) { return test::find_finding(run, id); };
  for (const char* g : {"reshard_rate", "reshard_redirects", "failover_rate"}) {
    const Group* group = run.group(g);
    ASSERT_NE(group, nullptr) << g;
    EXPECT_TRUE(group->numeric_x);
    EXPECT_EQ(group->x_label, "seconds");
  }
  const Series* rate = run.find_series("reshard_rate", "requests/s");
  ASSERT_NE(rate, nullptr);
  EXPECT_GE(rate->points.size(), 6u);
  ASSERT_NE(run.find_series("reshard_redirects", "MOVED/s"), nullptr);
  ASSERT_NE(finding("reshard.slots_moved"), nullptr);
  EXPECT_EQ(finding("reshard.slots_moved")->value, 40);
  EXPECT_GT(finding("reshard.moved")->value + finding("reshard.ask")->value, 0);
  ASSERT_NE(finding("reshard.keys_verified"), nullptr);
  EXPECT_GT(finding("reshard.keys_verified")->value, 100);
  EXPECT_EQ(finding("reshard.keys_lost")->value, 0);
  EXPECT_NE(finding("reshard.keys_verified")->text.find("nothing lost"), std::string::npos);

  ASSERT_NE(run.find_series("failover_rate", "errors/s"), nullptr);
  ASSERT_NE(finding("failover.errors"), nullptr);
  EXPECT_GT(finding("failover.errors")->value, 0);
  ASSERT_NE(finding("failover.recovery_s"), nullptr) << "no recovery within the run";
  EXPECT_GT(finding("failover.recovery_s")->value, 0);
  std::printf("failover recovered %.2f s after the kill\n", finding("failover.recovery_s")->value);
  EXPECT_EQ(finding("failover.keys_lost")->value, 0);
  EXPECT_GT(finding("failover.keys_verified")->value, 100);
  EXPECT_NE(finding("failover.keys_verified")->text.find("nothing lost"), std::string::npos);
  // The demonstration's keys are gone from the managed cluster it resharded.
  ClusterClient c(targets.managed_cluster()->seeds());
  for (const auto& m : c.masters()) {
    RedisClient node(m);
    EXPECT_TRUE(node.command({"KEYS", "perflab:demo:*"}).elements.empty()) << m.address();
  }
}

// Stop during a demonstration: the run ends promptly, cancelled, with the seconds measured.
TEST(ShardingExperiment, StopDuringADemonstrationKeepsItsSeconds) {
  auto p = tiny();
  p["sweep"] = "false";
  p["demonstration"] = "resharding";
  p["demo_s"] = "120";
  Targets targets;
  std::stop_source stop;
  test::StopLater later(
      stop, [&] { return targets.managed_cluster() != nullptr; }, std::chrono::seconds(4));
  perflab::Run run = execute(*make_sharding_experiment(), targets, p, {}, stop.get_token());
  ASSERT_TRUE(later.requested());
  EXPECT_EQ(run.status, RunStatus::Cancelled);
  EXPECT_LT(later.seconds_since_stop(), 60);  // proves the 120 s are not waited for
  const Series* rate = run.find_series("reshard_rate", "requests/s");
  ASSERT_NE(rate, nullptr);
  EXPECT_GE(rate->points.size(), 1u);
}
