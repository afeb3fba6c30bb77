// Tail percentiles of latency over rounds: pooled figures and the median over rounds with its
// order-statistic interval.
#include "common/latency_percentiles.h"

#include <cstdio>

namespace perflab {

std::string latency_quantile_label(double q) {
  if (q >= 1.0) return "max";
  char buf[32];
  std::snprintf(buf, sizeof buf, "p%g", q * 100.0);
  return buf;
}

std::vector<LatencyPercentile> latency_percentiles(std::span<const LatencyRecorder> rounds,
                                                   double level) {
  LatencyRecorder pooled;
  for (const auto& r : rounds) pooled.merge(r);
  std::vector<LatencyPercentile> out;
  for (const double q : kLatencyQuantiles) {
    std::vector<double> per_round;
    for (const auto& r : rounds)
      if (r.count() > 0) per_round.push_back(static_cast<double>(r.value_at_quantile_ns(q)));
    LatencyPercentile p;
    p.quantile = q;
    p.pooled_ns = static_cast<double>(pooled.value_at_quantile_ns(q));
    p.across_rounds = median_ci(per_round, level);
    out.push_back(p);
  }
  return out;
}

}  // namespace perflab
