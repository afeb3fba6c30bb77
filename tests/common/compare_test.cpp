#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/compare.h"
#include "common/compare_json.h"
#include "common/figure_format.h"
#include "common/regression_gate.h"
#include "sample_run.h"

using namespace perflab;

TEST(Compare, RatiosSortedAndUnmatchedListedApart) {
  perflab::Run a = sample_run();
  perflab::Run b = sample_run();
  b.series[0].points[0].samples = {55, 55, 55};  // interpolate single writer: 110 -> 55
  b.series[0].points[0].stats = summarize(b.series[0].points[0].samples);
  b.series[1].points[0].label = "renamed";
  b.series[1].points[0].stats = summarize(b.series[1].points[0].samples);
  const Comparison c = compare_runs(a, b);
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_EQ(c.rows[0].name, "append/interpolate/single writer");
  EXPECT_DOUBLE_EQ(c.rows[0].ratio, 0.5);
  EXPECT_DOUBLE_EQ(c.rows[0].percent, -50);
  EXPECT_DOUBLE_EQ(c.rows[1].ratio, 1.0);
  EXPECT_EQ(c.only_in_old, std::vector<std::string>{"append/iolist/single writer"});
  EXPECT_EQ(c.only_in_new, std::vector<std::string>{"append/iolist/renamed"});
  const std::string ratio = format_comparison(c, CompareFormat::Ratio);
  EXPECT_NE(ratio.find("0.50"), std::string::npos);
  EXPECT_NE(ratio.find("only in the old run"), std::string::npos);
  const std::string pct = format_comparison(c, CompareFormat::Percent);
  EXPECT_NE(pct.find("-50.00%"), std::string::npos);
}

TEST(Compare, SubMicrosecondMediansKeepTheirDigits) {
  // A local-memory get of a ready object: tens of nanoseconds in a µs unit.
  perflab::Run a, b;
  for (perflab::Run* r : {&a, &b}) {
    r->experiment = "caching";
    r->status = RunStatus::Finished;
    r->groups.push_back({"document_wall", "W", "us/get", "", false, true, ""});
  }
  a.add_point("document_wall", "native", Point{"local", std::nullopt, {0.0342, 0.0345}, {}, {}});
  b.add_point("document_wall", "native", Point{"local", std::nullopt, {0.0041, 0.0042}, {}, {}});
  const std::string text = format_comparison(compare_runs(a, b), CompareFormat::Ratio);
  const std::vector<double> old_samples = {0.0342, 0.0345};
  EXPECT_NE(text.find(format_figure(summarize(old_samples).median)), std::string::npos) << text;
  EXPECT_NE(text.find("0.00415"), std::string::npos) << text;
  EXPECT_EQ(text.find(" 0.00 "), std::string::npos) << text;
  EXPECT_EQ(text.find(" 0.03 "), std::string::npos) << text;
}

namespace {
perflab::Run run_with(std::vector<double> samples, bool lower_is_better = true) {
  perflab::Run r;
  r.experiment = "iolist";
  r.status = RunStatus::Finished;
  r.groups.push_back({"g", "G", "us/op", "", false, lower_is_better, ""});
  r.add_point("g", "s", Point{"p", std::nullopt, std::move(samples), {}, {}});
  return r;
}
std::vector<double> around(double centre, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(centre * (1 + 0.004 * ((i * 7) % 5 - 2)));
  return v;
}
}  // namespace

