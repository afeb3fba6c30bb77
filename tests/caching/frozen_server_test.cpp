// A redis-server that stops answering in the middle of a run (SIGSTOP: what a network partition
// looks like to a client) ends the run within the Redis timeout (5 s) with a failed status and
// its points; Stop during the freeze returns within a second with the run cancelled.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "caching/experiment.h"
#include "runner/experiment.h"
#include "servers.h"
#include "targets/managed.h"

using namespace perflab;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// A server of the test's own, configured as an external one (so its prefix is claimed too).
class FrozenRedis : public ::testing::Test {
 protected:
  void SetUp() override { redis_ = std::make_unique<ManagedRedis>(); }
  void TearDown() override { freeze_.reset(); }

  TargetsConfig config() const {
    TargetsConfig cfg;
    cfg.redis_nodes = {redis_->endpoint()};
    cfg.redis_prefix = test::unique_name("frozen") + ":";
    return cfg;  // the default Redis timeout: 5 s
  }

  // Redis only; the document workload is measured, the server freezes before the list's.
  const std::map<std::string, std::string> params_ = {
      {"tiers", "redis"},   {"encodings", "native"},       {"repetitions", "50"},
      {"warmup", "1"},      {"server_cpu_window_ms", "0"}, {"list_size", "50"},
      {"document_kb", "4"}, {"aside_reads", "0"}};

  RunHooks freeze_before_the_list() {
    RunHooks hooks;
    hooks.progress = [this](double, std::string_view step) {
      if (!freeze_ && step.starts_with("measuring list")) {
        freeze_ = std::make_unique<test::Freeze>(redis_->pid());
        frozen_at_ = Clock::now();
        frozen_ = true;
      }
    };
    return hooks;
  }

  std::unique_ptr<ManagedRedis> redis_;
  std::unique_ptr<test::Freeze> freeze_;
  Clock::time_point frozen_at_;
  std::atomic<bool> frozen_{false};  // read by the thread that presses Stop
};

}  // namespace

TEST_F(FrozenRedis, RunEndsFailedWithinTheTimeoutAndKeepsItsPoints) {
  auto exp = make_caching_experiment();
  Targets targets(config());
  perflab::Run run = execute(*exp, targets, params_, freeze_before_the_list(), {});
  ASSERT_TRUE(freeze_) << run.message;
  const double took = std::chrono::duration<double>(Clock::now() - frozen_at_).count();
  std::printf("run ended %.2f s after the freeze (bound 5 s)\n", took);
  EXPECT_EQ(run.status, RunStatus::Failed);
  EXPECT_NE(run.message.find("no reply within 5000 ms (timeout)"), std::string::npos)
      << run.message;
  EXPECT_LT(took, 5.0 + 3.0);  // does not hang; slack for a loaded machine
  EXPECT_NE(run.find_point("document_wall", "native", "redis"), nullptr);
  EXPECT_EQ(run.find_point("list_wall", "native", "redis"), nullptr);
}

TEST_F(FrozenRedis, StopDuringTheFreezeReturnsWithinASecond) {
  auto exp = make_caching_experiment();
  Targets targets(config());
  std::stop_source stop;
  test::StopLater stopper(
      stop, [this] { return freeze_ != nullptr; }, 500ms);  // into the freeze
  perflab::Run run = execute(*exp, targets, params_, freeze_before_the_list(), stop.get_token());
  const double took = stopper.seconds_since_stop();
  ASSERT_TRUE(freeze_) << run.message;
  ASSERT_TRUE(stopper.requested());
  std::printf("run ended %.3f s after Stop during the freeze\n", took);
  EXPECT_LT(took, 1.5);  // within a second, with slack for a loaded machine
  EXPECT_EQ(run.status, RunStatus::Cancelled);
  EXPECT_NE(run.find_point("document_wall", "native", "redis"), nullptr);
}
