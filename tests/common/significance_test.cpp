#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "common/significance.h"

using namespace perflab;

namespace {
Estimate bootstrap_interval(double value, double lo, double hi) {
  Estimate e;
  e.value = value, e.lo = lo, e.hi = hi, e.level = 0.95, e.full_level = true;
  e.method = CiMethod::Bootstrap;
  return e;
}

// n repetitions of two variants measured side by side: a shared per-round factor (the machine's
// mood, sd `drift` in log space) and each variant's own noise (sd `own`).
struct Pairs {
  std::vector<double> a, b;
};
Pairs interleaved(std::size_t n, double ratio, double drift, double own, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> shared(0, drift), noise(0, own);
  Pairs p;
  for (std::size_t i = 0; i < n; ++i) {
    const double round = std::exp(shared(g));
    p.a.push_back(100 * ratio * round * std::exp(noise(g)));
    p.b.push_back(100 * round * std::exp(noise(g)));
  }
  return p;
}
}  // namespace

TEST(Verdict, IntervalAgainstOneAndTheBand) {
  // The rule in significance.h, case by case, threshold 2%.
  EXPECT_EQ(judge_ratio(bootstrap_interval(1.02, 0.97, 1.06), Better::Lower),
            Verdict::NoDifference);
  EXPECT_EQ(judge_ratio(bootstrap_interval(0.93, 0.90, 0.97), Better::Lower), Verdict::Faster);
  EXPECT_EQ(judge_ratio(bootstrap_interval(0.93, 0.90, 0.97), Better::Higher), Verdict::Slower);
  EXPECT_EQ(judge_ratio(bootstrap_interval(1.06, 1.03, 1.10), Better::Lower), Verdict::Slower);
  EXPECT_EQ(judge_ratio(bootstrap_interval(1.06, 1.03, 1.10), Better::Higher), Verdict::Faster);
  // Wholly inside [0.98, 1.02]: equivalent within the threshold, whether or not it holds 1.
  EXPECT_EQ(judge_ratio(bootstrap_interval(0.99, 0.985, 0.995), Better::Lower),
            Verdict::Equivalent);
  EXPECT_EQ(judge_ratio(bootstrap_interval(1.0, 0.99, 1.01), Better::Higher), Verdict::Equivalent);
  // Holds 1 and reaches beyond the band: no significant difference.
  EXPECT_EQ(judge_ratio(bootstrap_interval(1.19, 1.00, 1.29), Better::Lower),
            Verdict::NoDifference);
  // Excludes 1, not wholly beyond the band: leans, not shown beyond the threshold.
  EXPECT_EQ(judge_ratio(bootstrap_interval(0.98, 0.97, 0.99), Better::Lower), Verdict::LeansFaster);
  EXPECT_EQ(judge_ratio(bootstrap_interval(0.945, 0.90, 0.99), Better::Lower),
            Verdict::LeansFaster);
  EXPECT_EQ(judge_ratio(bootstrap_interval(1.01, 1.005, 1.03), Better::Higher),
            Verdict::LeansFaster);
  EXPECT_EQ(judge_ratio(bootstrap_interval(1.19, 1.001, 1.29), Better::Lower),
            Verdict::LeansSlower);
  EXPECT_EQ(judge_ratio(bootstrap_interval(1.32, 1.02, 1.43), Better::Higher),
            Verdict::LeansFaster);
  EXPECT_EQ(judge_ratio(bootstrap_interval(0.87, 0.62, 0.999), Better::Higher),
            Verdict::LeansSlower);
  // Without a threshold, excluding 1 is enough.
  EXPECT_EQ(judge_ratio(bootstrap_interval(0.98, 0.97, 0.99), Better::Lower, 0.0), Verdict::Faster);
  // A wider threshold: the same interval no longer clears it.
  EXPECT_EQ(judge_ratio(bootstrap_interval(0.93, 0.90, 0.97), Better::Lower, 0.05),
            Verdict::LeansFaster);
  EXPECT_EQ(judge_ratio(bootstrap_interval(0.97, 0.96, 0.99), Better::Lower, 0.05),
            Verdict::Equivalent);
  // No interval, no verdict.
  Estimate alone;
  alone.value = alone.lo = alone.hi = 0.5;
  EXPECT_EQ(judge_ratio(alone, Better::Lower), Verdict::TooFewSamples);
  EXPECT_THROW(judge_ratio(bootstrap_interval(1, 0.9, 1.1), Better::Lower, -0.01),
               std::invalid_argument);
  EXPECT_STREQ(to_string(Verdict::NoDifference), "no significant difference");
}

