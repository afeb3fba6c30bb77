#pragma once
// Internals of the seeded bootstrap shared by confidence.cpp and significance.cpp: a small
// generator whose sequence is fixed by its seed on every platform (the standard library's
// distributions are not), a seed derived from the samples' bits, the median of a resample
// given how often each sample was drawn, and the percentile interval of bootstrap replicates.
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace perflab::resample {

// SplitMix64 (Steele, Lea, Flood 2014): a 64-bit state advanced by a fixed odd constant and
// a bijective mix of it.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  // Uniform in [0, n) for 0 < n < 2^32, without bias (Lemire's multiply-shift with rejection).
  std::size_t below(std::size_t n);

 private:
  std::uint64_t state_;
};

// FNV-1a over the bit patterns of every sample of every series (and the series' sizes):
// the same data, as a run file stores it, always gives the same seed.
std::uint64_t data_seed(std::span<const std::span<const double>> series);

// The median of a resample of `samples` in which sample i was drawn counts[i] times
// (the counts sum to samples.size()), as summarize() computes a median: the middle value,
// or halfway between the two middle ones. Linear in n: no sorting per resample.
class ResampledMedian {
 public:
  explicit ResampledMedian(std::span<const double> samples);
  double operator()(std::span<const std::uint32_t> counts) const;
  std::size_t size() const { return order_.size(); }

 private:
  std::vector<double> sorted_;
  std::vector<std::size_t> order_;  // order_[k]: index of the k-th smallest sample
};

// Draws a resample of n indices into counts (resized to n).
void draw_counts(Rng& rng, std::size_t n, std::vector<std::uint32_t>& counts);

// The percentile interval of bootstrap replicates at `level`: the order statistics at
// floor((B-1)(1-level)/2) and ceil((B-1)(1+level)/2) (0-based; no interpolation, so infinite
// replicates cannot produce a NaN bound). Reorders replicates.
std::pair<double, double> percentile_interval(std::vector<double>& replicates, double level);

}  // namespace perflab::resample
