#pragma once
// A latency recorder after HdrHistogram's design: log-linear buckets of integer nanoseconds,
// three significant digits from 1 ns to 68.7 s, constant-time recording without allocation,
// mergeable across threads and rounds.
//
// Layout (HdrHistogram's, with a lowest discernible value of 1 ns and 3 significant digits):
// a value is kept with 2048 sub-buckets per power of two; values below 2048 ns are exact, above
// that a bucket [2^k * s, 2^k * (s + 1)) with 1024 <= s < 2048 is 2^k ns wide, so any value in
// it is within 1/1024 (< 1/1000) of any other. 26 buckets of 1024 sub-buckets (the first one of
// 2048) cover 0 .. kHighestTrackableNs = 2048 * 2^25 - 1 ns (68.7 s, above the 60 s asked for)
// in 27,648 counters.
//
// Out of range: a negative value is recorded as 0 and one above kHighestTrackableNs as
// kHighestTrackableNs; clamped() counts both. count, min, max, mean and every percentile then
// describe the clamped values, so they always agree with the buckets; clamped() says how far
// to trust the top.
//
// Percentiles use the nearest rank (the smallest value with at least a share q of the values at
// or below it, as HdrHistogram) and report the highest value equivalent to its bucket, capped
// at the exact maximum: at most 1/1024 above the true order statistic, never below it.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace perflab {

class LatencyRecorder {
 public:
  static constexpr int kSignificantDigits = 3;
  static constexpr int kSubBucketHalfCountMagnitude = 10;
  static constexpr std::int64_t kSubBucketHalfCount = std::int64_t{1}
                                                      << kSubBucketHalfCountMagnitude;  // 1024
  static constexpr std::int64_t kSubBucketCount = 2 * kSubBucketHalfCount;              // 2048
  static constexpr int kBucketCount = 26;
  static constexpr std::size_t kCountsLength =
      static_cast<std::size_t>((kBucketCount + 1) * kSubBucketHalfCount);  // 27,648
  static constexpr std::int64_t kHighestTrackableNs =
      (kSubBucketCount << (kBucketCount - 1)) - 1;  // 68,719,476,735 ns
  // The most values a recorder rebuilt from its parts holds (from_parts): 2^53, one a
  // nanosecond for 104 days, so that every count and rank is exact as a double.
  static constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 53;
  // The largest relative distance between two values of one bucket (the stated precision).
  static constexpr double kRelativePrecision = 1.0 / static_cast<double>(kSubBucketHalfCount);

  LatencyRecorder();  // allocates the counters (216 KiB) once

  // O(1), no allocation: a few shifts and one increment.
  void record_ns(std::int64_t ns) { record_ns(ns, 1); }
  void record_ns(std::int64_t ns, std::uint64_t times);
  // As if every value of `other` had been recorded here.
  void merge(const LatencyRecorder& other);
  void reset();

  std::uint64_t count() const { return count_; }
  std::uint64_t clamped() const { return clamped_; }  // values outside 0 .. kHighestTrackableNs
  std::int64_t min_ns() const { return count_ ? min_ : 0; }  // exact (of the clamped values)
  std::int64_t max_ns() const { return max_; }               // exact; 0 when empty
  double mean_ns() const;                                    // exact (from the sum)
  std::uint64_t sum_ns() const { return sum_; }
  // The value at quantile q (0..1), see above; 0 when empty.
  std::int64_t value_at_quantile_ns(double q) const;
  // The same with q in percent (HdrHistogram's getValueAtPercentile).
  std::int64_t value_at_percentile_ns(double percent) const {
    return value_at_quantile_ns(percent / 100.0);
  }

  // Mean and standard deviation over the buckets, each value taken at the middle of its bucket
  // (HdrHistogram's getMean/getStdDeviation, which its percentile-distribution footer prints).
  double bucket_mean_ns() const;
  double bucket_stddev_ns() const;

  // The counters: index i holds the values lowest_equivalent_ns(i) .. highest_equivalent_ns(i).
  std::uint64_t count_at_index(std::size_t i) const { return counts_[i]; }
  std::size_t last_nonzero_index() const;  // kCountsLength when empty
  static std::size_t index_of(std::int64_t ns);
  static std::int64_t lowest_equivalent_ns(std::size_t index);
  static std::int64_t highest_equivalent_ns(std::size_t index);

  // A non-zero bucket with its value range, in ascending order.
  struct Bucket {
    std::size_t index = 0;
    std::int64_t lowest_ns = 0, highest_ns = 0;
    std::uint64_t count = 0;
  };
  std::vector<Bucket> nonzero_buckets() const;

  // Rebuilds a recorder from its counters and exact figures (what the run file keeps); throws
  // std::invalid_argument when they do not agree (a counter beyond the layout, min or max
  // outside the buckets that hold values) or hold more than kMaxCount values.
  static LatencyRecorder from_parts(const std::vector<std::uint64_t>& counts, std::uint64_t clamped,
                                    std::int64_t min_ns, std::int64_t max_ns, std::uint64_t sum_ns);
  // The same into this recorder, reusing its counters (no allocation): reading many rounds
  // one after the other allocates once. Empty when it throws.
  void assign_parts(const std::vector<std::uint64_t>& counts, std::uint64_t clamped,
                    std::int64_t min_ns, std::int64_t max_ns, std::uint64_t sum_ns);

  bool operator==(const LatencyRecorder& o) const = default;

  // The load generator's microsecond interface (what sharding::LatencyHistogram offered).
  void record(std::int64_t us) { record_ns(us_to_ns(us)); }
  double mean_us() const { return mean_ns() / 1000.0; }
  std::int64_t min_us() const { return min_ns() / 1000; }
  std::int64_t max_us() const { return max_ns() / 1000; }
  std::int64_t quantile_us(double q) const { return value_at_quantile_ns(q) / 1000; }

 private:
  static std::int64_t us_to_ns(std::int64_t us) {
    return us > kHighestTrackableNs / 1000 ? kHighestTrackableNs + 1 : us * 1000;
  }
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0, clamped_ = 0, sum_ = 0;
  std::int64_t min_ = 0, max_ = 0;
};

// The 1-based nearest rank of quantile q (0..1) among n values: ceil(q * n), at least 1 and at
// most n, robust to q * n being a hair above an integer in floating point (0.999 * 1e6).
std::uint64_t nearest_rank(double q, std::uint64_t n);

}  // namespace perflab
