// The latency recorder: HdrHistogram's log-linear index arithmetic, recording, merging and
// percentiles (layout and rules in latency_recorder.h).
#include "common/latency_recorder.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace perflab {

namespace {
constexpr std::int64_t kSubBucketMask = LatencyRecorder::kSubBucketCount - 1;
}  // namespace

std::uint64_t nearest_rank(double q, std::uint64_t n) {
  if (n == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  const double r = q * static_cast<double>(n);
  // 0.999 * 1e6 is 999000.0000000001 in binary floating point: a hair is not a rank.
  const double k = std::ceil(r - r * 1e-12);
  if (k < 1) return 1;
  return std::min(n, static_cast<std::uint64_t>(k));
}

LatencyRecorder::LatencyRecorder() : counts_(kCountsLength, 0) {}

std::size_t LatencyRecorder::index_of(std::int64_t ns) {
  // The power of two above the sub-buckets (0 for values below 2048 ns), then the position in it.
  const int bucket = 63 - __builtin_clzll(static_cast<unsigned long long>(ns | kSubBucketMask)) -
                     kSubBucketHalfCountMagnitude;
  const std::int64_t sub = ns >> bucket;
  return static_cast<std::size_t>(((std::int64_t{bucket} + 1) << kSubBucketHalfCountMagnitude) +
                                  sub - kSubBucketHalfCount);
}

std::int64_t LatencyRecorder::lowest_equivalent_ns(std::size_t index) {
  const auto i = static_cast<std::int64_t>(index);
  std::int64_t bucket = (i >> kSubBucketHalfCountMagnitude) - 1;
  std::int64_t sub = (i & (kSubBucketHalfCount - 1)) + kSubBucketHalfCount;
  if (bucket < 0) {
    sub -= kSubBucketHalfCount;
    bucket = 0;
  }
  return sub << bucket;
}

std::int64_t LatencyRecorder::highest_equivalent_ns(std::size_t index) {
  const auto i = static_cast<std::int64_t>(index);
  const std::int64_t bucket = std::max<std::int64_t>(0, (i >> kSubBucketHalfCountMagnitude) - 1);
  return lowest_equivalent_ns(index) + (std::int64_t{1} << bucket) - 1;
}

void LatencyRecorder::record_ns(std::int64_t ns, std::uint64_t times) {
  if (static_cast<std::uint64_t>(ns) > static_cast<std::uint64_t>(kHighestTrackableNs)) {
    ns = ns < 0 ? 0 : kHighestTrackableNs;
    clamped_ += times;
  }
  counts_[index_of(ns)] += times;
  if (count_ == 0 || ns < min_) min_ = ns;
  if (ns > max_) max_ = ns;
  count_ += times;
  sum_ += static_cast<std::uint64_t>(ns) * times;
}

void LatencyRecorder::merge(const LatencyRecorder& other) {
  if (other.count_ == 0) return;
  for (std::size_t i = 0; i <= other.last_nonzero_index(); ++i) counts_[i] += other.counts_[i];
  min_ = count_ == 0 ? other.min_ : std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  count_ += other.count_;
  clamped_ += other.clamped_;
  sum_ += other.sum_;
}

void LatencyRecorder::reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = clamped_ = sum_ = 0;
  min_ = max_ = 0;
}

double LatencyRecorder::mean_ns() const {
  return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0;
}

std::size_t LatencyRecorder::last_nonzero_index() const {
  if (count_ == 0) return kCountsLength;
  return index_of(max_);
}

std::int64_t LatencyRecorder::value_at_quantile_ns(double q) const {
  if (count_ == 0) return 0;
  const std::uint64_t rank = nearest_rank(q, count_);
  if (rank == 1) return min_;
  if (rank == count_) return max_;
  std::uint64_t seen = 0;
  for (std::size_t i = index_of(min_); i < kCountsLength; ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::min(highest_equivalent_ns(i), max_);
  }
  return max_;
}

namespace {
double median_equivalent_ns(std::size_t index) {
  const std::int64_t lo = LatencyRecorder::lowest_equivalent_ns(index);
  return static_cast<double>(lo + (LatencyRecorder::highest_equivalent_ns(index) - lo + 1) / 2);
}
}  // namespace

double LatencyRecorder::bucket_mean_ns() const {
  if (count_ == 0) return 0;
  double total = 0;
  for (const Bucket& b : nonzero_buckets())
    total += median_equivalent_ns(b.index) * static_cast<double>(b.count);
  return total / static_cast<double>(count_);
}

double LatencyRecorder::bucket_stddev_ns() const {
  if (count_ == 0) return 0;
  const double mean = bucket_mean_ns();
  double total = 0;
  for (const Bucket& b : nonzero_buckets()) {
    const double d = median_equivalent_ns(b.index) - mean;
    total += d * d * static_cast<double>(b.count);
  }
  return std::sqrt(total / static_cast<double>(count_));
}

std::vector<LatencyRecorder::Bucket> LatencyRecorder::nonzero_buckets() const {
  std::vector<Bucket> out;
  if (count_ == 0) return out;
  for (std::size_t i = index_of(min_); i <= last_nonzero_index(); ++i)
    if (counts_[i] != 0)
      out.push_back({i, lowest_equivalent_ns(i), highest_equivalent_ns(i), counts_[i]});
  return out;
}

LatencyRecorder LatencyRecorder::from_parts(const std::vector<std::uint64_t>& counts,
                                            std::uint64_t clamped, std::int64_t min_ns,
                                            std::int64_t max_ns, std::uint64_t sum_ns) {
  LatencyRecorder r;
  r.assign_parts(counts, clamped, min_ns, max_ns, sum_ns);
  return r;
}

void LatencyRecorder::assign_parts(const std::vector<std::uint64_t>& counts, std::uint64_t clamped,
                                   std::int64_t min_ns, std::int64_t max_ns, std::uint64_t sum_ns) {
  if (counts.size() > kCountsLength)
    throw std::invalid_argument("latency recorder: more counters than its layout has");
  // Only the counters between min and max hold values: the rest are zero already.
  if (count_ != 0)
    std::fill(counts_.begin() + static_cast<std::ptrdiff_t>(index_of(min_)),
              counts_.begin() + static_cast<std::ptrdiff_t>(last_nonzero_index()) + 1, 0);
  count_ = clamped_ = sum_ = 0;
  min_ = max_ = 0;
  const auto refuse = [this](const char* why) {
    reset();
    throw std::invalid_argument(why);
  };
  std::size_t first = kCountsLength, last = kCountsLength;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    if (first == kCountsLength) first = i;
    last = i;
    if (counts[i] > kMaxCount - count_)
      refuse("latency recorder: its counters sum to more than 2^53 values");
    counts_[i] = counts[i];
    count_ += counts[i];
  }
  if (count_ == 0) {
    if (clamped != 0 || min_ns != 0 || max_ns != 0 || sum_ns != 0)
      refuse("latency recorder: figures without values");
    return;
  }
  if (min_ns < 0 || max_ns > kHighestTrackableNs || min_ns > max_ns || index_of(min_ns) != first ||
      index_of(max_ns) != last || clamped > count_)
    refuse("latency recorder: min/max do not match its counters");
  clamped_ = clamped;
  min_ = min_ns;
  max_ = max_ns;
  sum_ = sum_ns;
}

}  // namespace perflab
