#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "common/confidence.h"

using namespace perflab;

namespace {
// The share of `trials` seeded samples of size n whose interval covers `true_median`.
double coverage(std::size_t n, int trials, double true_median,
                const std::function<double(std::mt19937_64&)>& draw,
                const std::function<Estimate(const std::vector<double>&)>& interval) {
  std::mt19937_64 gen(20240611);
  int covered = 0;
  std::vector<double> s(n);
  for (int t = 0; t < trials; ++t) {
    for (auto& v : s) v = draw(gen);
    if (interval(s).contains(true_median)) ++covered;
  }
  return static_cast<double>(covered) / trials;
}

std::function<double(std::mt19937_64&)> normal(double mean, double sd) {
  return
      [d = std::normal_distribution<double>(mean, sd)](std::mt19937_64& g) mutable { return d(g); };
}
// Right-skewed like latencies; its median is exp(m).
std::function<double(std::mt19937_64&)> lognormal(double m, double s) {
  return
      [d = std::lognormal_distribution<double>(m, s)](std::mt19937_64& g) mutable { return d(g); };
}
// Its median is ln 2 / rate.
std::function<double(std::mt19937_64&)> exponential(double rate) {
  return [d = std::exponential_distribution<double>(rate)](std::mt19937_64& g) mutable {
    return d(g);
  };
}

// Binomial standard error of a coverage share over `trials` trials.
double sigma(double p, int trials) {
  return std::sqrt(p * (1 - p) / trials);
}
}  // namespace

// Known answers: the order-statistic interval of the median from binomial tables (e.g. Conover,
// Practical Nonparametric Statistics, table A3: n = 20 -> x(6)..x(15)); coverage
// 1 - 2 P(Binomial(n, 1/2) <= k - 1).
TEST(MedianCi, RanksAndExactCoverageFromTheBinomial) {
  auto r = median_ci_ranks(20);
  EXPECT_EQ(r.lo_rank, 6u);
  EXPECT_EQ(r.hi_rank, 15u);
  EXPECT_NEAR(r.coverage, 1 - 2 * 21700.0 / 1048576.0, 1e-12);  // 0.95861

  r = median_ci_ranks(10);
  EXPECT_EQ(r.lo_rank, 2u);
  EXPECT_EQ(r.hi_rank, 9u);
  EXPECT_NEAR(r.coverage, 1 - 2 * 11.0 / 1024.0, 1e-12);  // 0.97852

  r = median_ci_ranks(6);  // the smallest n that reaches 95%
  EXPECT_EQ(r.lo_rank, 1u);
  EXPECT_EQ(r.hi_rank, 6u);
  EXPECT_NEAR(r.coverage, 1 - 2.0 / 64, 1e-12);

  r = median_ci_ranks(50);
  EXPECT_EQ(r.lo_rank, 18u);
  EXPECT_EQ(r.hi_rank, 33u);
  EXPECT_NEAR(r.coverage, 0.96716, 1e-5);

  r = median_ci_ranks(1000);  // large n: logarithms, no overflow
  EXPECT_EQ(r.lo_rank, 469u);
  EXPECT_EQ(r.hi_rank, 532u);
  EXPECT_GE(r.coverage, 0.95);
  EXPECT_LT(r.coverage, 0.96);

  EXPECT_EQ(median_ci_ranks(1).lo_rank, 0u);
  EXPECT_THROW(median_ci_ranks(10, 1.0), std::invalid_argument);
}

TEST(MedianCi, RanksAnswerTheirOwnQuestionWhateverCameBefore) {
  // The last answer is kept: asked again, another n or another level, each gets its own.
  const auto n20 = median_ci_ranks(20), n20_80 = median_ci_ranks(20, 0.8);
  const auto n10 = median_ci_ranks(10);
  EXPECT_EQ(median_ci_ranks(20).lo_rank, 6u);
  EXPECT_EQ(median_ci_ranks(20).lo_rank, n20.lo_rank);
  EXPECT_EQ(median_ci_ranks(20, 0.8).lo_rank, n20_80.lo_rank);
  EXPECT_GT(n20_80.lo_rank, n20.lo_rank);  // a lower level: a narrower interval
  EXPECT_EQ(median_ci_ranks(10).lo_rank, n10.lo_rank);
  EXPECT_DOUBLE_EQ(median_ci_ranks(20).coverage, n20.coverage);
  EXPECT_EQ(median_ci_ranks(1).lo_rank, 0u);  // too few, whatever was asked before
  EXPECT_THROW(median_ci_ranks(20, 1.0), std::invalid_argument);  // and still checked
}

