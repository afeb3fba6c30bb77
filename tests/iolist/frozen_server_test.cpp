// A PostgreSQL that stops answering in the middle of a run (SIGSTOP of the server and its
// backends: what a network partition looks like to a client) must not hang the run: it ends
// within the bound with a failed status and its points, and Stop during the freeze returns
// within a second with the run cancelled and its points.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "iolist/experiment.h"
#include "runner/experiment.h"
#include "servers.h"
#include "targets/managed.h"

using namespace perflab;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// A server of the test's own: the shared one is never frozen under other tests.
class FrozenPostgres : public ::testing::Test {
 protected:
  void SetUp() override { pg_ = std::make_unique<ManagedPostgres>(ManagedPostgresOptions{}); }

  TargetsConfig config() const {
    TargetsConfig cfg;
    cfg.pg_conninfo = pg_->conninfo();
    cfg.pg_limits.statement_timeout = 1s;  // the client gives up 1 s + kPgReplySlack later
    return cfg;
  }

  // Appends until stopped (both transports, direct); the server freezes at the third repetition.
  std::map<std::string, std::string> params_ = {
      {"benchmarks", "append"}, {"builders", "interpolate,iolist"},
      {"writers", "2"},         {"repetitions", "1000"},
      {"warmup", "0"},          {"events", "10"},
      {"network_rtt_ms", "0"}};

  std::unique_ptr<ManagedPostgres> pg_;
  std::unique_ptr<test::Freeze> freeze_;  // thawed in TearDown at the latest
  Clock::time_point frozen_at_;
  std::atomic<bool> frozen_{false};  // read by the thread that presses Stop

  // Freezes the server when a progress step contains `when`.
  RunHooks freeze_at_third_repetition(std::string when = "repetition 3/") {
    RunHooks hooks;
    hooks.progress = [this, when](double, std::string_view step) {
      if (!freeze_ && step.find(when) != std::string_view::npos) {
        freeze_ = std::make_unique<test::Freeze>(pg_->pid());
        frozen_at_ = Clock::now();
        frozen_ = true;
      }
    };
    return hooks;
  }

  // The run failed within the bound after the freeze, saying why.
  void expect_failed_within_the_bound(const perflab::Run& run, const char* what) {
    const double took = seconds_since(frozen_at_);
    ASSERT_TRUE(freeze_) << run.message;
    const double bound = std::chrono::duration<double>(config().pg_limits.reply_timeout()).count();
    std::printf("%s ended %.2f s after the freeze (bound %.0f s)\n", what, took, bound);
    EXPECT_EQ(run.status, RunStatus::Failed);
    EXPECT_NE(run.message.find("no answer within 6 s (timeout"), std::string::npos) << run.message;
    EXPECT_LT(took, bound + 4.0);  // does not hang; slack for a loaded machine
  }

  void TearDown() override { freeze_.reset(); }
};

}  // namespace

TEST_F(FrozenPostgres, RunEndsFailedWithinTheBoundAndKeepsItsPoints) {
  auto exp = make_iolist_experiment();
  Targets targets(config());
  perflab::Run run = execute(*exp, targets, params_, freeze_at_third_repetition(), {});
  expect_failed_within_the_bound(run, "run");
  const Point* p = run.find_point("append", "iolist", "2 concurrent writers");
  ASSERT_NE(p, nullptr);
  EXPECT_GE(p->samples.size(), 2u);
}

TEST_F(FrozenPostgres, StopDuringTheFreezeReturnsWithinASecond) {
  auto exp = make_iolist_experiment();
  Targets targets(config());
  std::stop_source stop;
  test::StopLater stopper(
      stop, [this] { return freeze_ != nullptr; }, 500ms);  // into the freeze
  perflab::Run run =
      execute(*exp, targets, params_, freeze_at_third_repetition(), stop.get_token());
  const double took = stopper.seconds_since_stop();
  ASSERT_TRUE(freeze_) << run.message;
  ASSERT_TRUE(stopper.requested());
  std::printf("run ended %.3f s after Stop during the freeze\n", took);
  EXPECT_LT(took, 1.5);  // within a second, with slack for a loaded machine
  EXPECT_EQ(run.status, RunStatus::Cancelled);
  const Point* p = run.find_point("append", "iolist", "2 concurrent writers");
  ASSERT_NE(p, nullptr);
  EXPECT_GE(p->samples.size(), 2u);
}

// Through the delaying relay, pipelined: the freeze still ends the run within the bound, and the
// relay goes with it.
TEST_F(FrozenPostgres, ThroughTheRelayThePipelinedRunEndsWithinTheBound) {
  params_["network_rtt_ms"] = "1";
  params_["transports"] = "pipeline";
  auto exp = make_iolist_experiment();
  Targets targets(config());
  perflab::Run run =
      execute(*exp, targets, params_, freeze_at_third_repetition("RTT 1 ms: repetition 3/"), {});
  expect_failed_within_the_bound(run, "relayed, pipelined run");
}

// The libpqxx path waits inside libpq's blocking calls: its watchdog still ends the run within
// the bound when the server freezes, and Stop during the freeze within a second.
TEST_F(FrozenPostgres, TheLibpqxxPathEndsWithinTheBound) {
  params_["benchmarks"] = "client";
  params_["builders"] = "iolist";
  auto exp = make_iolist_experiment();
  Targets targets(config());
  perflab::Run run = execute(*exp, targets, params_,
                             freeze_at_third_repetition("client libraries: repetition 3/"), {});
  expect_failed_within_the_bound(run, "libpqxx run");
  EXPECT_NE(run.find_point("client_time", "libpqxx", "iolist"), nullptr);
}

TEST_F(FrozenPostgres, StopDuringAFreezeEndsTheLibpqxxPathWithinASecond) {
  params_["benchmarks"] = "client";
  params_["builders"] = "iolist";
  auto exp = make_iolist_experiment();
  Targets targets(config());
  std::stop_source stop;
  test::StopLater stopper(
      stop, [this] { return frozen_.load(); }, 500ms);
  perflab::Run run =
      execute(*exp, targets, params_, freeze_at_third_repetition("client libraries: repetition 3/"),
              stop.get_token());
  const double took = stopper.seconds_since_stop();
  ASSERT_TRUE(freeze_) << run.message;
  ASSERT_TRUE(stopper.requested());
  std::printf("libpqxx run ended %.3f s after Stop during the freeze\n", took);
  EXPECT_LT(took, 1.5);
  EXPECT_EQ(run.status, RunStatus::Cancelled) << run.message;
}