TEST(Claim, ReproducedOnlyInsideNotReproducedOnlyOutside) {
  const Claim value = claim_value(0.78, 0.08);  // [0.70, 0.86]
  EXPECT_EQ(judge_claim(value, bootstrap_interval(0.80, 0.74, 0.86)), Reproduction::Reproduced);
  EXPECT_EQ(judge_claim(value, bootstrap_interval(1.02, 0.97, 1.06)), Reproduction::NotReproduced);
  // Holds 0.78 but reaches beyond the band: a wide interval reproduces nothing.
  EXPECT_EQ(judge_claim(value, bootstrap_interval(1.2, 0.78, 1.45)), Reproduction::Inconclusive);
  EXPECT_EQ(judge_claim(value, Estimate{}), Reproduction::NotJudged);
  // "Reads did not change" (±5%): 1.08 [0.46–1.36] is too wide to say so.
  const Claim same = claim_no_change(1.0, 0.05);
  EXPECT_EQ(judge_claim(same, bootstrap_interval(1.08, 0.46, 1.36)), Reproduction::Inconclusive);
  EXPECT_EQ(judge_claim(same, bootstrap_interval(1.0, 0.97, 1.03)), Reproduction::Reproduced);
  // A collapse of about two orders of magnitude: 86× is it, though the article measured 133×.
  const Claim collapse = claim_below(1.0 / 133, 1.0 / 30);
  EXPECT_EQ(judge_claim(collapse, bootstrap_interval(1.0 / 86, 1.0 / 95, 1.0 / 80)),
            Reproduction::Reproduced);
  EXPECT_EQ(judge_claim(collapse, bootstrap_interval(0.5, 0.4, 0.6)), Reproduction::NotReproduced);
  const Claim above = claim_above(100, 30);
  EXPECT_EQ(judge_claim(above, bootstrap_interval(160000, 120000, 200000)),
            Reproduction::Reproduced);
  EXPECT_EQ(above.yardstick(), "≥ 30");
  EXPECT_EQ(value.yardstick(), "0.78 ± 0.08");
  EXPECT_EQ(same.yardstick(), "1 ± 5%");
  EXPECT_STREQ(to_string(Reproduction::NotReproduced), "not reproduced");
}

TEST(Claim, RepetitionsToSettleShrinkTheIntervalPastTheNearestEdge) {
  Estimate e = bootstrap_interval(0.80, 0.70, 0.90);  // half-width 0.10
  e.n = 10;
  // The band [0.70, 0.86]: the nearest edge is 0.06 away, so the half-width must shrink by
  // 0.06/0.10: n * (0.10/0.06)^2 = 27.8 -> 28.
  EXPECT_EQ(repetitions_to_settle(claim_value(0.78, 0.08), e), 28u);
  // On the edge itself nothing settles it; without n there is no estimate.
  EXPECT_FALSE(repetitions_to_settle(claim_value(0.70, 0.10), e));
  e.n = 0;
  EXPECT_FALSE(repetitions_to_settle(claim_value(0.78, 0.08), e));
}

TEST(RatioCi, ValueMethodAndEdgeCases) {
  const std::vector<double> a = {8, 9, 10, 11, 12}, b = {18, 19, 20, 21, 22};
  auto r = ratio_ci(a, b);
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->value, 0.5);
  EXPECT_EQ(r->method, CiMethod::PairedBootstrap);
  EXPECT_FALSE(r->full_level);  // 5 repetitions cannot give 95%
  EXPECT_LE(r->lo, r->value);
  EXPECT_GE(r->hi, r->value);

  const std::vector<double> b6 = {18, 19, 20, 21, 22, 23};
  r = ratio_ci(a, b6);  // unequal counts: cannot pair
  ASSERT_TRUE(r);
  EXPECT_EQ(r->method, CiMethod::Bootstrap);

  RatioOptions apart;
  apart.interleaved = false;
  EXPECT_EQ(ratio_ci(a, b, apart)->method, CiMethod::Bootstrap);

  EXPECT_FALSE(ratio_ci({}, b));
  EXPECT_FALSE(ratio_ci(a, std::vector<double>{0, 0, 1}));  // median 0: no ratio
  const std::vector<double> one = {4};
  r = ratio_ci(one, b);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->has_interval());
  EXPECT_DOUBLE_EQ(r->value, 0.2);

  // A deterministic quantity (allocations): a zero-width interval, and a verdict.
  const std::vector<double> fives = {5, 5, 5}, tens = {10, 10, 10};
  auto j = judge_series(fives, tens, Better::Lower);
  ASSERT_TRUE(j);
  EXPECT_DOUBLE_EQ(j->ratio.lo, 0.5);
  EXPECT_DOUBLE_EQ(j->ratio.hi, 0.5);
  EXPECT_EQ(j->verdict, Verdict::Faster);
}

