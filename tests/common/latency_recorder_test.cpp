// The latency recorder against exact percentiles of a million random values from several
// distributions, merging across threads, and the edge cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "common/latency_recorder.h"
#include "latency_samples.h"

using namespace perflab;
using perflab::test::draw;
using perflab::test::kSecond;
using perflab::test::kUs;
using perflab::test::kValues;

namespace {

// The stated precision: three significant digits.
constexpr double kPrecision = 1.0 / 1000;

class Distribution : public ::testing::TestWithParam<const char*> {};

}  // namespace

TEST_P(Distribution, PercentilesWithinThreeSignificantDigitsOfTheExactOnes) {
  std::vector<std::int64_t> v = draw(GetParam(), 42);
  LatencyRecorder r;
  for (const auto x : v) r.record_ns(x);
  std::sort(v.begin(), v.end());
  ASSERT_EQ(r.count(), kValues);
  EXPECT_EQ(r.clamped(), 0u);
  EXPECT_EQ(r.min_ns(), v.front());
  EXPECT_EQ(r.max_ns(), v.back());
  long double sum = 0;
  for (const auto x : v) sum += static_cast<long double>(x);
  EXPECT_NEAR(r.mean_ns(), static_cast<double>(sum / kValues), 1e-9 * r.mean_ns());
  for (const double q : {0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1.0}) {
    const std::int64_t exact = v[nearest_rank(q, kValues) - 1];
    const std::int64_t got = r.value_at_quantile_ns(q);
    // Never below the true order statistic, and within the precision above it.
    EXPECT_GE(got, exact) << GetParam() << " q=" << q;
    EXPECT_LE(static_cast<double>(got - exact), kPrecision * static_cast<double>(exact))
        << GetParam() << " q=" << q << " exact=" << exact << " got=" << got;
  }
  EXPECT_EQ(r.value_at_quantile_ns(1.0), v.back());
  EXPECT_EQ(r.value_at_percentile_ns(99.9), r.value_at_quantile_ns(0.999));
  // The buckets hold every value, in order, each within its bucket's range.
  std::uint64_t in_buckets = 0;
  std::int64_t previous = -1;
  for (const auto& b : r.nonzero_buckets()) {
    EXPECT_GT(b.lowest_ns, previous);
    previous = b.highest_ns;
    in_buckets += b.count;
  }
  EXPECT_EQ(in_buckets, kValues);
}

INSTANTIATE_TEST_SUITE_P(LatencyRecorder, Distribution,
                         ::testing::Values("uniform", "log-uniform", "exponential", "bimodal"));

TEST(LatencyRecorder, EveryBucketIsNarrowerThanTheStatedPrecision) {
  // Walk values across the whole range 1 us .. 60 s: a bucket's width relative to its lowest
  // value is at most 1/1024 — and not coarser: at 2 digits it would be 1/128.
  for (std::int64_t v = kUs; v <= 60 * kSecond; v += v / 997 + 1) {
    const std::size_t i = LatencyRecorder::index_of(v);
    const std::int64_t lo = LatencyRecorder::lowest_equivalent_ns(i);
    const std::int64_t hi = LatencyRecorder::highest_equivalent_ns(i);
    ASSERT_LE(lo, v);
    ASSERT_GE(hi, v);
    ASSERT_LE(static_cast<double>(hi - lo), kPrecision * static_cast<double>(lo)) << v;
    ASSERT_EQ(LatencyRecorder::index_of(lo), i);
    ASSERT_EQ(LatencyRecorder::index_of(hi), i);
    ASSERT_EQ(LatencyRecorder::index_of(hi + 1), i + 1);
  }
  EXPECT_EQ(LatencyRecorder::index_of(LatencyRecorder::kHighestTrackableNs),
            LatencyRecorder::kCountsLength - 1);
  EXPECT_GE(LatencyRecorder::kHighestTrackableNs, 60 * kSecond);
  // Below 2048 ns every value has a bucket of its own.
  for (std::int64_t v = 0; v < 2048; ++v)
    ASSERT_EQ(LatencyRecorder::lowest_equivalent_ns(LatencyRecorder::index_of(v)), v);
}

