#pragma once
// Summary statistics of raw samples.
#include <cstddef>
#include <span>

namespace perflab {

struct Stats {
  std::size_t n = 0;
  double min = 0, median = 0, mean = 0, p95 = 0, max = 0, stddev = 0;
};

// Statistics of the samples (median and p95 by linear interpolation between order
// statistics; stddev is the sample standard deviation, 0 for fewer than two samples).
Stats summarize(std::span<const double> samples);
// The same over samples already sorted ascending (no copy, no sort).
Stats summarize_sorted(std::span<const double> sorted);

// The q-quantile (0..1) of samples, linearly interpolated. Empty input gives 0.
double quantile(std::span<const double> samples, double q);
// The same over samples already sorted ascending (no copy, no sort).
double quantile_sorted(std::span<const double> sorted, double q);

}  // namespace perflab
