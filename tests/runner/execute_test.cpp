// The runner's contract with a small in-test experiment (no server involved).
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "runner/experiment.h"
#include "targets/targets.h"

using namespace perflab;

namespace {
class Counting : public Experiment {
 public:
  std::string id() const override { return "counting"; }
  std::string title() const override { return "Counting"; }
  std::string purpose() const override { return "publishes points"; }
  std::vector<ParamSpec> params() const override {
    return {{"points", ParamType::Int, "3", 1, 1000, {}, ""},
            {"fail_at", ParamType::Int, "-1", -1, 1000, {}, ""}};
  }
  TargetNeeds needs(const Params&) const override { return {}; }
  void run(RunContext& ctx) override {
    ctx.add_group({"g", "G", "us/op", "", false, true, ""});
    const auto n = ctx.params().get_int("points");
    for (std::int64_t i = 0; i < n; ++i) {
      ctx.check_stop();
      if (i == ctx.params().get_int("fail_at")) throw std::runtime_error("server went away");
      ctx.add_point("g", "s", Point{std::to_string(i), std::nullopt, {double(i)}, {}, {}});
      ctx.progress(double(i + 1) / double(n), "point");
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
};
}  // namespace

TEST(Execute, FinishedRunHasEverything) {
  Counting e;
  Targets t;
  int updates = 0;
  double last = 0;
  RunHooks hooks{[&](double f, std::string_view) { last = f; },
                 [&](const perflab::Run&) { ++updates; }};
  perflab::Run r = execute(e, t, {{"points", "4"}}, hooks, {});
  EXPECT_EQ(r.status, RunStatus::Finished);
  EXPECT_EQ(r.experiment, "counting");
  EXPECT_EQ(r.params.at("points"), "4");
  ASSERT_EQ(r.series.size(), 1u);
  EXPECT_EQ(r.series[0].points.size(), 4u);
  EXPECT_GE(updates, 4);
  EXPECT_DOUBLE_EQ(last, 1.0);
  EXPECT_GT(r.ended_unix_ms, 0);
  EXPECT_GE(r.ended_unix_ms, r.started_unix_ms);
  EXPECT_FALSE(r.host.cpu_model.empty());
}

TEST(Execute, FailureKeepsPartialResults) {
  Counting e;
  Targets t;
  perflab::Run r = execute(e, t, {{"points", "5"}, {"fail_at", "2"}}, {}, {});
  EXPECT_EQ(r.status, RunStatus::Failed);
  EXPECT_EQ(r.message, "server went away");
  EXPECT_EQ(r.series[0].points.size(), 2u);
}

TEST(Execute, StopKeepsPartialResultsAndIsMarkedCancelled) {
  Counting e;
  Targets t;
  std::stop_source stop;
  RunHooks hooks;
  hooks.on_update = [&](const perflab::Run& snap) {
    if (snap.series[0].points.size() == 3) stop.request_stop();
  };
  perflab::Run r = execute(e, t, {{"points", "1000"}}, hooks, stop.get_token());
  EXPECT_EQ(r.status, RunStatus::Cancelled);
  EXPECT_EQ(r.series[0].points.size(), 3u);
}

TEST(Execute, BadParametersThrowBeforeAnythingRuns) {
  Counting e;
  Targets t;
  EXPECT_THROW(execute(e, t, {{"points", "0"}}, {}, {}), ParamError);
  EXPECT_THROW(execute(e, t, {{"bogus", "1"}}, {}, {}), ParamError);
}
