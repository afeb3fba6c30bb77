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
  // The median of a fresh resample of the samples, drawn without drawing the resample: its
  // k-th smallest value is the sample of rank floor(n * U(k)), U(k) the k-th smallest of n
  // uniforms, a Beta(k, n + 1 - k) variate (and the next one above it the smallest of the
  // n - k uniforms left above U(k)). The same distribution as operator() of draw_counts(), in
  // constant time instead of linear: what makes a bootstrap of 10^6 samples take milliseconds.
  double draw(Rng& rng) const;

 private:
  std::vector<double> sorted_;
  std::vector<std::size_t> order_;  // order_[k]: index of the k-th smallest sample
};

// Above this many samples a bootstrap of a median draws it (ResampledMedian::draw) rather than
// draw_counts and operator(): at 64 samples the two cost about the same.
inline constexpr std::size_t kDrawMedianAbove = 64;

// A uniform variate in (0, 1), never 0 or 1; a standard normal one (Box-Muller); a Gamma(shape)
// one, shape >= 1 (Marsaglia and Tsang 2000); a Beta(a, b) one, a, b >= 1, from two Gammas.
// Written here, not std::gamma_distribution: the standard leaves a distribution's algorithm to
// each library, and a run's intervals must come out the same from the same Rng everywhere.
double uniform(Rng& rng);
double normal(Rng& rng);
double gamma(Rng& rng, double shape);
double beta(Rng& rng, double a, double b);

// Draws a resample of n indices into counts (resized to n).
void draw_counts(Rng& rng, std::size_t n, std::vector<std::uint32_t>& counts);

// The percentile interval of bootstrap replicates at `level`: the order statistics at
// floor((B-1)(1-level)/2) and ceil((B-1)(1+level)/2) (0-based; no interpolation, so infinite
// replicates cannot produce a NaN bound). Reorders replicates.
std::pair<double, double> percentile_interval(std::vector<double>& replicates, double level);

}  // namespace perflab::resample
