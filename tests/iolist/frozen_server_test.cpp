// A PostgreSQL that stops answering in the middle of a run (SIGSTOP of the server and its
// backends: what a network partition looks like to a client) must not hang the run: it ends
// within the bound with a failed status and its points, and Stop during the freeze returns
// within a second with the run cancelled and its points.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "frozen_run.h"
#include "iolist/experiment.h"
#include "targets/managed_postgres.h"

using namespace perflab;
using namespace std::chrono_literals;

namespace {

// A server of the test's own: the shared one is never frozen under other tests.
class FrozenPostgres : public ::testing::Test {
 protected:
  void SetUp() override {
    pg_ = std::make_unique<ManagedPostgres>(ManagedPostgresOptions{});
    TargetsConfig cfg;
    cfg.pg_conninfo = pg_->conninfo();
    cfg.pg_limits.statement_timeout = 1s;  // the client gives up 1 s + kPgReplySlack later
    bound_s_ = std::chrono::duration<double>(cfg.pg_limits.reply_timeout()).count();
    targets_ = std::make_unique<Targets>(cfg);
  }

  // The run with params_, the server frozen at the step that contains `step`.
  test::FrozenRun frozen_at(const std::string& step, const std::string& what = "run") {
    return {.experiment = *experiment_,
            .targets = *targets_,
            .params = params_,
            .server = pg_->pid(),
            .step = step,
            .what = what};
  }

  // The run failed within the bound after the freeze, saying why.
  perflab::Run expect_failed_within_the_bound(const test::FrozenRun& r) {
    return test::expect_fails_within(r, bound_s_, 15.0, "no answer within 6 s (timeout");
  }

  // The appends measured before the freeze are kept.
  static void expect_appends_kept(const perflab::Run& run) {
    const Point* p = run.find_point("append", "iolist", "2 concurrent writers");
    ASSERT_NE(p, nullptr);
    EXPECT_GE(p->samples.size(), 2u);
  }

  // Appends until stopped (both transports, direct); the server freezes at the third repetition.
  std::map<std::string, std::string> params_ = {
      {"benchmarks", "append"}, {"builders", "interpolate,iolist"},
      {"writers", "2"},         {"repetitions", "1000"},
      {"warmup", "0"},          {"events", "10"},
      {"network_rtt_ms", "0"},  {"verdicts", "false"}};

  std::unique_ptr<Experiment> experiment_ = make_iolist_experiment();
  std::unique_ptr<ManagedPostgres> pg_;
  std::unique_ptr<Targets> targets_;
  double bound_s_ = 0;
};

}  // namespace

TEST_F(FrozenPostgres, RunEndsFailedWithinTheBoundAndKeepsItsPoints) {
  expect_appends_kept(expect_failed_within_the_bound(frozen_at("repetition 3/")));
}

TEST_F(FrozenPostgres, StopDuringTheFreezeReturnsWithinASecond) {
  expect_appends_kept(test::expect_stops_within_a_second(frozen_at("repetition 3/")));
}

// Through the delaying relay, pipelined: the freeze still ends the run within the bound, and the
// relay goes with it.
TEST_F(FrozenPostgres, ThroughTheRelayThePipelinedRunEndsWithinTheBound) {
  params_["network_rtt_ms"] = "1";
  params_["transports"] = "pipeline";
  expect_failed_within_the_bound(frozen_at("RTT 1 ms: repetition 3/", "relayed, pipelined run"));
}

// The libpqxx path waits inside libpq's blocking calls: its watchdog still ends the run within
// the bound when the server freezes, and Stop during the freeze within a second.
TEST_F(FrozenPostgres, TheLibpqxxPathEndsWithinTheBound) {
  params_["benchmarks"] = "client";
  params_["builders"] = "iolist";
  const perflab::Run run =
      expect_failed_within_the_bound(frozen_at("client libraries: repetition 3/", "libpqxx run"));
  EXPECT_NE(run.find_point("client_time", "libpqxx", "iolist"), nullptr);
}

TEST_F(FrozenPostgres, StopDuringAFreezeEndsTheLibpqxxPathWithinASecond) {
  params_["benchmarks"] = "client";
  params_["builders"] = "iolist";
  test::expect_stops_within_a_second(frozen_at("client libraries: repetition 3/", "libpqxx run"));
}
