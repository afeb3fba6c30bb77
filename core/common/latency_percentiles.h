#pragma once
// Tail percentiles of latency with their intervals over rounds: p50, p90, p99, p99.9, p99.99
// and max of every round's recorder, the pooled figure of all rounds merged, and the median
// over rounds with its distribution-free order-statistic interval (median_ci, confidence.h).
#include <array>
#include <span>
#include <string>
#include <vector>

#include "common/confidence.h"
#include "common/latency_recorder.h"

namespace perflab {

// The quantiles reported, in order; 1 is the maximum.
inline constexpr std::array<double, 6> kLatencyQuantiles{0.5, 0.9, 0.99, 0.999, 0.9999, 1.0};
// "p50", "p90", "p99", "p99.9", "p99.99", "max".
std::string latency_quantile_label(double q);

struct LatencyPercentile {
  double quantile = 0;  // one of kLatencyQuantiles
  // Of all rounds merged: the figure of every value measured (what HdrHistogram would report).
  double pooled_ns = 0;
  // The median over rounds of each round's figure with its order-statistic interval at the
  // level asked (its real level in across_rounds.level, e.g. 0.9375 and full_level = false for
  // 5 rounds; no interval for one round). Rounds without values are left out.
  Estimate across_rounds;
};

// One entry per kLatencyQuantiles, in that order; figures in nanoseconds.
std::vector<LatencyPercentile> latency_percentiles(std::span<const LatencyRecorder> rounds,
                                                   double level = 0.95);

}  // namespace perflab
