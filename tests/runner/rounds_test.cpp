// PointRounds: fixed repetitions, and measuring to a precision inside a (test) experiment.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <thread>

#include "finding_rules.h"
#include "runner/experiment.h"
#include "runner/rounds.h"
#include "targets/targets.h"

using namespace perflab;

namespace {
// Two variants measured in rounds; b is `b`% of a (125: 25% slower), each sample with noise
// from a fixed sequence of `spread` (a share). Every round sleeps `round_ms`.
class Rounds : public Experiment {
 public:
  std::string id() const override { return "rounds"; }
  std::string title() const override { return "Rounds"; }
  std::string purpose() const override { return "measures in rounds"; }
  std::vector<ParamSpec> params() const override {
    std::vector<ParamSpec> v{{"repetitions", ParamType::Int, "5", 1, 1000, {}, ""},
                             {"warmup", ParamType::Int, "1", 0, 100, {}, ""},
                             {"spread", ParamType::Double, "0.01", 0, 1, {}, ""},
                             {"round_ms", ParamType::Int, "0", 0, 1000, {}, ""},
                             {"b", ParamType::Double, "125", 1, 1000, {}, ""}};
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
      const double round[2] = {100 * noise, ctx.params().get_double("b") * (2 - noise)};
      if (!rounds.warmup()) a.push_back(round[0]), b.push_back(round[1]);
      rounds.record(round);
      ctx.progress(rounds.done(), rounds.progress_text());
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
  double last_done = 0;
  RunHooks hooks{[&](double f, std::string_view s) { last = s, last_done = f; }, {}};
  const perflab::Run r = execute(e, t, {{"repetitions", "7"}, {"warmup", "2"}}, hooks, {});
  ASSERT_EQ(r.status, RunStatus::Finished) << r.message;
  EXPECT_EQ(samples_of(r, "a"), 7u);  // warm-ups dropped
  EXPECT_EQ(samples_of(r, "b"), 7u);
  EXPECT_FALSE(r.find_point("g", "a", "p")->precision.has_value());
  EXPECT_EQ(last, "repetition 9/9");
  EXPECT_EQ(last_done, 1.0);  // 9 of 9 rounds
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
  EXPECT_EQ(precision_text(*p->precision).rfind("6 repetitions; precision reached (±", 0), 0u);
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

namespace {
// A run of a point that cannot settle, ended by a budget: it finishes within a minute (it does
// not hang), its point unsettled after at least its 6 rounds.
perflab::Run ended_by_budget(const std::map<std::string, std::string>& params) {
  Rounds e;
  Targets t;
  const auto t0 = std::chrono::steady_clock::now();
  perflab::Run r = execute(e, t, params, {}, {});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));
  EXPECT_EQ(r.status, RunStatus::Finished) << r.message;
  const Point* p = r.find_point("g", "a", "p");
  EXPECT_TRUE(p && p->precision.has_value());
  if (p && p->precision) {
    EXPECT_FALSE(p->precision->reached);
    EXPECT_GE(p->precision->rounds, 6);
  }
  return r;
}

int rounds_of(const perflab::Run& r) {
  const Point* p = r.find_point("g", "a", "p");
  return p && p->precision ? p->precision->rounds : 0;
}
}  // namespace

TEST(PointRounds, StopsWhenTheBudgetIsUsed) {
  // ±40% noise and a 0.1% goal: never reached; 50 ms rounds and a 1 s budget end it.
  const perflab::Run r = ended_by_budget({{"repetitions", "6"},
                                          {"precision", "0.1"},
                                          {"spread", "0.4"},
                                          {"round_ms", "50"},
                                          {"precision_budget_s", "1"}});
  EXPECT_LE(rounds_of(r), 25);  // about 1 s of 50 ms rounds (loose)
}

TEST(PointRounds, StopsWhenTheComparisonHasAVerdict) {
  Rounds e;
  Targets t;
  std::string last;
  RunHooks hooks{[&](double, std::string_view s) { last = s; }, {}};
  // b 25% slower, ±1% noise: the verdict is clear at the first full-level interval, 6 rounds
  // (from a minimum of 3, warm-up 1 not counted).
  const perflab::Run r =
      execute(e, t, {{"repetitions", "3"}, {"verdicts", "true"}, {"spread", "0.01"}}, hooks, {});
  ASSERT_EQ(r.status, RunStatus::Finished) << r.message;
  const Point* p = r.find_point("g", "a", "p");
  ASSERT_TRUE(p->precision.has_value());
  EXPECT_TRUE(p->precision->reached);
  EXPECT_EQ(p->precision->rounds, 6);
  EXPECT_EQ(precision_text(*p->precision), "6 repetitions; verdicts reached");
  EXPECT_EQ(samples_of(r, "a"), 6u);
  EXPECT_EQ(last, "repetition 7 (to verdicts: 1 of 1 settled)");
  const Finding* f = nullptr;
  for (const auto& x : r.findings)
    if (x.id == "a_vs_b") f = &x;
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(*f->verdict(), Verdict::Faster);
  // The run says how many of its comparisons reached a verdict.
  const Finding& note = r.findings.back();
  EXPECT_EQ(note.id, "verdicts");
  EXPECT_EQ(note.text.rfind("1 of 1 comparisons reached a verdict in ", 0), 0u) << note.text;
  EXPECT_EQ(note.text.find("no verdict"), std::string::npos) << note.text;
}

TEST(PointRounds, TheRunBudgetEndsAPointThatCannotSettle) {
  // b 2% slower than a with ±5% noise: the ratio sits on the band's edge and its interval
  // holds 0.98, so no verdict; the point's own budget (60 s) would go on, the run's 2 s ends it.
  const perflab::Run r = ended_by_budget({{"repetitions", "6"},
                                          {"verdicts", "true"},
                                          {"b", "102"},
                                          {"spread", "0.05"},
                                          {"round_ms", "50"},
                                          {"budget_s", "2"}});
  EXPECT_LE(rounds_of(r), 45);  // about 2 s of 50 ms rounds (loose)
  ASSERT_FALSE(r.findings.empty());
  const Finding& note = r.findings.back();
  EXPECT_EQ(note.id, "verdicts");
  EXPECT_EQ(note.text.rfind("0 of 1 comparisons reached a verdict in ", 0), 0u) << note.text;
  EXPECT_NE(note.text.find("(budget 2 s); no verdict: "), std::string::npos) << note.text;
  EXPECT_NE(note.text.find(" / b "), std::string::npos) << note.text;  // the ratio, its interval
  EXPECT_NE(note.text.find("–"), std::string::npos) << note.text;
  for (const auto& v : test::finding_rule_violations(note)) ADD_FAILURE() << v;
}

// Measuring to verdicts, a point's progress follows its time budget, not its minimum rounds:
// past them it goes on, so `done` after the sixth round is a small part of the point, and the
// last round is near its end.
TEST(PointRounds, AnAdaptivePointIsDoneInProportionToItsBudget) {
  Rounds e;
  Targets t;
  std::vector<std::pair<std::string, double>> seen;
  RunHooks hooks{[&](double f, std::string_view s) { seen.emplace_back(s, f); }, {}};
  const perflab::Run r = execute(e, t,
                                 {{"repetitions", "6"},
                                  {"warmup", "0"},
                                  {"verdicts", "true"},
                                  {"b", "102"},
                                  {"spread", "0.05"},
                                  {"round_ms", "50"},
                                  {"budget_s", "2"}},
                                 hooks, {});
  ASSERT_EQ(r.status, RunStatus::Finished) << r.message;
  std::vector<std::pair<std::string, double>> rounds;  // the point's own steps
  for (const auto& step : seen)
    if (step.first.rfind("repetition ", 0) == 0) rounds.push_back(step);
  ASSERT_GT(rounds.size(), 8u);  // 2 s of 50 ms rounds: some 30 (loose)
  for (std::size_t i = 1; i < rounds.size(); ++i)
    EXPECT_GE(rounds[i].second, rounds[i - 1].second) << rounds[i].first;
  EXPECT_EQ(rounds[5].first.rfind("repetition 6 (to verdicts", 0), 0u) << rounds[5].first;
  EXPECT_LT(rounds[5].second, 0.6);  // 6 rounds of 50 ms, of a 2 s budget
  EXPECT_GT(rounds.back().second, 0.5);
}

// Interleaved series of unequal length (a variant no longer measured once its comparisons had
// their verdicts) are compared over the rounds they share, paired: not over every sample of the
// longer one, which later rounds measured alone.
TEST(PointRounds, SeriesThatEndedEarlyAreComparedOverTheRoundsTheyShare) {
  Targets targets;
  perflab::Run run;
  RunContext ctx(targets, Params{}, RunHooks{}, {}, run);
  std::vector<double> a(6, 80.0), b(6, 100.0);
  a.insert(a.end(), 10, 200.0);  // the later rounds: a alone, on a slower machine
  ctx.add_comparison(
      {.id = "a_vs_b",
       .what = {.subject = "a", .baseline = "b", .metric = "time", .better = Better::Lower},
       .interleaved = true},
      a, b);
  ASSERT_EQ(run.findings.size(), 1u);
  const Finding& f = run.findings[0];
  EXPECT_DOUBLE_EQ(f.value, 0.8);
  ASSERT_TRUE(f.ci);
  EXPECT_EQ(f.ci->n, 6u);
  EXPECT_EQ(f.ci->method, CiMethod::PairedBootstrap);
  EXPECT_EQ(*f.verdict(), Verdict::Faster);
}
