// The load generator through perflab-proxy over four managed Redis servers: every test's
// requests answered without error, and the keys stored where the proxy's routing puts them.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "proxy/proxy.h"
#include "proxy/routing.h"
#include "servers.h"
#include "sharding/loadgen.h"
#include "targets/redis.h"

using namespace perflab;
using namespace perflab::sharding;

TEST(LoadGenerator, ThroughTheProxy) {
  const std::vector<RedisEndpoint> shards = test::shared_targets().redis(4).nodes;
  proxy::ProxyOptions po;
  po.port = 0;
  po.nodes = shards;
  po.write = proxy::WriteStrategy::PerReply;
  po.log_level = proxy::LogLevel::Error;
  auto front = std::make_unique<proxy::Proxy>(po);
  front->start();
  BenchOptions o;
  o.port = front->port();
  o.clients = 4;
  o.requests = 2000;
  o.pipeline = 8;
  o.keyspace = 1000;
  o.key_prefix = "lg:";
  for (BenchTest t : {BenchTest::Set, BenchTest::Get, BenchTest::Mset, BenchTest::Mget}) {
    BenchResult r = run_bench(o, t);
    EXPECT_EQ(r.requests, 2000) << to_string(t);
    EXPECT_EQ(r.errors, 0) << r.first_error;
    EXPECT_GT(r.rps, 0);
    EXPECT_LE(r.p50_ms, r.p99_ms);
    EXPECT_LE(r.p99_ms, r.max_ms);
  }
  // The keys went where the routing says, and only there.
  int found = 0;
  for (int i = 0; i < 20; ++i) {
    char k[32];
    std::snprintf(k, sizeof k, "lg:%012d", i);
    for (std::size_t n = 0; n < 4; ++n) {
      RedisClient c(shards[n]);
      std::int64_t e = c.command({"EXISTS", k}).integer;
      if (n != proxy::node_for_key(k, 4)) {
        EXPECT_EQ(e, 0) << k << " on node " << n;
      }
      found += static_cast<int>(e);
    }
  }
  EXPECT_GT(found, 10);
}
