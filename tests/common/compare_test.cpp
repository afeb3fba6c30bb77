#include <gtest/gtest.h>

#include "common/compare.h"
#include "common/figure_format.h"
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
