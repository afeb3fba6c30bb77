#pragma once
// Random latencies for the recorder's tests: a million values in nanoseconds from one of four
// distributions ("uniform" 1 us .. 1 s, "log-uniform" 1 us .. 60 s, "exponential" with a mean
// of 200 us, "bimodal": 99% near 150 us and a far tail near 2 s), seeded.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace perflab::test {

constexpr std::int64_t kUs = 1000;
constexpr std::int64_t kSecond = 1000 * 1000 * kUs;
constexpr std::size_t kValues = 1000 * 1000;

inline std::vector<std::int64_t> draw(const char* name, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> v(kValues);
  const std::string d = name;
  if (d == "uniform") {
    std::uniform_int_distribution<std::int64_t> u(kUs, kSecond);
    for (auto& x : v) x = u(rng);
  } else if (d == "log-uniform") {  // 1 us .. 60 s, every decade alike
    std::uniform_real_distribution<double> u(std::log(1e3), std::log(60e9));
    for (auto& x : v) x = std::llround(std::exp(u(rng)));
  } else if (d == "exponential") {  // mean 200 us
    std::exponential_distribution<double> e(1.0 / 200e3);
    for (auto& x : v) x = std::llround(e(rng)) + kUs;
  } else {  // bimodal: 99% near 150 us, 1% a far tail near 2 s
    std::lognormal_distribution<double> fast(std::log(150e3), 0.3), slow(std::log(2e9), 0.5);
    std::bernoulli_distribution tail(0.01);
    for (auto& x : v) x = std::llround(tail(rng) ? slow(rng) : fast(rng));
  }
  return v;
}

}  // namespace perflab::test
