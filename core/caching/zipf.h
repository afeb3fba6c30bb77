#pragma once
// A Zipf-distributed sampler over ranks 0..n-1: P(rank k) ∝ 1 / (k+1)^s. Deterministic for a
// seed (inverse-CDF lookup of a 53-bit uniform from mt19937_64), so a read sequence repeats.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "caching/records.h"

namespace perflab::caching {

class ZipfSampler {
 public:
  // n >= 1, s >= 0 (s = 0 is uniform); throws std::invalid_argument otherwise.
  ZipfSampler(std::size_t n, double s, std::uint64_t seed);
  std::size_t next();
  // Probability of rank k (0-based).
  double probability(std::size_t k) const;
  std::size_t size() const { return cdf_.size(); }

 private:
  std::vector<double> cdf_;
  Rng rng_;
};

}  // namespace perflab::caching
