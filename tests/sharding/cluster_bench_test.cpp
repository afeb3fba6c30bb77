// The load generator's --cluster mode and redis-benchmark --cluster, against a managed Redis
// Cluster started by the project's own code.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "common/key_slot.h"
#include "sharding/loadgen.h"
#include "sharding/redis_benchmark.h"
#include "targets/cluster.h"
#include "targets/managed_redis_cluster.h"

using namespace perflab;
using namespace perflab::sharding;

namespace {

ManagedRedisCluster& cluster() {
  static ManagedRedisCluster c;
  return c;
}

BenchOptions cluster_options(const std::string& prefix) {
  BenchOptions o;
  o.host = "127.0.0.1";
  o.port = cluster().seeds()[1].port;  // any node is a seed
  o.cluster = true;
  o.clients = 6;
  o.requests = 3000;
  o.pipeline = 4;
  o.keyspace = 1000;
  o.key_prefix = prefix;
  o.seed = 7;
  return o;
}

}  // namespace

TEST(ClusterBench, EveryTestGoesStraightToTheOwnersOfItsKeys) {
  const std::string prefix = "perflab:test:cbench:";
  const BenchOptions o = cluster_options(prefix);
  for (BenchTest t : {BenchTest::Set, BenchTest::Get, BenchTest::Mset, BenchTest::Mget}) {
    const BenchResult r = run_bench(o, t);
    EXPECT_EQ(r.requests, o.requests) << bench_title(t);
    EXPECT_EQ(r.errors, 0) << bench_title(t) << ": " << r.first_error;
    EXPECT_EQ(r.moved + r.ask, 0);
    EXPECT_GT(r.rps, 0);
    EXPECT_GT(r.p50_ms, 0);
  }
  // Every master holds keys, each under the tag of one of its own slots.
  ClusterClient c(cluster().seeds());
  const auto masters = c.masters();
  ASSERT_EQ(masters.size(), 3u);
  for (const auto& m : masters) {
    RedisClient node(m);
    const RedisReply keys = node.command({"KEYS", prefix + "*"});
    ASSERT_FALSE(keys.elements.empty()) << m.address();
    std::set<int> slots;  // the keys spread over the master's slots, a random one per batch
    for (const auto& k : keys.elements) {
      EXPECT_EQ(c.owner(cluster_key_slot(k.str))->address(), m.address()) << k.str;
      slots.insert(cluster_key_slot(k.str));
    }
    EXPECT_GE(slots.size(), 20u) << m.address();
    for (const auto& k : keys.elements) EXPECT_EQ(node.command({"DEL", k.str}).integer, 1);
  }
}

TEST(ClusterBench, ANodeRefusingConnectionIsAClearError) {
  ManagedRedisCluster own;
  BenchOptions o = cluster_options("perflab:test:cbench-down:");
  o.port = own.seeds()[0].port;
  const std::string dead = own.master(2).endpoint().address();
  own.master(2).kill_now();
  try {
    run_bench(o, BenchTest::Set);
    FAIL() << "a cluster with a dead master measured";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(dead), std::string::npos) << m;
    EXPECT_NE(m.find("refused"), std::string::npos) << m;
  }
}

TEST(ClusterBench, RedisBenchmarkClusterIsReadBack) {
  BenchOptions o = cluster_options("key:");
  o.requests = 2000;
  const BenchResult r = run_redis_benchmark(o, BenchTest::Set);
  EXPECT_GT(r.rps, 0);
  EXPECT_GT(r.p50_ms, 0);
  EXPECT_EQ(r.requests, 2000);
  EXPECT_FALSE(r.cancelled);
  // Its keys are its own (key:{tag}:NNN), spread over the masters.
  ClusterClient c(cluster().seeds());
  for (const auto& m : c.masters()) {
    RedisClient node(m);
    EXPECT_FALSE(node.command({"KEYS", "key:{*"}).elements.empty()) << m.address();
  }
  o.password = "x";
  EXPECT_THROW(run_redis_benchmark(o, BenchTest::Set), std::invalid_argument);
  EXPECT_THROW(run_redis_benchmark(cluster_options("key:"), BenchTest::Mget),
               std::invalid_argument);
}

TEST(ClusterBench, RedisBenchmarkCsvRow) {
  const auto r = parse_redis_benchmark_csv_row(
      "\"MSET (10 keys)\",\"52631.58\",\"0.871\",\"0.216\",\"0.807\",\"1.415\",\"1.959\",\"3.415\"",
      BenchTest::Mset);
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->rps, 52631.58);
  EXPECT_DOUBLE_EQ(r->p99_ms, 1.959);
  EXPECT_FALSE(parse_redis_benchmark_csv_row("\"SET\",\"1\"", BenchTest::Set));
  EXPECT_FALSE(parse_redis_benchmark_csv_row("Cluster has 3 master nodes:", BenchTest::Set));
}
