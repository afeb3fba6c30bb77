// A redis-server that stops answering in the middle of a run (SIGSTOP: what a network partition
// looks like to a client) ends the run within the Redis timeout (5 s) with a failed status and
// its points; Stop during the freeze returns within a second with the run cancelled.
#include <gtest/gtest.h>

#include <memory>

#include "caching/experiment.h"
#include "frozen_run.h"
#include "servers.h"
#include "targets/managed_redis.h"

using namespace perflab;

namespace {

// A server of the test's own, configured as an external one (so its prefix is claimed too).
class FrozenRedis : public ::testing::Test {
 protected:
  void SetUp() override {
    redis_ = std::make_unique<ManagedRedis>();
    TargetsConfig cfg;
    cfg.redis_nodes = {redis_->endpoint()};
    cfg.redis_prefix = test::unique_name("frozen") + ":";
    targets_ = std::make_unique<Targets>(cfg);  // the default Redis timeout: 5 s
  }

  // Redis only; the document and the list take turns round by round, the server freezes after
  // the second round.
  test::FrozenRun frozen_before_the_list() {
    return {.experiment = *experiment_,
            .targets = *targets_,
            .params = {{"tiers", "redis"},
                       {"encodings", "native"},
                       {"repetitions", "50"},
                       {"warmup", "1"},
                       {"server_cpu_window_ms", "0"},
                       {"list_size", "50"},
                       {"document_kb", "4"},
                       {"aside_reads", "0"}},
            .server = redis_->pid(),
            .step = "repetition 2/50"};
  }

  std::unique_ptr<Experiment> experiment_ = make_caching_experiment();
  std::unique_ptr<ManagedRedis> redis_;
  std::unique_ptr<Targets> targets_;
};

}  // namespace

TEST_F(FrozenRedis, RunEndsFailedWithinTheTimeoutAndKeepsItsPoints) {
  const perflab::Run run = test::expect_fails_within(frozen_before_the_list(), 5.0, 15.0,
                                                     "no reply within 5000 ms (timeout)");
  // The rounds measured before the freeze are kept, for both workloads.
  for (const char* g : {"document_wall", "list_wall"}) {
    const Point* p = run.find_point(g, "native", "redis");
    ASSERT_NE(p, nullptr) << g;
    EXPECT_GE(p->samples.size(), 2u) << g;
    EXPECT_LT(p->samples.size(), 50u) << g;
  }
}

TEST_F(FrozenRedis, StopDuringTheFreezeReturnsWithinASecond) {
  const perflab::Run run = test::expect_stops_within_a_second(frozen_before_the_list());
  EXPECT_NE(run.find_point("document_wall", "native", "redis"), nullptr);
}
