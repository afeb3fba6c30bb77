// SweepProgress: the sweep's progress follows the expected time of its measurements, learned
// depth by depth, so that the time left holds while deep pipelines end early.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "runner/time_left.h"
#include "sharding/sweep_progress.h"

using namespace perflab;
using namespace perflab::sharding;

namespace {

const std::vector<std::int64_t> kDepths{1, 2, 4, 8, 16};

// A lecture-like sweep of one test, 3 variants, 6 rounds, budget 0.5 s: the first variant's
// measurements halve with each depth (0.4 s at -P 1), the second's fall as the depth^0.6 (0.4 s
// at -P 1, 0.08 s at -P 16), the third always takes its budget. The (elapsed, fraction) of
// each measurement's start, then the sweep's end.
std::vector<std::pair<double, double>> lecture_sweep() {
  SweepProgress p({3}, kDepths, 6, 0.5, 0.02, 0.97);
  std::vector<std::pair<double, double>> trace;
  double t = 0;
  for (std::size_t d = 0; d < kDepths.size(); ++d)
    for (int r = 0; r < 6; ++r)
      for (std::size_t v = 0; v < 3; ++v) {
        trace.emplace_back(t, p.begin(0, d, v, r));
        const double depth = static_cast<double>(kDepths[d]);
        const double s = v == 0 ? 0.4 / depth : v == 1 ? 0.4 / std::pow(depth, 0.6) : 0.5;
        p.measured(0, d, v, s);
        t += s;
      }
  trace.emplace_back(t, 0.97);
  return trace;
}

}  // namespace

TEST(SweepProgress, EachMeasurementIsExpectedFromItsVariantsTimes) {
  SweepProgress p({2}, kDepths, 3, 0.5, 0, 1);
  EXPECT_DOUBLE_EQ(p.expected(0, 0, 0), 0.5);  // nothing measured: the budget
  p.measured(0, 0, 0, 0.4);
  p.measured(0, 0, 0, 0.2);
  p.measured(0, 0, 0, 0.3);
  p.measured(0, 0, 1, 0.5);
  EXPECT_DOUBLE_EQ(p.expected(0, 0, 0), 0.3);  // the median at its depth
  // One depth measured: the time falls as the square root of the depth until told otherwise.
  EXPECT_NEAR(p.expected(0, 2, 0), 0.3 / 2, 1e-12);
  p.measured(0, 1, 0, 0.15);  // halved at twice the depth: a deep pipeline ends by its requests
  p.measured(0, 1, 1, 0.5);   // the budget again: it ends by its budget
  EXPECT_NEAR(p.expected(0, 3, 0), 0.15 / 4, 1e-12);
  EXPECT_NEAR(p.expected(0, 3, 1), 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(p.expected(0, 3, 2 - 1), p.expected(0, 4, 1));
}

TEST(SweepProgress, TheFractionGrowsWithTimeSoTheTimeLeftHolds) {
  // Counting every measurement alike (as the sweep did), the time left at a quarter of this
  // sweep read 40% long; in proportion to the expected times it is within 20% from there on.
  const auto trace = lecture_sweep();
  const double total = trace.back().first;
  for (const double share : {0.25, 0.5, 0.75}) {
    TimeLeft est;
    for (const auto& [t, f] : trace) {
      if (t > share * total) break;
      est.add(f, t);
    }
    const double real = total * (1 - share);
    ASSERT_TRUE(est.seconds_left(share * total).has_value()) << share;
    EXPECT_NEAR(*est.seconds_left(share * total), real, 0.2 * real) << "at " << share;
  }
  TimeLeft alike;  // the old count, for the record of what it said
  std::size_t i = 0;
  for (const auto& [t, f] : trace) {
    if (t > 0.25 * total) break;
    alike.add(0.02 + 0.95 * static_cast<double>(i++) / 90.0, t);
  }
  EXPECT_GT(*alike.seconds_left(0.25 * total), 1.25 * total * 0.75);
}

TEST(SweepProgress, NeverBackwardsAndExtraRoundsCountNoMore) {
  SweepProgress p({2, 1}, {1, 2}, 2, 0.5, 0.1, 0.9);
  double last = 0;
  for (std::size_t t = 0; t < 2; ++t)
    for (std::size_t d = 0; d < 2; ++d)
      for (int r = 0; r < 3; ++r)  // a third round, as measuring to a precision may take
        for (std::size_t v = 0; v < (t == 0 ? 2u : 1u); ++v) {
          const double f = p.begin(t, d, v, r);
          EXPECT_GE(f, last);
          EXPECT_LE(f, 0.9);
          last = f;
          p.measured(t, d, v, 0.1 * static_cast<double>(r + 1));
        }
  EXPECT_DOUBLE_EQ(p.begin(0, 0, 0, 0), last);
}
