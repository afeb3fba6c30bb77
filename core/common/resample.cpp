#include "common/resample.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace perflab::resample {

std::uint64_t Rng::next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::size_t Rng::below(std::size_t n) {
  // Lemire's multiply-shift on 32 bits: the high half of r * n is uniform in [0, n) once the
  // few r whose low half falls below 2^32 mod n are rejected. Sample counts fit in 32 bits.
  const auto range = static_cast<std::uint32_t>(n);
  std::uint64_t m = (next() >> 32) * range;
  if (static_cast<std::uint32_t>(m) < range) {
    const std::uint32_t skip = (0U - range) % range;
    while (static_cast<std::uint32_t>(m) < skip) m = (next() >> 32) * range;
  }
  return static_cast<std::size_t>(m >> 32);
}

std::uint64_t data_seed(std::span<const std::span<const double>> series) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64-bit offset basis
  auto mix = [&h](std::uint64_t word) {
    for (int i = 0; i < 8; ++i) {
      h ^= (word >> (8 * i)) & 0xffU;
      h *= 0x100000001b3ULL;  // FNV prime
    }
  };
  for (const auto& s : series) {
    mix(s.size());
    for (double v : s) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &v, sizeof bits);
      mix(bits);
    }
  }
  return h;
}

ResampledMedian::ResampledMedian(std::span<const double> samples)
    : sorted_(samples.begin(), samples.end()), order_(samples.size()) {
  std::iota(order_.begin(), order_.end(), std::size_t{0});
  std::stable_sort(order_.begin(), order_.end(),
                   [&](std::size_t a, std::size_t b) { return samples[a] < samples[b]; });
  for (std::size_t k = 0; k < order_.size(); ++k) sorted_[k] = samples[order_[k]];
}

double ResampledMedian::operator()(std::span<const std::uint32_t> counts) const {
  const std::size_t n = order_.size();
  if (n == 0) return 0;
  // 0-based positions of the two middle values of the resample (equal for odd n).
  const std::size_t lo_pos = (n - 1) / 2, hi_pos = n / 2;
  const std::uint32_t* c = counts.data();
  const std::size_t* order = order_.data();
  std::size_t seen = 0, k = 0;
  while (seen + c[order[k]] <= lo_pos) seen += c[order[k++]];
  const double lo = sorted_[k];
  while (seen + c[order[k]] <= hi_pos) seen += c[order[k++]];
  return lo + (sorted_[k] - lo) * 0.5;
}

double uniform(Rng& rng) {
  return (static_cast<double>(rng.next() >> 11) + 0.5) * 0x1p-53;
}

double normal(Rng& rng) {
  constexpr double kTwoPi = 6.283185307179586;
  return std::sqrt(-2 * std::log(uniform(rng))) * std::cos(kTwoPi * uniform(rng));
}

double gamma(Rng& rng, double shape) {
  const double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  for (;;) {
    const double x = normal(rng), t = 1 + c * x;
    if (t <= 0) continue;
    const double v = t * t * t;
    if (std::log(uniform(rng)) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

double beta(Rng& rng, double a, double b) {
  const double x = gamma(rng, a);
  return x / (x + gamma(rng, b));
}

double ResampledMedian::draw(Rng& rng) const {
  const std::size_t n = sorted_.size();
  if (n == 0) return 0;
  const double dn = static_cast<double>(n);
  const auto at = [&](double u) {
    return sorted_[std::min(n - 1, static_cast<std::size_t>(dn * u))];
  };
  // 1-based rank k of the lower middle value; for odd n it is the median.
  const std::size_t k = (n + 1) / 2;
  const double u = beta(rng, static_cast<double>(k), static_cast<double>(n + 1 - k));
  const double lo = at(u);
  if (n % 2 == 1) return lo;
  // The smallest of the n - k uniforms above u: u + (1 - u) (1 - V^(1 / (n - k))).
  const double above =
      u + (1 - u) * -std::expm1(std::log(uniform(rng)) / static_cast<double>(n - k));
  return lo + (at(above) - lo) * 0.5;
}

void draw_counts(Rng& rng, std::size_t n, std::vector<std::uint32_t>& counts) {
  counts.assign(n, 0);
  std::uint32_t* c = counts.data();
  for (std::size_t i = 0; i < n; ++i) ++c[rng.below(n)];
}

std::pair<double, double> percentile_interval(std::vector<double>& replicates, double level) {
  if (replicates.empty()) return {0, 0};
  const double last = static_cast<double>(replicates.size() - 1);
  const auto lo_i = static_cast<std::size_t>(std::floor(last * (1 - level) / 2));
  const auto hi_i =
      std::min(replicates.size() - 1, static_cast<std::size_t>(std::ceil(last * (1 + level) / 2)));
  std::nth_element(replicates.begin(), replicates.begin() + static_cast<std::ptrdiff_t>(lo_i),
                   replicates.end());
  const double lo = replicates[lo_i];
  std::nth_element(replicates.begin() + static_cast<std::ptrdiff_t>(lo_i),
                   replicates.begin() + static_cast<std::ptrdiff_t>(hi_i), replicates.end());
  return {lo, replicates[hi_i]};
}

}  // namespace perflab::resample