TEST(LatencyRecorder, MergeOfRecordersFromThreadsEqualsOneThatRecordedAll) {
  const std::vector<std::int64_t> v = draw("bimodal", 7);
  constexpr std::size_t kThreads = 7;
  std::vector<LatencyRecorder> parts(kThreads);
  {
    std::vector<std::jthread> threads;
    for (std::size_t t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        for (std::size_t i = t; i < v.size(); i += kThreads) parts[t].record_ns(v[i]);
      });
  }
  LatencyRecorder all, merged;
  for (const auto x : v) all.record_ns(x);
  for (const auto& p : parts) merged.merge(p);
  EXPECT_EQ(merged, all);
  EXPECT_EQ(merged.value_at_quantile_ns(0.9999), all.value_at_quantile_ns(0.9999));
  EXPECT_NE(parts[0], all);
  LatencyRecorder empty;
  merged.merge(empty);
  EXPECT_EQ(merged, all);
  empty.merge(all);
  EXPECT_EQ(empty, all);
}

TEST(LatencyRecorder, EmptyAndOneValue) {
  LatencyRecorder r;
  EXPECT_EQ(r.count(), 0u);
  EXPECT_EQ(r.value_at_quantile_ns(0.5), 0);
  EXPECT_EQ(r.min_ns(), 0);
  EXPECT_EQ(r.max_ns(), 0);
  EXPECT_EQ(r.mean_ns(), 0);
  EXPECT_EQ(r.bucket_stddev_ns(), 0);
  EXPECT_TRUE(r.nonzero_buckets().empty());
  EXPECT_EQ(r.last_nonzero_index(), LatencyRecorder::kCountsLength);

  r.record_ns(123'456'789);
  for (const double q : {0.0, 0.5, 0.9999, 1.0}) EXPECT_EQ(r.value_at_quantile_ns(q), 123'456'789);
  EXPECT_EQ(r.min_ns(), 123'456'789);
  EXPECT_EQ(r.mean_ns(), 123'456'789);
  ASSERT_EQ(r.nonzero_buckets().size(), 1u);
  r.reset();
  EXPECT_EQ(r, LatencyRecorder());
}

TEST(LatencyRecorder, ValuesAtAndBeyondTheRangeEndsAreClampedAndCounted) {
  LatencyRecorder r;
  r.record_ns(0);
  r.record_ns(LatencyRecorder::kHighestTrackableNs);
  EXPECT_EQ(r.clamped(), 0u);
  r.record_ns(-5);
  r.record_ns(LatencyRecorder::kHighestTrackableNs + 1);
  r.record_ns(std::numeric_limits<std::int64_t>::max(), 2);
  EXPECT_EQ(r.count(), 6u);
  EXPECT_EQ(r.clamped(), 4u);
  EXPECT_EQ(r.min_ns(), 0);
  EXPECT_EQ(r.max_ns(), LatencyRecorder::kHighestTrackableNs);
  EXPECT_EQ(r.count_at_index(0), 2u);
  EXPECT_EQ(r.count_at_index(LatencyRecorder::kCountsLength - 1), 4u);
  EXPECT_EQ(r.value_at_quantile_ns(0.5), LatencyRecorder::kHighestTrackableNs);
  EXPECT_EQ(r.value_at_quantile_ns(0.2), 0);
  // The load generator's microsecond interface clamps the same way, without overflowing.
  LatencyRecorder us;
  us.record(std::numeric_limits<std::int64_t>::max());
  us.record(-1);
  us.record(250);
  EXPECT_EQ(us.clamped(), 2u);
  EXPECT_EQ(us.quantile_us(1.0), LatencyRecorder::kHighestTrackableNs / 1000);
  EXPECT_EQ(us.quantile_us(0.5), 250);
  EXPECT_EQ(us.min_us(), 0);
}
