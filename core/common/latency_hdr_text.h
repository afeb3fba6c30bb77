#pragma once
// HdrHistogram's percentile-distribution text (outputPercentileDistribution): the table
// "Value Percentile TotalCount 1/(1-Percentile)" stepping through percentiles ever closer to
// 100% (ticks per half distance), then the #[Mean ...] / #[Max ...] / #[Buckets ...] footer.
// HdrHistogram's plotter reads it. Columns, widths and the iteration are HdrHistogram's: a
// value is the highest equivalent of its bucket, mean and standard deviation are taken over the
// buckets' middles, Max is the highest equivalent of the maximum's bucket, and the last line
// (100%) has no 1/(1-Percentile) column.
#include <string>

#include "common/latency_recorder.h"

namespace perflab {

// value_scale divides the recorded nanoseconds: 1e6 prints milliseconds (HdrHistogram's
// outputValueUnitScalingRatio). An empty recorder gives the header and the footer only.
// Throws std::invalid_argument for ticks_per_half_distance < 1 or value_scale <= 0.
std::string hdr_percentile_distribution(const LatencyRecorder& r, int ticks_per_half_distance = 5,
                                        double value_scale = 1e6);

}  // namespace perflab
