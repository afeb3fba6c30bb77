// The relative view: every series' medians as ratios to a baseline's, with their intervals.
#include "common/relative.h"

#include <gtest/gtest.h>

#include "common/figure_format.h"

using namespace perflab;

namespace {

Run two_builders(bool interleaved, std::vector<double> base, std::vector<double> other) {
  Run r;
  Group g{"append", "Append", "us/op", "", false, true, ""};
  g.baseline_series = "interpolate";
  g.interleaved = interleaved;
  r.groups.push_back(g);
  auto point = [](std::string label, std::vector<double> samples) {
    Point p;
    p.label = std::move(label);
    p.samples = std::move(samples);
    return p;
  };
  r.add_point("append", "interpolate", point("1 writer", base));
  r.add_point("append", "iolist", point("1 writer", other));
  r.add_point("append", "interpolate", point("100 writers", {50, 52, 54}));
  r.add_point("append", "iolist", point("only iolist", {1, 2, 3}));
  return r;
}

const std::vector<double> kBase = {10, 11, 12, 13, 14, 15};
const std::vector<double> kTwice = {20, 22, 24, 26, 28, 30};

}  // namespace

TEST(Relative, RatiosAtTheSameLabelLeaveTheBaselineOut) {
  const auto v = relative_view(two_builders(true, kBase, kTwice), "append", "interpolate");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->baseline, "interpolate");
  EXPECT_EQ(v->better, Better::Lower);
  EXPECT_EQ(v->baseline_labels, (std::vector<std::string>{"1 writer", "100 writers"}));
  ASSERT_EQ(v->series.size(), 1u);
  EXPECT_EQ(v->series[0].name, "iolist");
  // "only iolist" has no baseline point, the baseline's "100 writers" no iolist point.
  ASSERT_EQ(v->series[0].points.size(), 1u);
  const RelativePoint& p = v->series[0].points[0];
  EXPECT_EQ(p.label, "1 writer");
  EXPECT_DOUBLE_EQ(p.ratio.value, 2.0);  // 25 / 12.5
  EXPECT_EQ(v->find("iolist", "1 writer"), &p);
  EXPECT_EQ(v->find("iolist", "100 writers"), nullptr);
}

TEST(Relative, InterleavedSeriesArePairedRoundByRound) {
  // Every round's iolist is exactly twice its interpolate: every paired resample says 2.
  const auto v = relative_view(two_builders(true, kBase, kTwice), "append", "interpolate");
  ASSERT_TRUE(v);
  const Estimate& e = v->series[0].points[0].ratio;
  EXPECT_EQ(e.method, CiMethod::PairedBootstrap);
  EXPECT_DOUBLE_EQ(e.lo, 2.0);
  EXPECT_DOUBLE_EQ(e.hi, 2.0);
  EXPECT_DOUBLE_EQ(e.level, 0.95);
  EXPECT_TRUE(e.full_level);
  EXPECT_EQ(e.n, 6u);
}

TEST(Relative, SeriesNotInterleavedAreResampledApart) {
  const auto v = relative_view(two_builders(false, kBase, kTwice), "append", "interpolate");
  ASSERT_TRUE(v);
  const Estimate& e = v->series[0].points[0].ratio;
  EXPECT_EQ(e.method, CiMethod::Bootstrap);
  EXPECT_LT(e.lo, 2.0);
  EXPECT_GT(e.hi, 2.0);
  // The ratio's extremes: the largest iolist median over the smallest interpolate one.
  EXPECT_GE(e.lo, 20.0 / 15.0);
  EXPECT_LE(e.hi, 30.0 / 10.0);
  // The same interval the findings state for that pair.
  RatioOptions ro;
  ro.interleaved = false;
  const auto same = ratio_ci(kTwice, kBase, ro);
  ASSERT_TRUE(same);
  EXPECT_DOUBLE_EQ(e.lo, same->lo);
  EXPECT_DOUBLE_EQ(e.hi, same->hi);
}

TEST(Relative, FewSamplesStateTheLevelTheyReach) {
  const auto v = relative_view(two_builders(true, {10, 11, 12, 13, 14}, {20, 22, 24, 26, 28}),
                               "append", "interpolate");
  ASSERT_TRUE(v);
  const RelativePoint& p = v->series[0].points[0];
  EXPECT_DOUBLE_EQ(p.ratio.level, 0.9375);
  EXPECT_FALSE(p.ratio.full_level);
  EXPECT_EQ(relative_sentence(*v, "iolist", p),
            "iolist — 1 writer: 2.000× interpolate [2.000–2.000] (≤93.8% CI, n = 5)");
}

