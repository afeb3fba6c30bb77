// A redis-server that stops answering (SIGSTOP: what a network partition looks like to a client)
// under the load generator and the sharding experiment: the wait ends within the reply timeout,
// and the run fails with what it measured.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "frozen_run.h"
#include "runner/experiment.h"
#include "servers.h"
#include "sharding/experiment.h"
#include "sharding/loadgen.h"
#include "targets/managed_redis.h"

using namespace perflab;
using namespace perflab::sharding;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST(FrozenRedisUnderLoad, LoadGeneratorGivesUpWithinTheReplyTimeout) {
  ManagedRedis redis;  // of the test's own
  BenchOptions o;
  o.port = redis.port();
  o.clients = 2;
  o.requests = 1000000;
  o.pipeline = 4;
  o.keyspace = 100;
  o.key_prefix = test::unique_name("frozen") + ":";
  o.reply_timeout = 1s;
  test::Freeze freeze(redis.pid());
  const auto t0 = Clock::now();
  try {
    run_bench(o, BenchTest::Set);
    ADD_FAILURE() << "a frozen server answered";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("within 1000 ms (timeout)"), std::string::npos)
        << e.what();
  }
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("load generator gave up %.2f s after the freeze (bound 1 s)\n", took);
  EXPECT_LT(took, 1.0 + 15.0);  // gives up (the figure is printed), far from 10^6 requests
}

TEST(FrozenRedisUnderLoad, ExperimentFailsWithinTheTimeoutAndKeepsItsPoints) {
  ManagedRedis redis;
  TargetsConfig cfg;
  cfg.redis_nodes = {redis.endpoint()};
  cfg.redis_prefix = test::unique_name("frozen") + ":";
  cfg.redis_timeout = 2s;
  Targets targets(cfg);
  auto exp = make_sharding_experiment();
  const test::FrozenRun frozen{.experiment = *exp,
                               .targets = targets,
                               .params = {{"nodes", "1"},
                                          {"depths", "1,2"},
                                          {"repetitions", "1"},
                                          {"clients", "2"},
                                          {"requests", "200"},
                                          {"tests", "set"},
                                          {"distribution_keys", "100"},
                                          {"variants", "direct,coalesced+nodelay"}},
                               .server = redis.pid(),
                               .step = "-P 2",
                               .what = "sharding run"};
  // The bound, the cleanup's short one, and slack.
  const perflab::Run run = test::expect_fails_within(frozen, 2.0, 15.0, "(timeout)");
  const Series* s = run.find_series("sweep_set", "direct redis");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->points.size(), 1u);  // -P 1 was measured before the freeze
}