TEST(RatioCi, SeededAndReproducible) {
  const auto p = interleaved(15, 0.8, 0.2, 0.05, 3);
  const auto x = ratio_ci(p.a, p.b), y = ratio_ci(p.a, p.b);
  EXPECT_EQ(x->lo, y->lo);
  EXPECT_EQ(x->hi, y->hi);
  // A given seed is used: the ends of few resamples move with it (the ratio's bootstrap
  // values are discrete, so two seeds may still agree; ten seeds do not all agree).
  RatioOptions opt;
  opt.boot.resamples = 50;
  std::set<std::pair<double, double>> ends;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    opt.boot.seed = seed;
    const auto z = ratio_ci(p.a, p.b, opt);
    EXPECT_EQ(z->value, x->value);
    ends.insert({z->lo, z->hi});
  }
  EXPECT_GT(ends.size(), 1u);
}

// When a slow moment of the machine hits both variants of a round alike, pairing the rounds
// keeps it out of the ratio's interval.
TEST(RatioCi, PairedIsNarrowerOnCorrelatedPairs) {
  const auto p = interleaved(20, 0.8, 0.25, 0.02, 11);
  RatioOptions paired, unpaired;
  unpaired.interleaved = false;
  const auto rp = ratio_ci(p.a, p.b, paired), ru = ratio_ci(p.a, p.b, unpaired);
  ASSERT_TRUE(rp && ru);
  EXPECT_EQ(rp->method, CiMethod::PairedBootstrap);
  EXPECT_EQ(ru->method, CiMethod::Bootstrap);
  EXPECT_LT(rp->hi - rp->lo, 0.5 * (ru->hi - ru->lo));
  EXPECT_TRUE(rp->contains(0.8));
}

// Both ratio figures cover a known ratio at least as often as they claim, within the error of
// 300 trials (bootstrap intervals of a median ratio come out a little conservative: ~97%).
TEST(RatioCi, CoverageOfAKnownRatio) {
  int medians = 0, rounds = 0;
  RatioOptions of_medians, of_rounds;
  of_medians.boot.resamples = 300;
  of_rounds.figure = RatioFigure::MedianOfRoundRatios;
  for (int t = 0; t < 300; ++t) {
    const auto p = interleaved(21, 0.8, 0.05, 0.05, 1000 + static_cast<std::uint64_t>(t));
    if (ratio_ci(p.a, p.b, of_medians)->contains(0.8)) ++medians;
    if (ratio_ci(p.a, p.b, of_rounds)->contains(0.8)) ++rounds;
  }
  EXPECT_GE(medians, 276);  // 92%
  EXPECT_LE(medians, 299);  // not every time: the interval is not vacuous
  // The order-statistic interval of 21 per-round ratios states 97.3% exactly.
  const double stated = median_ci_ranks(21).coverage;
  EXPECT_NEAR(rounds / 300.0, stated, 4 * std::sqrt(stated * (1 - stated) / 300));
}

TEST(RatioCi, MedianOfRoundRatios) {
  const std::vector<double> a = {8, 18, 10, 30}, b = {10, 20, 20, 30};  // rounds: .8 .9 .5 1
  RatioOptions opt;
  opt.figure = RatioFigure::MedianOfRoundRatios;
  auto r = ratio_ci(a, b, opt);
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->value, 0.85);
  EXPECT_EQ(r->method, CiMethod::OrderStatistic);
  EXPECT_DOUBLE_EQ(r->lo, 0.5);
  EXPECT_DOUBLE_EQ(r->hi, 1.0);
  EXPECT_FALSE(r->full_level);  // 4 rounds

  const std::vector<double> b3 = {10, 20, 20};
  EXPECT_FALSE(ratio_ci(a, b3, opt));  // not paired round by round
  opt.interleaved = false;
  EXPECT_FALSE(ratio_ci(a, b, opt));
  opt.interleaved = true;
  const std::vector<double> b0 = {10, 0, 20, 30};
  EXPECT_FALSE(ratio_ci(a, b0, opt));

  // On a drifting machine the per-round ratios are far more precise than the medians' ratio.
  const auto p = interleaved(21, 0.8, 0.2, 0.02, 17);
  const auto of_rounds = ratio_ci(p.a, p.b, opt);
  const auto of_medians = ratio_ci(p.a, p.b);
  EXPECT_LT(of_rounds->hi - of_rounds->lo, of_medians->hi - of_medians->lo);
  EXPECT_TRUE(of_rounds->contains(0.8));
}

