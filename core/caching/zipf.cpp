#include "caching/zipf.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace perflab::caching {

ZipfSampler::ZipfSampler(std::size_t n, double s, std::uint64_t seed) : rng_(seed) {
  if (n == 0) throw std::invalid_argument("Zipf sampler needs at least one key");
  if (!(s >= 0) || !std::isfinite(s)) throw std::invalid_argument("Zipf exponent must be >= 0");
  cdf_.resize(n);
  double sum = 0;
  for (std::size_t k = 0; k < n; ++k) {
    sum += 1.0 / std::pow(static_cast<double>(k + 1), s);
    cdf_[k] = sum;
  }
  for (auto& c : cdf_) c /= sum;
  cdf_.back() = 1.0;
}

std::size_t ZipfSampler::next() {
  const double u = rng_.unit();
  auto it = std::upper_bound(cdf_.begin(), cdf_.end(), u);
  if (it == cdf_.end()) --it;
  return static_cast<std::size_t>(it - cdf_.begin());
}

double ZipfSampler::probability(std::size_t k) const {
  if (k >= cdf_.size()) return 0;
  return k == 0 ? cdf_[0] : cdf_[k] - cdf_[k - 1];
}

}  // namespace perflab::caching
