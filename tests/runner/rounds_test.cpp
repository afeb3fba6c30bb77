// PointRounds: fixed repetitions, and measuring to a precision inside a (test) experiment.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "runner/experiment.h"
#include "runner/rounds.h"
#include "targets/targets.h"

using namespace perflab;

namespace {
// Two variants measured in rounds; b is 25% slower than a, each sample with noise from a fixed
// sequence of `spread` (a share). Every round sleeps `round_ms`.
class Rounds : public Experiment {
 public:
  std::string id() const override { return "rounds"; }
  std::string title() const override { return "Rounds"; }
  std::string purpose() const override { return "measures in rounds"; }
  std::vector<ParamSpec> params() const override {
    std::vector<ParamSpec> v{{"repetitions", ParamType::Int, "5", 1, 1000, {}, ""},
                             {"warmup", ParamType::Int, "1", 0, 100, {}, ""},
                             {"spread", ParamType::Double, "0.01", 0, 1, {}, ""},
                             {"round_ms", ParamType::Int, "0", 0, 1000, {}, ""}};
    for (auto& s : statistics_params()) v.push_back(std::move(s));
    return v;
  }
  TargetNeeds needs(const Params&) const override { return {}; }
  void run(RunContext& ctx) override {
    ctx.add_group({"g", "G", "us/op", "", false, true, ""});
    const double spread = ctx.params().get_double("spread");
    const auto sleep = std::chrono::milliseconds(ctx.params().get_int("round_ms"));
    PointRounds rounds(ctx, static_cast<int>(ctx.params().get_int("warmup")),
                       static_cast<int>(ctx.params().get_int("repetitions")), 2);
    rounds.track_ratio(0, 1);
    std::vector<double> a, b;
    while (rounds.next()) {
      ctx.check_stop();
      std::this_thread::sleep_for(sleep);
      const int r = rounds.round();
      const double noise = 1 + spread * std::sin(r * 2.399);  // deterministic, in ±spread
      const double round[2] = {100 * noise, 125 * (2 - noise)};
      if (!rounds.warmup()) a.push_back(round[0]), b.push_back(round[1]);
      rounds.record(round);
      ctx.progress(0.5, rounds.progress_text());
    }
    for (auto [name, samples] : {std::pair{"a", &a}, std::pair{"b", &b}}) {
      Point p{"p", std::nullopt, *samples, {}, {}};
      p.precision = rounds.precision();
      ctx.add_point("g", name, std::move(p));
    }
    ctx.add_comparison(
        {.id = "a_vs_b",
         .what = {.subject = "a", .baseline = "b", .metric = "time", .better = Better::Lower},
         .interleaved = true},
        ctx.snapshot().find_point("g", "a", "p"), ctx.snapshot().find_point("g", "b", "p"));
  }
};

std::size_t samples_of(const perflab::Run& r, const char* series) {
  return r.find_point("g", series, "p")->samples.size();
}
}  // namespace

TEST(PointRounds, FixedRepetitionsWithoutAPrecision) {
  Rounds e;
  Targets t;
  std::string last;
  RunHooks hooks{[&](double, std::string_view s) { last = s; }, {}};
  const perflab::Run r = execute(e, t, {{"repetitions", "7"}, {"warmup", "2"}}, hooks, {});
  ASSERT_EQ(r.status, RunStatus::Finished) << r.message;
  EXPECT_EQ(samples_of(r, "a"), 7u);  // warm-ups dropped
  EXPECT_EQ(samples_of(r, "b"), 7u);
  EXPECT_FALSE(r.find_point("g", "a", "p")->precision.has_value());
  EXPECT_EQ(last, "repetition 9/9");
  // The finding: paired, judged at the run's threshold (parameter, in percent).
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].ci->method, CiMethod::PairedBootstrap);
  EXPECT_EQ(*r.findings[0].verdict(), Verdict::Faster);
  EXPECT_DOUBLE_EQ(r.findings[0].threshold, 0.02);
  EXPECT_DOUBLE_EQ(r.threshold, 0.02);
  const perflab::Run r5 = execute(e, t, {{"threshold", "5"}}, {}, {});
  EXPECT_DOUBLE_EQ(r5.findings[0].threshold, 0.05);
  EXPECT_DOUBLE_EQ(r5.threshold, 0.05);
  // The machine around the run is recorded.
  ASSERT_TRUE(r.machine.has_value());
  EXPECT_TRUE(r.machine->load_per_core_before.has_value());
}

TEST(PointRounds, StopsWhenThePrecisionIsReached) {
  Rounds e;
  Targets t;
  // ±1% noise: the ratio's interval is within ±5% from the first check on.
  const perflab::Run r =
      execute(e, t, {{"repetitions", "6"}, {"precision", "5"}, {"spread", "0.01"}}, {}, {});
  ASSERT_EQ(r.status, RunStatus::Finished) << r.message;
  const Point* p = r.find_point("g", "a", "p");
  ASSERT_TRUE(p->precision.has_value());
  EXPECT_TRUE(p->precision->reached);
  EXPECT_EQ(p->precision->rounds, 6);
  EXPECT_EQ(samples_of(r, "a"), 6u);
  EXPECT_LE(p->precision->worst_half_width, 0.05);
  EXPECT_LE(r.findings[0].ci->relative_half_width(), 0.05);
  // A tighter goal takes more rounds than the minimum, and reaches it.
  const perflab::Run tight = execute(
      e, t,
      {{"repetitions", "6"}, {"precision", "3"}, {"spread", "0.04"}, {"precision_budget_s", "30"}},
      {}, {});
  const Point* q = tight.find_point("g", "a", "p");
  ASSERT_TRUE(q->precision.has_value());
  EXPECT_GT(q->precision->rounds, 6);
  EXPECT_TRUE(q->precision->reached)
      << q->precision->rounds << " rounds, ±" << q->precision->worst_half_width;
  EXPECT_EQ(samples_of(tight, "a"), static_cast<std::size_t>(q->precision->rounds));
}

TEST(PointRounds, StopsWhenTheBudgetIsUsed) {
  Rounds e;
  Targets t;
  // ±40% noise and a 0.1% goal: never reached; 50 ms rounds and a 1 s budget end it.
  const auto t0 = std::chrono::steady_clock::now();
  const perflab::Run r = execute(e, t,
                                 {{"repetitions", "6"},
                                  {"precision", "0.1"},
                                  {"spread", "0.4"},
                                  {"round_ms", "50"},
                                  {"precision_budget_s", "1"}},
                                 {}, {});
  const auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_EQ(r.status, RunStatus::Finished) << r.message;
  const Point* p = r.find_point("g", "a", "p");
  ASSERT_TRUE(p->precision.has_value());
  EXPECT_FALSE(p->precision->reached);
  EXPECT_GE(p->precision->rounds, 6);
  EXPECT_LE(p->precision->rounds, 25);        // about 1 s of 50 ms rounds (loose)
  EXPECT_LT(took, std::chrono::seconds(60));  // does not hang (about 1 s)
}