TEST(MedianCi, TooFewSamplesSayHowSureTheyAre) {
  const std::vector<double> five = {3, 1, 5, 2, 4};
  auto e = median_ci(five);
  EXPECT_DOUBLE_EQ(e.value, 3);
  EXPECT_DOUBLE_EQ(e.lo, 1);
  EXPECT_DOUBLE_EQ(e.hi, 5);
  EXPECT_DOUBLE_EQ(e.level, 0.9375);  // [min, max] of 5 samples: 1 - 2/32
  EXPECT_FALSE(e.full_level);
  EXPECT_EQ(e.method, CiMethod::OrderStatistic);

  const std::vector<double> one = {7};
  e = median_ci(one);
  EXPECT_FALSE(e.has_interval());
  EXPECT_DOUBLE_EQ(e.value, 7);
  EXPECT_EQ(e.level, 0);
  EXPECT_FALSE(e.contains(7));  // no interval, nothing is inside it
  EXPECT_TRUE(std::isinf(e.relative_half_width()));

  EXPECT_FALSE(median_ci(std::vector<double>{}).has_interval());
}

TEST(MedianCi, HandMadeSample) {
  const std::vector<double> s = {5, 1, 4, 2, 3, 9, 8, 7, 6, 10};
  const auto e = median_ci(s);
  EXPECT_DOUBLE_EQ(e.value, 5.5);
  EXPECT_DOUBLE_EQ(e.lo, 2);  // x(2)
  EXPECT_DOUBLE_EQ(e.hi, 9);  // x(9)
  EXPECT_TRUE(e.full_level);
  EXPECT_NEAR(e.relative_half_width(), 3.5 / 5.5, 1e-12);
}

// About 95% of 1,000 seeded trials cover the known median: the order-statistic interval within
// 4 standard errors of its stated exact coverage, and inside 92–98% in any case.
TEST(MedianCi, OrderStatisticCoverageOnSyntheticSamples) {
  auto os = [](const std::vector<double>& s) { return median_ci(s); };
  struct Case {
    std::size_t n;
    double median;
    std::function<double(std::mt19937_64&)> draw;
  };
  const Case cases[] = {{20, 100, normal(100, 10)},
                        {51, std::exp(3.0), lognormal(3.0, 0.8)},
                        {20, std::log(2.0) / 0.5, exponential(0.5)}};
  for (const auto& c : cases) {
    const double stated = median_ci_ranks(c.n).coverage;
    const double seen = coverage(c.n, 1000, c.median, c.draw, os);
    EXPECT_NEAR(seen, stated, 4 * sigma(stated, 1000)) << "n=" << c.n;
    EXPECT_GE(seen, 0.92) << "n=" << c.n;
    EXPECT_LE(seen, 0.98) << "n=" << c.n;
  }
}

TEST(MedianCi, BootstrapCoverageOnSyntheticSamples) {
  BootstrapOptions opt;
  opt.resamples = 200;  // enough for the 2.5% and 97.5% quantiles; keeps the test fast
  auto boot = [&](const std::vector<double>& s) { return median_ci_bootstrap(s, opt); };
  const double normal_cov = coverage(21, 1000, 100, normal(100, 10), boot);
  const double skewed_cov = coverage(31, 1000, std::exp(3.0), lognormal(3.0, 0.8), boot);
  EXPECT_GE(normal_cov, 0.92);
  EXPECT_LE(normal_cov, 0.98);
  EXPECT_GE(skewed_cov, 0.92);
  EXPECT_LE(skewed_cov, 0.98);
}

TEST(MedianCi, BootstrapIsSeededByTheData) {
  std::mt19937_64 gen(7);
  auto draw = lognormal(2, 0.5);
  std::vector<double> s(30);
  for (auto& v : s) v = draw(gen);

  const auto a = median_ci_bootstrap(s), b = median_ci_bootstrap(s);
  EXPECT_EQ(a.lo, b.lo);  // the same data: the same numbers, bit for bit
  EXPECT_EQ(a.hi, b.hi);
  EXPECT_EQ(a.method, CiMethod::Bootstrap);
  EXPECT_DOUBLE_EQ(a.value, quantile(s, 0.5));
  EXPECT_LE(a.lo, a.value);
  EXPECT_GE(a.hi, a.value);
  EXPECT_DOUBLE_EQ(a.level, 0.95);
  EXPECT_TRUE(a.full_level);

  BootstrapOptions seeded;
  seeded.seed = 12345;
  const auto c = median_ci_bootstrap(s, seeded), d = median_ci_bootstrap(s, seeded);
  EXPECT_EQ(c.lo, d.lo);
  EXPECT_EQ(c.hi, d.hi);

  // Its ends are samples or midpoints of two samples, inside [min, max].
  const auto st = summarize(s);
  EXPECT_GE(a.lo, st.min);
  EXPECT_LE(a.hi, st.max);

  const std::vector<double> five = {3, 1, 5, 2, 4};
  const auto f = median_ci_bootstrap(five);
  EXPECT_FALSE(f.full_level);
  EXPECT_DOUBLE_EQ(f.level, 0.9375);  // the most any interval within [min, max] can have
}