TEST(RatioVerdict, EqualSeriesAreNotCalledDifferent) {
  int called = 0;
  for (int t = 0; t < 200; ++t) {
    const auto p = interleaved(15, 1.0, 0.1, 0.1, 500 + static_cast<std::uint64_t>(t));
    RatioOptions opt;
    opt.boot.resamples = 400;
    const auto j = judge_series(p.a, p.b, Better::Lower, 0.02, opt);
    if (j->verdict == Verdict::Faster || j->verdict == Verdict::Slower) ++called;
  }
  // A false "faster"/"slower" needs the whole interval beyond ±2%: rarer than its 5% miss rate.
  EXPECT_LE(called, 6);
}

TEST(RatioVerdict, ClearlyDifferentSeriesAndTheDirectionOfBetter) {
  const auto faster = interleaved(15, 0.7, 0.1, 0.05, 42);
  EXPECT_EQ(judge_series(faster.a, faster.b, Better::Lower)->verdict, Verdict::Faster);
  // The same numbers as req/s: a does fewer per second, so it is slower.
  EXPECT_EQ(judge_series(faster.a, faster.b, Better::Higher)->verdict, Verdict::Slower);

  const auto slower = interleaved(15, 1.3, 0.1, 0.05, 43);
  EXPECT_EQ(judge_series(slower.a, slower.b, Better::Lower)->verdict, Verdict::Slower);
  EXPECT_EQ(judge_series(slower.a, slower.b, Better::Higher)->verdict, Verdict::Faster);

  // 1% apart, measured very precisely: real, but inside the ±2% band.
  const auto tiny = interleaved(30, 0.99, 0.1, 0.001, 44);
  const auto j = judge_series(tiny.a, tiny.b, Better::Lower);
  EXPECT_TRUE(j->verdict == Verdict::Equivalent || j->verdict == Verdict::LeansFaster);
  EXPECT_LT(j->ratio.hi, 1.0);
  // With no threshold at all the same interval is a (tiny) speed-up.
  EXPECT_EQ(judge_series(tiny.a, tiny.b, Better::Lower, 0.0)->verdict, Verdict::Faster);
}

// scipy.stats.mannwhitneyu's documented example (SciPy reference, "Examples": ages at diagnosis
// of type II diabetes, males vs females, after Conover): U1 = 17, exact two-sided p =
// 0.1111111111111111; with method="asymptotic", 0.11134688653314041.
TEST(MannWhitney, ScipyDocumentationExample) {
  const std::vector<double> males = {19, 22, 16, 29, 24}, females = {20, 11, 17, 12};
  auto t = mann_whitney_u(males, females);
  EXPECT_DOUBLE_EQ(t.u, 17);
  EXPECT_EQ(t.method, UTestMethod::Exact);  // samples of at most 8 values, no ties
  EXPECT_NEAR(t.p_value, 0.1111111111111111, 1e-12);
  EXPECT_FALSE(t.ties);
  EXPECT_TRUE(t.enough);
  EXPECT_FALSE(t.reliable);

  t = mann_whitney_u(males, females, UTestMethod::Asymptotic);
  EXPECT_EQ(t.method, UTestMethod::Asymptotic);
  EXPECT_NEAR(t.p_value, 0.11134688653314041, 1e-12);

  EXPECT_DOUBLE_EQ(mann_whitney_u(females, males).u, 3);  // U2 = n1 n2 - U1
}

