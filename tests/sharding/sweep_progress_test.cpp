// SweepProgress: the sweep's progress follows the expected time of its measurements, learned
// depth by depth, so that the time left holds while deep pipelines end early.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "sharding/sweep_progress.h"
#include "time_left_trace.h"

using namespace perflab;
using namespace perflab::sharding;

namespace {

const std::vector<std::int64_t> kDepths{1, 2, 4, 8, 16};

// A lecture sweep of one test: 3 variants, 6 rounds, measurements of 10,000 requests or 0.5 s,
// the variants' rates (requests/s) at each depth given. The (elapsed, fraction) of each
// measurement's start, then the sweep's end.
// With `probe`, each variant is first probed at each depth with 2,000 requests (as the sweep
// does), its time not counted.
template <class Rate>
std::vector<std::pair<double, double>> lecture_sweep(Rate rate, bool probe = true) {
  SweepProgress p({3}, kDepths, 6, 0.5, 10'000, 0.02, 0.97);
  std::vector<std::pair<double, double>> trace;
  double t = 0;
  if (probe)
    for (std::size_t d = 0; d < kDepths.size(); ++d)
      for (std::size_t v = 0; v < 3; ++v) {
        const double per_s = rate(v, static_cast<double>(kDepths[d]));
        const double s = std::min(0.05, 2'000 / per_s);
        p.probed(0, d, v, 0, s, static_cast<std::int64_t>(per_s * s));
      }
  for (std::size_t d = 0; d < kDepths.size(); ++d)
    for (int r = 0; r < 6; ++r)
      for (std::size_t v = 0; v < 3; ++v) {
        trace.emplace_back(t, p.begin(0, d, v, r));
        const double per_s = rate(v, static_cast<double>(kDepths[d]));
        const double s = std::min(0.5, 10'000 / per_s);
        p.measured(0, d, v, s, static_cast<std::int64_t>(per_s * s));
        t += s;
      }
  trace.emplace_back(t, 0.97);
  return trace;
}

}  // namespace

TEST(SweepProgress, EachMeasurementIsExpectedFromItsVariantsRate) {
  SweepProgress p({2}, kDepths, 3, 0.5, 10'000, 0, 1);
  EXPECT_DOUBLE_EQ(p.expected(0, 0, 0), 0.5);  // nothing measured: the budget
  p.measured(0, 0, 0, 0.4, 10'000);
  p.measured(0, 0, 0, 0.2, 10'000);
  p.measured(0, 0, 0, 0.3, 10'000);
  p.measured(0, 0, 1, 0.5, 2'000);             // ended by its budget, at 4,000 requests/s
  EXPECT_DOUBLE_EQ(p.expected(0, 0, 0), 0.3);  // the median at its depth
  // One depth measured: the rate grows as the square root of the depth until told otherwise.
  EXPECT_NEAR(p.expected(0, 2, 0), 0.3 / 2, 1e-9);
  EXPECT_DOUBLE_EQ(p.expected(0, 2, 1), 0.5);  // 8,000/s: the budget ends it
  p.measured(0, 1, 0, 0.15, 10'000);           // twice the rate at twice the depth
  p.measured(0, 1, 1, 0.5, 1'000);             // the proxy writing per reply stalls: half the rate
  EXPECT_NEAR(p.expected(0, 3, 0), 0.15 / 4, 1e-9);
  EXPECT_DOUBLE_EQ(p.expected(0, 3, 1), 0.5);
  p.measured(0, 2, 1, 0.55, 1'100);  // a measurement overran its budget: so will the next
  EXPECT_DOUBLE_EQ(p.expected(0, 3, 1), 0.55);
}

TEST(SweepProgress, AProbeTellsADepthUntilItIsMeasured) {
  SweepProgress p({2}, kDepths, 3, 0.5, 10'000, 0, 1);
  p.probed(0, 1, 0, 0.01, 0.002, 500);  // connected in 10 ms, then 250,000 requests/s
  p.probed(0, 1, 1, 0.01, 0.05, 2);     // 40 requests/s: the budget ends it
  EXPECT_NEAR(p.expected(0, 1, 0), 0.01 + 0.04, 1e-9);
  EXPECT_DOUBLE_EQ(p.expected(0, 1, 1), 0.5);
  p.measured(0, 0, 1, 0.2, 10'000);  // a shallower depth's rate foretells no more of it
  EXPECT_DOUBLE_EQ(p.expected(0, 1, 1), 0.5);
  p.measured(0, 1, 0, 0.06, 10'000);  // measured: its own median
  EXPECT_DOUBLE_EQ(p.expected(0, 1, 0), 0.06);
  // Unprobed: grown from the depth measured, -P 1's 50,000/s times the root of 4.
  EXPECT_NEAR(p.expected(0, 2, 1), 0.1, 1e-9);
  p.probed(0, 3, 0, 0, 0, 500);  // a probe that took no time tells nothing
  EXPECT_NEAR(p.expected(0, 3, 0), 0.06 / 2, 1e-9);
}

TEST(SweepProgress, TheFractionGrowsWithTimeSoTheTimeLeftHolds) {
  // A quiet machine: two variants end by their requests, faster with each depth (the first
  // as the depth, the second as its 0.6th power), the proxy writing per reply ends by its
  // budget from -P 2 on. A loaded one: at -P 1 all three end by their budget.
  const auto quiet = lecture_sweep([](std::size_t v, double d) {
    return v == 0 ? 25'000 * d : v == 1 ? 25'000 * std::pow(d, 0.6) : d < 2 ? 22'000 : 500 * d;
  });
  const auto loaded = lecture_sweep([](std::size_t v, double d) {
    return v == 0   ? 16'000 * std::pow(d, 0.8)
           : v == 1 ? 12'000 * std::sqrt(d)
           : d < 2  ? 15'000
                    : 500 * d;
  });
  // The lecture plan's release build on this 2-core machine with nothing else running: direct
  // Redis grows about as the 0.6th power of the depth, the proxy coalescing a little more, and
  // the proxy writing per reply takes its whole budget at every depth from -P 2, most of the
  // sweep (a flat rate after one depth read 50% short at a quarter).
  const auto idle_rate = [](std::size_t v, double d) {
    return v == 0   ? 71'000 * std::pow(d, 0.6)
           : v == 1 ? 33'000 * std::pow(d, 0.75)
           : d < 2  ? 30'000
                    : 40 * d;
  };
  const auto idle = lecture_sweep(idle_rate);
  const std::pair<const char*, const std::vector<std::pair<double, double>>*> traces[] = {
      {"quiet", &quiet}, {"loaded", &loaded}, {"idle", &idle}};
  for (const auto& [name, trace] : traces)
    for (const double share : {0.25, 0.5, 0.75}) {
      const double real = trace->back().first * (1 - share);
      EXPECT_NEAR(test::time_left_at(*trace, share), real, 0.2 * real) << name << ", at " << share;
    }
  // Unprobed, the rate learned at -P 1 foretold a quick sweep: half the time left at a quarter.
  const auto unprobed = lecture_sweep(idle_rate, false);
  EXPECT_LT(test::time_left_at(unprobed, 0.25), 0.6 * unprobed.back().first * 0.75);
  // Counting every measurement alike, as the sweep did, read 30% long or more at a quarter.
  std::vector<std::pair<double, double>> alike = loaded;
  for (std::size_t i = 0; i + 1 < alike.size(); ++i)
    alike[i].second = 0.02 + 0.95 * static_cast<double>(i) / 90.0;
  EXPECT_GT(test::time_left_at(alike, 0.25), 1.3 * loaded.back().first * 0.75);
}

TEST(SweepProgress, NeverBackwardsAndExtraRoundsCountNoMore) {
  SweepProgress p({2, 1}, {1, 2}, 2, 0.5, 10'000, 0.1, 0.9);
  double last = 0;
  for (std::size_t t = 0; t < 2; ++t)
    for (std::size_t d = 0; d < 2; ++d)
      for (int r = 0; r < 3; ++r)  // a third round, as measuring to a precision may take
        for (std::size_t v = 0; v < (t == 0 ? 2u : 1u); ++v) {
          const double f = p.begin(t, d, v, r);
          EXPECT_GE(f, last);
          EXPECT_LE(f, 0.9);
          last = f;
          p.measured(t, d, v, 0.1 * static_cast<double>(r + 1), 1000);
        }
  EXPECT_DOUBLE_EQ(p.begin(0, 0, 0, 0), last);
}

TEST(SweepProgress, AVariantSizedByTimeIsExpectedFromItsSeconds) {
  SweepProgress p({2}, kDepths, 3, 1.5, 10'000, 0, 1);
  p.timed(0, 1, 4.0);
  EXPECT_DOUBLE_EQ(p.expected(0, 0, 1), 4.0);  // nothing measured: what it was told
  p.measured(0, 0, 1, 5.5, 4'000'000);         // sized its -n first
  p.measured(0, 0, 1, 3.5, 4'000'000);
  EXPECT_DOUBLE_EQ(p.expected(0, 0, 1), 4.5);  // the mean of its rounds
  // Its rate, 1,000,000 requests/s, does not foretell a deeper depth: its seconds do.
  EXPECT_DOUBLE_EQ(p.expected(0, 3, 1), 4.5);
  p.measured(0, 1, 1, 3.0, 9'000'000);
  EXPECT_DOUBLE_EQ(p.expected(0, 3, 1), 3.0);  // the deepest measured
  EXPECT_DOUBLE_EQ(p.expected(0, 0, 1), 4.5);
  p.timed(0, 2, 4.0);  // no such variant: nothing changes
  EXPECT_DOUBLE_EQ(p.expected(0, 0, 0), 1.5);
}

TEST(SweepProgress, TheTimeLeftHoldsBesideAVariantSizedByTime) {
  // A default sweep's depth: direct Redis ends by its requests, faster with each depth, and
  // redis-benchmark --cluster lasts about 4.5 s at every depth whatever its rate (its -n sized
  // to it), half of the sweep's time. Told so, the time left holds; taken as the rate it
  // measured, it read 40% short.
  const auto trace = [](bool told) {
    SweepProgress p({2}, kDepths, 3, 1.5, 10'000, 0.02, 0.97);
    if (told) p.timed(0, 1, 4.25);
    for (std::size_t d = 0; d < kDepths.size(); ++d)
      for (std::size_t v = 0; v < 2; ++v) {
        const double per_s = 50'000 * std::pow(static_cast<double>(kDepths[d]), 0.6);
        p.probed(0, d, v, 0, 0.05, static_cast<std::int64_t>(per_s * 0.05));
      }
    std::vector<std::pair<double, double>> out;
    double t = 0;
    for (std::size_t d = 0; d < kDepths.size(); ++d)
      for (int r = 0; r < 3; ++r)
        for (std::size_t v = 0; v < 2; ++v) {
          out.emplace_back(t, p.begin(0, d, v, r));
          const double per_s = 50'000 * std::pow(static_cast<double>(kDepths[d]), 0.6);
          const double s = v == 0 ? 10'000 / per_s : r == 0 ? 5.5 : 4.0;
          p.measured(0, d, v, s, static_cast<std::int64_t>(per_s * s));
          t += s;
        }
    out.emplace_back(t, 0.97);
    return out;
  };
  const auto told = trace(true), untold = trace(false);
  for (const double share : {0.25, 0.5, 0.75}) {
    const double real = told.back().first * (1 - share);
    EXPECT_NEAR(test::time_left_at(told, share), real, 0.2 * real) << "at " << share;
  }
  EXPECT_LT(test::time_left_at(untold, 0.5), 0.7 * untold.back().first * 0.5);
}