TEST(Relative, TheSentenceCarriesTheRatioItsIntervalAndItsLevel) {
  const auto v =
      relative_view(two_builders(true, kBase, {9, 10, 11, 12, 13, 17}), "append", "interpolate");
  ASSERT_TRUE(v);
  const RelativePoint& p = v->series[0].points[0];
  EXPECT_DOUBLE_EQ(p.ratio.value, 11.5 / 12.5);
  // Paired rounds 0.90, 0.91, 0.92, 0.92, 0.93, 1.13: the slow last round widens the top.
  EXPECT_EQ(relative_sentence(*v, "iolist", p),
            "iolist — 1 writer: 0.92× interpolate [0.90–1.04] (95% CI, n = 6)");
}

TEST(Relative, AZeroBaselineGivesNoRatio) {
  const auto v = relative_view(two_builders(true, {0, 0, 0}, {1, 2, 3}), "append", "interpolate");
  ASSERT_TRUE(v);
  ASSERT_EQ(v->series.size(), 1u);
  EXPECT_TRUE(v->series[0].points.empty());
}

TEST(Relative, TooManyRatiosAreGivenWithoutIntervals) {
  RelativeOptions opt;
  opt.max_intervals = 0;
  const auto v = relative_view(two_builders(true, kBase, kTwice), "append", "interpolate", opt);
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->intervals_left_out);
  const RelativePoint& p = v->series[0].points[0];
  EXPECT_FALSE(p.ratio.has_interval());
  EXPECT_DOUBLE_EQ(p.ratio.value, 2.0);
  EXPECT_EQ(relative_sentence(*v, "iolist", p),
            "iolist — 1 writer: 2.00× interpolate (no interval)");
}

TEST(Relative, TheBaselineIsTheGroupsWhenItHasThatSeries) {
  perflab::Run r = two_builders(true, kBase, kTwice);
  EXPECT_EQ(named_baseline(r, "append"), "interpolate");
  EXPECT_FALSE(relative_view(r, "append", "copy"));
  EXPECT_FALSE(relative_view(r, "read", "interpolate"));
  r.groups[0].baseline_series = "copy";  // a series this run did not measure
  EXPECT_EQ(named_baseline(r, "append"), "");
  r.groups[0].baseline_series.clear();  // an older run: the person chooses
  EXPECT_EQ(named_baseline(r, "append"), "");
  // Any series can be the baseline.
  const auto v = relative_view(r, "append", "iolist");
  ASSERT_TRUE(v);
  EXPECT_DOUBLE_EQ(v->series[0].points[0].ratio.value, 0.5);
}

TEST(Relative, ACategoryTakesEachSeriesToItsOwnValueThere) {
  const perflab::Run r = two_builders(true, kBase, kTwice);
  EXPECT_EQ(category_baseline("1 writer"), "category: 1 writer");
  EXPECT_EQ(baseline_category("category: 1 writer"), "1 writer");
  EXPECT_EQ(baseline_category("interpolate"), std::nullopt);
  const auto v = relative_view(r, "append", category_baseline("1 writer"));
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->category);
  EXPECT_EQ(v->baseline, "1 writer");
  EXPECT_EQ(v->baseline_labels, (std::vector<std::string>{"1 writer"}));
  // Both series have a point there: interpolate's 100 writers against its own 1 writer, iolist's
  // "only iolist" against its own.
  ASSERT_EQ(v->series.size(), 2u);
  EXPECT_EQ(v->series[0].name, "interpolate");
  ASSERT_EQ(v->series[0].points.size(), 1u);
  EXPECT_EQ(v->series[0].points[0].label, "100 writers");
  EXPECT_DOUBLE_EQ(v->series[0].points[0].ratio.value, 52 / 12.5);
  const RelativePoint* only = v->find("iolist", "only iolist");
  ASSERT_NE(only, nullptr);
  EXPECT_DOUBLE_EQ(only->ratio.value, 2 / 25.0);
  EXPECT_LT(only->ratio.lo, only->ratio.value);  // unequal counts: not paired, an interval
  const std::string said = relative_sentence(*v, "iolist", *only);
  EXPECT_TRUE(said.starts_with("iolist — only iolist: 0.08")) << said;
  EXPECT_NE(said.find("× 1 writer ["), std::string::npos) << said;
  // A category no series has a point in: no view.
  EXPECT_FALSE(relative_view(r, "append", category_baseline("10 writers")));
  EXPECT_FALSE(relative_view(r, "read", category_baseline("1 writer")));
}