// NAG Library examples for G08AHF/G08AJF (support.nag.com, "Example Program Results"): samples of
// 16 and 23 values, U = 86. Without ties: normal statistic -2.7838, tail probability 0.0027,
// exact tail probability 0.0022. With ties: normal statistic -2.8039, tail probability 0.0025.
// NAG reports the one-sided (lower) tail; the two-sided p is twice that.
TEST(MannWhitney, NagLibraryExamples) {
  const std::vector<double> x = {13.0, 5.8, 11.7, 6.5, 12.3, 6.7, 9.2, 6.9,
                                 10.0, 7.3, 16.0, 7.0, 10.5, 8.5, 9.0, 7.5};
  const std::vector<double> y = {17.0, 6.2,  10.1, 8.0,  15.3, 8.2,  15.0, 9.6,
                                 14.9, 10.4, 14.2, 9.8,  13.8, 11.0, 14.0, 11.1,
                                 12.9, 11.6, 12.8, 12.0, 13.1, 12.4, 11.9};
  auto t = mann_whitney_u(x, y);
  EXPECT_DOUBLE_EQ(t.u, 86);
  EXPECT_FALSE(t.ties);
  EXPECT_EQ(t.method, UTestMethod::Asymptotic);  // both samples above 8: SciPy's rule
  EXPECT_NEAR(t.z, -2.7838, 5e-5);
  EXPECT_NEAR(t.p_value / 2, 0.0027, 5e-5);
  EXPECT_TRUE(t.reliable);

  t = mann_whitney_u(x, y, UTestMethod::Exact);
  EXPECT_EQ(t.method, UTestMethod::Exact);
  EXPECT_NEAR(t.p_value / 2, 0.0022, 5e-5);

  const std::vector<double> xt = {13, 6, 12, 7, 12, 7, 10, 7, 10, 7, 16, 7, 10, 8, 9, 8};
  const std::vector<double> yt = {17, 6,  10, 8,  15, 8,  15, 10, 15, 10, 14, 10,
                                  14, 11, 14, 11, 13, 12, 13, 12, 13, 12, 12};
  t = mann_whitney_u(xt, yt, UTestMethod::Exact);  // ties: the exact distribution does not apply
  EXPECT_TRUE(t.ties);
  EXPECT_EQ(t.method, UTestMethod::Asymptotic);
  EXPECT_DOUBLE_EQ(t.u, 86);
  EXPECT_NEAR(t.z, -2.8039, 5e-5);
  EXPECT_NEAR(t.p_value / 2, 0.0025, 5e-5);
}

// Critical values of U, two-tailed alpha = 0.05, equal sample sizes, from the published table
// (e.g. www.real-statistics.com/statistics-tables/mann-whitney-table/; n1 = n2 = 10: 23,
// n1 = n2 = 20: 127): the largest U whose exact two-sided p is at most 0.05.
TEST(MannWhitney, CriticalValuesFromTheTable) {
  // Samples of n values each with U1 = u: y = 0, 2, 4, ...; x values just below y(c_i) where
  // the c_i (how many y lie below each x) add up to u.
  auto samples_with_u = [](std::size_t n, std::size_t u) {
    std::vector<double> x, y;
    for (std::size_t j = 0; j < n; ++j) y.push_back(2.0 * static_cast<double>(j));
    std::size_t left = u;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t c = std::min(left, n);
      left -= c;
      x.push_back(2.0 * static_cast<double>(c) - 1 + 0.001 * static_cast<double>(i));
    }
    return std::pair{x, y};
  };
  const std::pair<std::size_t, std::size_t> table[] = {{5, 2},  {6, 5},   {7, 8},   {8, 13},
                                                       {9, 17}, {10, 23}, {15, 64}, {20, 127}};
  for (auto [n, critical] : table) {
    auto [x, y] = samples_with_u(n, critical);
    auto t = mann_whitney_u(x, y, UTestMethod::Exact);
    ASSERT_DOUBLE_EQ(t.u, static_cast<double>(critical)) << "n=" << n;
    EXPECT_EQ(t.method, UTestMethod::Exact);
    EXPECT_LE(t.p_value, 0.05) << "n=" << n;
    std::tie(x, y) = samples_with_u(n, critical + 1);
    t = mann_whitney_u(x, y, UTestMethod::Exact);
    EXPECT_GT(t.p_value, 0.05) << "n=" << n;
  }
}

TEST(MannWhitney, EdgeCases) {
  const std::vector<double> one = {1}, two = {1, 2}, same = {3, 3, 3};
  auto t = mann_whitney_u(one, two);
  EXPECT_FALSE(t.enough);  // compare.py needs 2 repetitions on each side
  EXPECT_EQ(t.p_value, 1);
  EXPECT_FALSE(significant(t));

  t = mann_whitney_u(same, same);
  EXPECT_TRUE(t.ties);
  EXPECT_EQ(t.p_value, 1);  // nothing tells them apart

  // Completely separated samples of 10: exact p = 2 / C(20, 10).
  std::vector<double> lo, hi;
  for (int i = 0; i < 10; ++i) lo.push_back(i), hi.push_back(100 + i);
  t = mann_whitney_u(lo, hi, UTestMethod::Exact);
  EXPECT_NEAR(t.p_value, 2.0 / 184756, 1e-15);
  EXPECT_TRUE(significant(t));
  t = mann_whitney_u(lo, hi);  // the same by the normal approximation, continuity-corrected
  EXPECT_NEAR(t.p_value, 0.00018267179110955002, 1e-10);
}
