// HdrHistogram's percentile-distribution text from a latency recorder.
#include "common/latency_hdr_text.h"

#include <cstdio>
#include <stdexcept>

#include "common/latency_curve.h"

namespace perflab {

namespace {

template <typename... A>
void append(std::string& out, const char* format, A... args) {
  char buf[160];
  const int n = std::snprintf(buf, sizeof buf, format, args...);
  if (n > 0) out.append(buf, static_cast<std::size_t>(n) < sizeof buf ? n : sizeof buf - 1);
}

}  // namespace

std::string hdr_percentile_distribution(const LatencyRecorder& r, int ticks_per_half_distance,
                                        double value_scale) {
  if (ticks_per_half_distance < 1 || !(value_scale > 0))
    throw std::invalid_argument("percentile distribution: ticks >= 1 and a positive scale");
  const int digits = LatencyRecorder::kSignificantDigits;
  std::string out;
  append(out, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)");
  const std::uint64_t total = r.count();
  if (total > 0) {
    for (const auto& step : percentile_steps(r, ticks_per_half_distance)) {
      const double p = step.percent / 100.0;
      append(out, "%12.*f %2.12f %10llu %14.2f\n", digits,
             static_cast<double>(step.value_ns) / value_scale, p,
             static_cast<unsigned long long>(step.cumulative), 1.0 / (1.0 - p));
    }
    const std::size_t last = r.last_nonzero_index();
    append(out, "%12.*f %2.12f %10llu\n", digits,
           static_cast<double>(LatencyRecorder::highest_equivalent_ns(last)) / value_scale, 1.0,
           static_cast<unsigned long long>(total));
  }
  const double max =
      total ? static_cast<double>(LatencyRecorder::highest_equivalent_ns(r.last_nonzero_index()))
            : 0.0;
  append(out, "#[Mean    = %12.*f, StdDeviation   = %12.*f]\n", digits,
         r.bucket_mean_ns() / value_scale, digits, r.bucket_stddev_ns() / value_scale);
  append(out, "#[Max     = %12.*f, Total count    = %12llu]\n", digits, max / value_scale,
         static_cast<unsigned long long>(total));
  append(out, "#[Buckets = %12d, SubBuckets     = %12d]\n", LatencyRecorder::kBucketCount,
         static_cast<int>(LatencyRecorder::kSubBucketCount));
  return out;
}

}  // namespace perflab