TEST(Compare, RowsCarryIntervalPValueAndVerdict) {
  // Ten repetitions a side, the new run 20% faster: significant both ways (interval and U test).
  const Comparison c = compare_runs(run_with(around(100, 10)), run_with(around(80, 10)));
  ASSERT_EQ(c.rows.size(), 1u);
  const ComparisonRow& r = c.rows[0];
  ASSERT_TRUE(r.judgement.has_value());
  EXPECT_EQ(r.judgement->verdict, Verdict::Faster);
  EXPECT_EQ(r.judgement->ratio.method, CiMethod::Bootstrap);  // separate runs: unpaired
  EXPECT_TRUE(r.judgement->ratio.lo < 0.8 && 0.8 < r.judgement->ratio.hi);
  EXPECT_TRUE(r.utest.reliable);
  EXPECT_LT(r.utest.p_value, 0.001);
  EXPECT_TRUE(r.significant());
  const std::string t = format_comparison(c, CompareFormat::Ratio);
  EXPECT_NE(t.find(format_estimate(r.judgement->ratio)), std::string::npos) << t;
  EXPECT_NE(t.find(format_p_value(r.utest.p_value)), std::string::npos) << t;
  EXPECT_NE(t.find("faster"), std::string::npos) << t;
  EXPECT_EQ(t.find("unreliable "), std::string::npos) << t;

  // Where higher is better, the same change is slower.
  const Comparison h =
      compare_runs(run_with(around(100, 10), false), run_with(around(80, 10), false));
  EXPECT_EQ(h.rows[0].judgement->verdict, Verdict::Slower);
}

TEST(Compare, EqualRunsAreEquivalentAndFewRepetitionsUnreliable) {
  // Identical samples: the whole interval of new/old lies inside ±2%.
  const Comparison same = compare_runs(run_with(around(100, 10)), run_with(around(100, 10)));
  EXPECT_EQ(same.rows[0].judgement->verdict, Verdict::Equivalent);
  EXPECT_FALSE(same.rows[0].significant());
  EXPECT_NE(format_comparison(same, CompareFormat::Ratio).find("equivalent within ±2%"),
            std::string::npos);
  // Three repetitions a side: the U test cannot reach p < 0.05 (compare.py: unreliable).
  const Comparison few = compare_runs(run_with(around(100, 3)), run_with(around(50, 3)));
  EXPECT_FALSE(few.rows[0].utest.reliable);
  EXPECT_FALSE(few.rows[0].significant());
  EXPECT_NE(format_comparison(few, CompareFormat::Ratio).find("unreliable"), std::string::npos);
}

namespace {
// Noisy samples: the new run's median `ratio` times the old one's, each side spread ±`spread`.
std::vector<double> spread_around(double centre, double spread, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(centre * (1 + spread * ((i * 7) % 9 - 4) / 4.0));
  return v;
}
}  // namespace

TEST(RegressionGate, FailsOnlyWhenTheWholeIntervalIsBeyondTheTolerance) {
  // 30% slower, tight: beyond 5% and 20% with its whole interval, not beyond 50%.
  const Comparison slow = compare_runs(run_with(around(100, 10)), run_with(around(130, 10)));
  GateRule rule = parse_gate_rule("slower:5");
  GateResult g = apply_gate(slow, rule);
  ASSERT_EQ(g.failures.size(), 1u);
  EXPECT_FALSE(g.passed());
  EXPECT_EQ(g.failures[0].name, "g/s/p");
  EXPECT_GT(g.failures[0].slowdown.lo, 1.05);
  EXPECT_NEAR(g.failures[0].slowdown.value, 1.3, 0.01);
  EXPECT_NE(format_gate(g).find("gate failed: 1 of 1 benchmark slower by more than 5%"),
            std::string::npos)
      << format_gate(g);
  EXPECT_FALSE(apply_gate(slow, parse_gate_rule("slower:20%")).passed());
  EXPECT_TRUE(apply_gate(slow, parse_gate_rule("slower:50")).passed());
  // The same 30% as a throughput that fell: old/new of 1/1.3.
  const Comparison fell =
      compare_runs(run_with(around(130, 10), false), run_with(around(100, 10), false));
  g = apply_gate(fell, rule);
  ASSERT_EQ(g.failures.size(), 1u);
  EXPECT_NEAR(g.failures[0].slowdown.value, 1.3, 0.01);
  // Faster never fails.
  EXPECT_TRUE(apply_gate(compare_runs(run_with(around(130, 10)), run_with(around(100, 10))), rule)
                  .passed());
}

