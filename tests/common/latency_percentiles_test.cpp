// Tail percentiles over rounds: the pooled figure and the median over rounds with its interval.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "common/latency_percentiles.h"

using namespace perflab;

TEST(LatencyPercentiles, PooledFigureAndMedianOverRoundsWithItsInterval) {
  std::vector<LatencyRecorder> rounds(5);
  std::mt19937_64 rng(5);
  for (std::size_t k = 0; k < rounds.size(); ++k) {
    // Each round a little slower than the one before, so the rounds' figures differ.
    std::exponential_distribution<double> e(1.0 / (100e3 * (1.0 + 0.1 * static_cast<double>(k))));
    for (int i = 0; i < 20000; ++i) rounds[k].record_ns(std::llround(e(rng)) + 1000);
  }
  LatencyRecorder all;
  for (const auto& r : rounds) all.merge(r);
  const auto ps = latency_percentiles(rounds);
  ASSERT_EQ(ps.size(), kLatencyQuantiles.size());
  std::vector<std::string> labels;
  for (const auto& p : ps) labels.push_back(latency_quantile_label(p.quantile));
  EXPECT_EQ(labels, (std::vector<std::string>{"p50", "p90", "p99", "p99.9", "p99.99", "max"}));
  for (const auto& p : ps) {
    std::vector<double> per_round;
    for (const auto& r : rounds)
      per_round.push_back(static_cast<double>(r.value_at_quantile_ns(p.quantile)));
    std::sort(per_round.begin(), per_round.end());
    EXPECT_EQ(p.pooled_ns, static_cast<double>(all.value_at_quantile_ns(p.quantile)));
    EXPECT_EQ(p.across_rounds.value, per_round[2]);
    // Five rounds: the order-statistic interval is [min, max] at its exact level 93.75%.
    EXPECT_EQ(p.across_rounds.method, CiMethod::OrderStatistic);
    EXPECT_EQ(p.across_rounds.lo, per_round.front());
    EXPECT_EQ(p.across_rounds.hi, per_round.back());
    EXPECT_DOUBLE_EQ(p.across_rounds.level, 0.9375);
    EXPECT_FALSE(p.across_rounds.full_level);
    EXPECT_EQ(p.across_rounds.n, 5u);
    EXPECT_LT(p.across_rounds.lo, p.across_rounds.hi);
  }
  EXPECT_EQ(ps.back().pooled_ns, static_cast<double>(all.max_ns()));
  // One round: its figures, without an interval; no rounds: nothing measured.
  const auto one = latency_percentiles(std::span(rounds).first(1));
  EXPECT_FALSE(one[0].across_rounds.has_interval());
  EXPECT_EQ(one[0].across_rounds.value, static_cast<double>(rounds[0].value_at_quantile_ns(0.5)));
  EXPECT_EQ(latency_percentiles({})[0].across_rounds.n, 0u);
}
