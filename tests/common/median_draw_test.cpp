// A bootstrap of a median on many samples draws each resample's median directly: the same
// distribution as drawing the resample value by value, in time independent of the samples.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "common/resample.h"
#include "common/significance.h"
#include "common/stats.h"

using namespace perflab;

// A resample's median drawn directly has the distribution of the median of a resample drawn
// value by value: their 2.5%, 50% and 97.5% points agree within the error of 20,000 draws.
TEST(MedianDraw, MatchesTheMedianOfAResampleDrawnValueByValue) {
  for (const std::size_t n : {999u, 1000u}) {
    std::vector<double> s(n);
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<double>((i * 7919) % n) * 0.01;
    const resample::ResampledMedian m(s);
    resample::Rng rng(42);
    std::vector<double> drawn, resampled;
    std::vector<std::uint32_t> counts;
    for (int r = 0; r < 20'000; ++r) {
      drawn.push_back(m.draw(rng));
      resample::draw_counts(rng, n, counts);
      resampled.push_back(m(counts));
    }
    for (const double q : {0.025, 0.5, 0.975})
      EXPECT_NEAR(quantile(drawn, q), quantile(resampled, q), 0.1)
          << "n " << n << ", quantile " << q;  // a 95% interval is about 0.9 wide here
  }
}

// Two runs of 1,000,000 samples a point (a 14 MB file each) compare in time independent of
// the samples' number past the sort: on the resample's median, not on every sample 10,000
// times (which took minutes). The bound only says it returns.
TEST(MedianDraw, ComparingMillionsOfSamplesReturns) {
  std::vector<double> a(1'000'000), b(1'000'000);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = 100 + static_cast<double>((i * 7919) % 1000) * 0.01;
    b[i] = a[i] + 1;
  }
  RatioOptions opt;
  opt.interleaved = false;
  const auto start = std::chrono::steady_clock::now();
  const auto r = ratio_ci(a, b, opt);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->value, quantile(a, 0.5) / quantile(b, 0.5));
  EXPECT_TRUE(r->contains(r->value));
  EXPECT_LT(r->hi - r->lo, 0.001);
  EXPECT_LT(took, std::chrono::seconds(120));
}