TEST(RegressionGate, NeverFailsOnNoise) {
  // A median 10% slower, each side spread ±40% over 5 repetitions: the interval holds 1, so not
  // even the new run's threshold fails it; with the verdicts, "slower" alone fails.
  const Comparison noisy =
      compare_runs(run_with(spread_around(100, 0.4, 5)), run_with(spread_around(110, 0.4, 5)));
  ASSERT_TRUE(noisy.rows[0].judgement.has_value());
  ASSERT_LT(noisy.rows[0].judgement->ratio.lo, 1.0);
  EXPECT_TRUE(apply_gate(noisy, parse_gate_rule("slower")).passed());
  EXPECT_TRUE(apply_gate(noisy, parse_gate_rule("slower:0")).passed());
  const Comparison slow = compare_runs(run_with(around(100, 10)), run_with(around(110, 10)));
  EXPECT_EQ(slow.rows[0].judgement->verdict, Verdict::Slower);
  EXPECT_FALSE(apply_gate(slow, parse_gate_rule("slower")).passed());
  EXPECT_EQ(apply_gate(slow, parse_gate_rule("slower")).tolerance, slow.threshold);
  // One repetition a side: no interval, not judged, and said so.
  const GateResult one =
      apply_gate(compare_runs(run_with({100}), run_with({300})), parse_gate_rule("slower"));
  EXPECT_TRUE(one.passed());
  EXPECT_EQ(one.not_judged, 1u);
  EXPECT_NE(format_gate(one).find("1 not judged"), std::string::npos) << format_gate(one);
}

TEST(RegressionGate, NamedBenchmarksAloneAreHeld) {
  perflab::Run a = run_with(around(100, 10)), b = run_with(around(150, 10));
  a.add_point("g", "s", Point{"q", std::nullopt, around(100, 10), {}, {}});
  b.add_point("g", "s", Point{"q", std::nullopt, around(100, 10), {}, {}});
  const Comparison c = compare_runs(a, b);
  GateRule rule = parse_gate_rule("slower:10");
  rule.names = {"g/s/q"};
  GateResult g = apply_gate(c, rule);
  EXPECT_TRUE(g.passed());
  EXPECT_EQ(g.held, 1u);
  rule.names = {"g/s/*"};
  g = apply_gate(c, rule);
  EXPECT_EQ(g.held, 2u);
  EXPECT_EQ(g.failures.size(), 1u);
  rule.names = {"g/s/nothing"};
  EXPECT_EQ(apply_gate(c, rule).unmatched, std::vector<std::string>{"g/s/nothing"});
}

TEST(RegressionGate, RulesOutsideTheGrammarAreRefusedNamingIt) {
  EXPECT_FALSE(parse_gate_rule("slower").tolerance.has_value());
  EXPECT_DOUBLE_EQ(*parse_gate_rule("slower:2.5%").tolerance, 0.025);
  for (const char* bad : {"faster", "slower:", "slower:x", "slower:-5", "slower:nan", "slower:5%%",
                          "slower:1e9", "Slower:5", ""}) {
    try {
      parse_gate_rule(bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("slower"), std::string::npos) << e.what();
    }
  }
}

TEST(RegressionGate, TheComparisonAsJsonCarriesRowsAndTheGate) {
  const Comparison c = compare_runs(run_with(around(100, 10)), run_with(around(130, 10)));
  const GateResult g = apply_gate(c, parse_gate_rule("slower:5"));
  const auto j = nlohmann::json::parse(comparison_json(c, "old.json", "new.json", &g));
  EXPECT_EQ(j["old"], "old.json");
  ASSERT_EQ(j["rows"].size(), 1u);
  EXPECT_EQ(j["rows"][0]["name"], "g/s/p");
  EXPECT_EQ(j["rows"][0]["verdict"], "slower");
  EXPECT_NEAR(j["rows"][0]["ratio"].get<double>(), 1.3, 0.01);
  EXPECT_LT(j["rows"][0]["ratio_ci"]["lo"].get<double>(), j["rows"][0]["ratio"].get<double>());
  EXPECT_FALSE(j["gate"]["passed"].get<bool>());
  EXPECT_EQ(j["gate"]["failures"][0]["name"], "g/s/p");
  EXPECT_FALSE(nlohmann::json::parse(comparison_json(c, "a", "b", nullptr)).contains("gate"));
}