TEST(MedianCi, AGivenSeedIsUsed) {
  std::vector<double> s = {10, 12, 11, 13, 15, 14, 9, 16, 12.5, 11.5, 10.5, 13.5};
  BootstrapOptions opt;
  opt.resamples = 200;
  const auto a = median_ci_bootstrap(s, opt);
  opt.seed = 1;
  const auto b = median_ci_bootstrap(s, opt);
  opt.seed = 2;
  const auto c = median_ci_bootstrap(s, opt);
  // Three generators over the same 12 samples: at least one end differs somewhere.
  EXPECT_TRUE(a.lo != b.lo || a.hi != b.hi || b.lo != c.lo || b.hi != c.hi);
}

TEST(Spread, CoefficientOfVariation) {
  const std::vector<double> v = {5, 1, 4, 2, 3};
  EXPECT_NEAR(coefficient_of_variation(summarize(v)), 1.5811388300841898 / 3, 1e-12);
  EXPECT_EQ(coefficient_of_variation(summarize(std::vector<double>{4})), 0);
  EXPECT_EQ(coefficient_of_variation(summarize(std::vector<double>{-1, 1})), 0);  // zero mean
}

// Quartiles of the 14 values (linear interpolation): Q1 = 11.25, Q3 = 17.75, IQR = 6.5; fences
// -8.25 | 1.5 | 27.5 | 37.25.
TEST(Outliers, TukeyFencesOnAHandMadeSample) {
  const std::vector<double> s = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19, -30, 0, 35, 60};
  const auto o = classify_outliers(s);
  EXPECT_DOUBLE_EQ(o.fences.low_severe, -8.25);
  EXPECT_DOUBLE_EQ(o.fences.low_mild, 1.5);
  EXPECT_DOUBLE_EQ(o.fences.high_mild, 27.5);
  EXPECT_DOUBLE_EQ(o.fences.high_severe, 37.25);
  EXPECT_EQ(o.low_severe, 1u);   // -30
  EXPECT_EQ(o.low_mild, 1u);     // 0
  EXPECT_EQ(o.high_mild, 1u);    // 35
  EXPECT_EQ(o.high_severe, 1u);  // 60
  EXPECT_EQ(o.total(), 4u);
  EXPECT_EQ(o.low(), 2u);
  EXPECT_EQ(o.high(), 2u);
  // On a fence is not beyond it.
  EXPECT_EQ(o.fences.classify(27.5), OutlierClass::Normal);
  EXPECT_EQ(o.fences.classify(27.51), OutlierClass::HighMild);
  EXPECT_EQ(o.fences.classify(-8.25), OutlierClass::LowMild);
  EXPECT_EQ(o.fences.classify(37.25), OutlierClass::HighMild);
  EXPECT_EQ(o.fences.classify(37.3), OutlierClass::HighSevere);
  EXPECT_STREQ(to_string(OutlierClass::HighSevere), "high severe");

  EXPECT_EQ(classify_outliers(std::vector<double>{}).total(), 0u);
  const std::vector<double> flat = {3, 3, 3, 3};
  EXPECT_EQ(classify_outliers(flat).total(), 0u);
}

TEST(PointSummary, CarriesEverythingAndKeepsTheSamples) {
  const std::vector<double> s = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19, -30, 0, 35, 60};
  const auto p = summarize_point(s);
  EXPECT_EQ(p.stats.n, s.size());  // nothing dropped: the outliers are counted, not removed
  EXPECT_DOUBLE_EQ(p.stats.median, p.median.value);
  EXPECT_EQ(p.median.method, CiMethod::OrderStatistic);
  EXPECT_EQ(p.outliers.total(), 4u);
  EXPECT_DOUBLE_EQ(p.cv, coefficient_of_variation(p.stats));

  PointOptions opt;
  opt.bootstrap = true;
  opt.boot.resamples = 300;
  EXPECT_EQ(summarize_point(s, opt).median.method, CiMethod::Bootstrap);
}
