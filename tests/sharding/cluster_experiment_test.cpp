// The sharding experiment's Redis Cluster lines against a managed Redis Cluster: the cluster
// client and redis-benchmark --cluster beside one Redis direct, and a master that goes away.
#include <gtest/gtest.h>

#include <algorithm>

#include "run_probes.h"
#include "runner/experiment.h"
#include "sharding/experiment.h"
#include "targets/managed_redis.h"
#include "targets/redis.h"
#include "tiny_plan.h"

using namespace perflab;
using perflab::test::tiny_sweep;

namespace {

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

}  // namespace
