// A latency distribution as a curve: the percentile iteration, the units of time, and a
// spectrum series' whole curve from its pooled rounds.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "common/latency_curve.h"
#include "common/latency_spectrum.h"

using namespace perflab;

namespace {

// A spectrum in milliseconds.
Group ms_spectrum() {
  Group g;
  g.id = "spectrum";
  g.unit = "ms";
  g.numeric_x = g.percentile_x = g.log_y = true;
  return g;
}

// Rounds of a log-normal body around 0.3 ms, each with one far value of its own: 57 ms, 64 ms …
std::vector<LatencyRecorder> rounds_with_far_values(int n, std::uint64_t seed) {
  std::vector<LatencyRecorder> rounds(static_cast<std::size_t>(n));
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> body(std::log(300e3), 0.5);
  std::int64_t far = 50'000'000;
  for (auto& r : rounds) {
    for (int i = 0; i < 10000; ++i) r.record_ns(std::llround(body(rng)));
    r.record_ns(far += 7'000'000);
  }
  return rounds;
}

}  // namespace

TEST(LatencyCurve, StepsClimbTowardOneHundredPercentAndEndAtTheLargestValue) {
  const auto rounds = rounds_with_far_values(1, 3);
  const LatencyRecorder& r = rounds.front();
  const auto steps = percentile_steps(r);
  ASSERT_GT(steps.size(), 20u);
  EXPECT_EQ(steps.front().percent, 0);
  EXPECT_EQ(steps.front().value_ns,
            LatencyRecorder::highest_equivalent_ns(LatencyRecorder::index_of(r.min_ns())));
  EXPECT_EQ(steps.back().cumulative, r.count());
  EXPECT_EQ(steps.back().value_ns, LatencyRecorder::highest_equivalent_ns(r.last_nonzero_index()));
  for (std::size_t i = 1; i < steps.size(); ++i) {
    EXPECT_GT(steps[i].percent, steps[i - 1].percent);
    EXPECT_LT(steps[i].percent, 100);
    EXPECT_GE(steps[i].value_ns, steps[i - 1].value_ns);
    EXPECT_GE(steps[i].cumulative, steps[i - 1].cumulative);
  }
  // Past 0% each step is the recorder's own percentile there (its bucket's highest equivalent).
  for (const auto& s : steps) {
    if (s.percent == 0) continue;
    EXPECT_EQ(std::min(s.value_ns, r.max_ns()), r.value_at_percentile_ns(s.percent)) << s.percent;
  }
  EXPECT_TRUE(percentile_steps(LatencyRecorder()).empty());
  EXPECT_THROW(percentile_steps(r, 0), std::invalid_argument);
}

TEST(LatencyCurve, KnowsTheUnitsOfTime) {
  EXPECT_EQ(ns_per_unit("ns"), 1.0);
  EXPECT_EQ(ns_per_unit("us"), 1e3);
  EXPECT_EQ(ns_per_unit("µs"), 1e3);
  EXPECT_EQ(ns_per_unit("ms/op"), 1e6);
  EXPECT_EQ(ns_per_unit("s"), 1e9);
  EXPECT_FALSE(ns_per_unit("req/s"));
  EXPECT_FALSE(ns_per_unit(""));
}

TEST(LatencyCurve, ASpectrumSeriesCurveIsItsPooledRoundsInTheGroupsUnit) {
  perflab::Run run;
  const auto rounds = rounds_with_far_values(5, 7);
  ASSERT_TRUE(add_latency_spectrum(run, ms_spectrum(), "direct", rounds, 1e6));
  const Series* s = run.find_series("spectrum", "direct");
  ASSERT_NE(s, nullptr);
  LatencyRecorder pooled;
  for (const auto& r : rounds) pooled.merge(r);
  const auto curve = spectrum_curve(*s, "ms");
  const auto steps = percentile_steps(pooled);
  ASSERT_EQ(curve.size(), steps.size());
  for (std::size_t i = 0; i < curve.size(); ++i) {
    EXPECT_EQ(curve[i].percent, steps[i].percent);
    EXPECT_DOUBLE_EQ(curve[i].value,
                     static_cast<double>(pooled.value_at_percentile_ns(steps[i].percent)) / 1e6);
  }
  // From the smallest value to the exact largest one (the far value of the last round).
  EXPECT_DOUBLE_EQ(curve.front().value,
                   static_cast<double>(pooled.value_at_percentile_ns(0)) / 1e6);
  EXPECT_DOUBLE_EQ(curve.back().value, static_cast<double>(pooled.max_ns()) / 1e6);
  EXPECT_DOUBLE_EQ(curve.back().value, 85.0);
  // The same curve in microseconds is a thousand times larger.
  const auto in_us = spectrum_curve(*s, "us");
  ASSERT_EQ(in_us.size(), curve.size());
  EXPECT_NEAR(in_us[curve.size() / 2].value, 1000 * curve[curve.size() / 2].value, 1e-6);
  // No recorders, or a unit that is not a time: no curve.
  Series bare = *s;
  bare.latency.clear();
  EXPECT_TRUE(spectrum_curve(bare, "ms").empty());
  EXPECT_TRUE(spectrum_curve(*s, "req/s").empty());
}
