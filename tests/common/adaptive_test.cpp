#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/adaptive.h"

using namespace perflab;
using Decision = AdaptiveRepetitions::Decision;

namespace {
// Feeds rounds of two interleaved variants (a = 0.8 b, each with multiplicative noise `cv`) and
// a fake clock advancing `seconds_per_round`, until the controller decides.
// `drift` (log-sd) is a factor shared by both variants of a round: the machine's mood.
// drive_ratio: the same with a = ratio * b.
Decision drive_ratio(AdaptiveRepetitions& c, double ratio, double cv, double seconds_per_round,
                     std::uint64_t seed, double drift = 0) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> noise(0, cv), shared(0, 1);
  double clock = 0;
  Decision d = Decision::Continue;
  while (d == Decision::Continue) {
    const double mood = std::exp(drift * shared(g));
    const double round[] = {100 * ratio * mood * std::exp(noise(g)),
                            100 * mood * std::exp(noise(g))};
    clock += seconds_per_round;
    d = c.add_round(round, clock);
  }
  return d;
}

Decision drive(AdaptiveRepetitions& c, double cv, double seconds_per_round, std::uint64_t seed,
               double drift = 0) {
  return drive_ratio(c, 0.8, cv, seconds_per_round, seed, drift);
}

PrecisionGoal goal(double precision) {
  PrecisionGoal g;
  g.precision = precision;
  g.resamples = 300;
  return g;
}
}  // namespace

TEST(Adaptive, StopsWhenThePrecisionIsReached) {
  AdaptiveRepetitions c(goal(0.02), 2);
  c.track_ratio(0, 1);
  c.track_median(0);
  EXPECT_EQ(drive(c, 0.02, 0.1, 1), Decision::PrecisionReached);
  EXPECT_TRUE(c.precision_reached());
  EXPECT_TRUE(c.done());
  EXPECT_GE(c.rounds(), 6);
  EXPECT_LT(c.rounds(), 200);
  EXPECT_LE(c.worst_relative_half_width(), 0.02);
  ASSERT_EQ(c.estimates().size(), 2u);
  EXPECT_EQ(c.estimates()[0].method, CiMethod::PairedBootstrap);
  EXPECT_TRUE(c.estimates()[0].contains(0.8));
  EXPECT_LE(c.estimates()[0].relative_half_width(), 0.02);
  EXPECT_EQ(c.estimates()[1].method, CiMethod::OrderStatistic);
  EXPECT_EQ(c.samples(0).size(), static_cast<std::size_t>(c.rounds()));
  EXPECT_THROW(c.add_round(std::vector<double>{1, 1}, 100), std::logic_error);
}

TEST(Adaptive, NoisierPointsNeedMoreRounds) {
  AdaptiveRepetitions calm(goal(0.02), 2), noisy(goal(0.02), 2);
  calm.track_ratio(0, 1);
  noisy.track_ratio(0, 1);
  ASSERT_EQ(drive(calm, 0.01, 0.1, 2), Decision::PrecisionReached);
  ASSERT_EQ(drive(noisy, 0.06, 0.1, 2), Decision::PrecisionReached);
  EXPECT_GT(noisy.rounds(), calm.rounds());
}

// A shared per-round factor of log-sd 0.2 and 2% own noise: the per-round ratios cancel the
// factor and reach ±2% within 20 rounds; the ratio of medians has not after 60.
TEST(Adaptive, PerRoundRatiosNeedFewerRoundsOnADriftingMachine) {
  auto g = goal(0.02);
  g.max_rounds = 60;
  AdaptiveRepetitions of_medians(g, 2);
  g.ratio_figure = RatioFigure::MedianOfRoundRatios;
  AdaptiveRepetitions of_rounds(g, 2);
  of_medians.track_ratio(0, 1);
  of_rounds.track_ratio(0, 1);
  EXPECT_EQ(drive(of_rounds, 0.02, 0.1, 6, 0.2), Decision::PrecisionReached);
  EXPECT_LE(of_rounds.rounds(), 20);
  EXPECT_EQ(of_rounds.estimates()[0].method, CiMethod::OrderStatistic);
  EXPECT_EQ(drive(of_medians, 0.02, 0.1, 6, 0.2), Decision::RoundLimit);
  EXPECT_GT(of_medians.worst_relative_half_width(), 0.02);
}

TEST(Adaptive, StopsOnTheTimeBudget) {
  auto g = goal(0.02);
  g.budget_seconds = 20;
  AdaptiveRepetitions c(g, 2);
  c.track_ratio(0, 1);
  // 30% noise cannot give ±2% in 20 rounds; one second a round: the 20th round ends at the
  // budget, a 21st would end past it.
  EXPECT_EQ(drive(c, 0.3, 1.0, 3), Decision::TimeBudgetUsed);
  EXPECT_EQ(c.rounds(), 20);
  EXPECT_FALSE(c.precision_reached());
  EXPECT_GT(c.worst_relative_half_width(), 0.02);
}

TEST(Adaptive, StopsOnTheRoundLimit) {
  auto g = goal(0.02);
  g.max_rounds = 10;
  AdaptiveRepetitions c(g, 2);
  c.track_ratio(0, 1);
  EXPECT_EQ(drive(c, 0.3, 0.01, 4), Decision::RoundLimit);
  EXPECT_EQ(c.rounds(), 10);
  EXPECT_FALSE(c.precision_reached());
}

TEST(Adaptive, AlwaysMeasuresTheMinimumRounds) {
  auto g = goal(0.02);
  g.min_rounds = 9;
  AdaptiveRepetitions c(g, 1);  // no figure named: the variant's median is watched
  int rounds = 0;
  Decision d = Decision::Continue;
  while (d == Decision::Continue) d = c.add_round(std::vector<double>{5.0}, ++rounds);
  // Identical samples are precise from the start, and still 9 rounds are measured.
  EXPECT_EQ(d, Decision::PrecisionReached);
  EXPECT_EQ(c.rounds(), 9);
  EXPECT_EQ(c.worst_relative_half_width(), 0);

  // The budget does not cut the minimum short either.
  g.budget_seconds = 1;
  AdaptiveRepetitions slow(g, 1);
  for (int r = 1; r < 9; ++r)
    EXPECT_EQ(slow.add_round(std::vector<double>{5.0 + r}, 10.0 * r), Decision::Continue);
  EXPECT_EQ(slow.add_round(std::vector<double>{5.0}, 90), Decision::TimeBudgetUsed);
}

TEST(Adaptive, SameRoundsSameDecision) {
  AdaptiveRepetitions a(goal(0.03), 2), b(goal(0.03), 2);
  a.track_ratio(0, 1);
  b.track_ratio(0, 1);
  drive(a, 0.05, 0.1, 5);
  drive(b, 0.05, 0.1, 5);
  EXPECT_EQ(a.rounds(), b.rounds());
  EXPECT_EQ(a.worst_relative_half_width(), b.worst_relative_half_width());
}

TEST(Adaptive, RejectsBadUse) {
  EXPECT_THROW(AdaptiveRepetitions(goal(0), 2), std::invalid_argument);
  EXPECT_THROW(AdaptiveRepetitions(goal(0.02), 0), std::invalid_argument);
  auto g = goal(0.02);
  g.max_rounds = 3;
  EXPECT_THROW(AdaptiveRepetitions(g, 2), std::invalid_argument);  // below min_rounds
  g = goal(0.02);
  g.budget_seconds = -1;
  EXPECT_THROW(AdaptiveRepetitions(g, 2), std::invalid_argument);

  AdaptiveRepetitions c(goal(0.02), 2);
  EXPECT_THROW(c.track_ratio(0, 0), std::invalid_argument);
  EXPECT_THROW(c.track_ratio(0, 2), std::invalid_argument);
  EXPECT_THROW(c.track_median(2), std::invalid_argument);
  EXPECT_THROW(c.add_round(std::vector<double>{1}, 0), std::invalid_argument);
  EXPECT_STREQ(to_string(Decision::TimeBudgetUsed), "time budget used");
}

namespace {
// The verdict rule alone at the default threshold (2%), from 6 rounds, 60 s a point.
PrecisionGoal to_verdicts(int min_rounds = 6) {
  PrecisionGoal g;
  g.precision = 0;
  g.verdict_threshold = 0.02;
  g.min_rounds = min_rounds;
  return g;
}

// The verdict the finding over these samples will state (comparison_finding: ratio_ci with its
// default options, judged at 2%).
Verdict stated(const AdaptiveRepetitions& c) {
  const auto r = ratio_ci(c.samples(0), c.samples(1));
  return r ? judge_ratio(*r, Better::Lower, 0.02) : Verdict::TooFewSamples;
}
}  // namespace

TEST(AdaptiveVerdicts, StopsWhenTheIntervalIsWhollyBeyondTheBand) {
  AdaptiveRepetitions c(to_verdicts(), 2);
  c.track_ratio(0, 1);
  EXPECT_EQ(drive_ratio(c, 0.8, 0.03, 1.0, 11), Decision::VerdictsReached);
  EXPECT_TRUE(c.settled());
  EXPECT_FALSE(c.precision_reached());
  EXPECT_EQ(c.rounds(), 6);  // clear at the first full-level interval
  EXPECT_EQ(c.ratios(), 1);
  EXPECT_EQ(c.settled_ratios(), 1);
  EXPECT_EQ(stated(c), Verdict::Faster);  // what the finding says is the verdict it stopped on
  EXPECT_EQ(c.estimates()[0].method, CiMethod::PairedBootstrap);
  EXPECT_LT(c.estimates()[0].hi, 0.98);
}

TEST(AdaptiveVerdicts, StopsWhenTheIntervalIsWhollyInsideTheBand) {
  AdaptiveRepetitions c(to_verdicts(), 2);
  c.track_ratio(0, 1);
  // Equal variants, 1% noise: the interval narrows into [0.98, 1.02] after some rounds.
  EXPECT_EQ(drive_ratio(c, 1.0, 0.01, 1.0, 12), Decision::VerdictsReached);
  EXPECT_EQ(stated(c), Verdict::Equivalent);
  EXPECT_GE(c.estimates()[0].lo, 0.98);
  EXPECT_LE(c.estimates()[0].hi, 1.02);
}

namespace {
// Rounds of {80, a, 100}, a taking turns at 95 and 109, one second each, until the controller
// decides: 80/100 = 0.8 is clear at once; a/100 stays [0.95–1.09] however many rounds (its
// resampled medians are 95, 102 or 109), across the band 1 ± 2% for good.
Decision drive_straddling(AdaptiveRepetitions& c) {
  Decision d = Decision::Continue;
  for (int r = 0; d == Decision::Continue; ++r) {
    const double round[] = {80, r % 2 == 0 ? 95.0 : 109.0, 100};
    d = c.add_round(round, r + 1.0);
  }
  return d;
}
}  // namespace

TEST(AdaptiveVerdicts, GoesOnWhileTheIntervalStraddlesTheBand) {
  // No verdict can be stated, so only the budget ends the point; with none left (the run's is
  // spent), after its minimum rounds.
  for (const auto& [budget, rounds] : {std::pair{40.0, 40}, std::pair{0.0, 6}}) {
    SCOPED_TRACE(budget);
    auto g = to_verdicts();
    g.budget_seconds = budget;
    AdaptiveRepetitions c(g, 3);
    c.track_ratio(1, 2);
    EXPECT_EQ(drive_straddling(c), Decision::TimeBudgetUsed);
    EXPECT_EQ(c.rounds(), rounds);
    EXPECT_FALSE(c.settled());
    EXPECT_EQ(c.settled_ratios(), 0);
    const auto r = ratio_ci(c.samples(1), c.samples(2));
    ASSERT_TRUE(r.has_value());
    EXPECT_FALSE(settles(judge_ratio(*r, Better::Lower, 0.02)));  // the finding's verdict
    EXPECT_TRUE(r->contains(0.98) && r->contains(1.02)) << r->lo << " " << r->hi;
  }
}

TEST(AdaptiveVerdicts, WaitsForEveryRatio) {
  auto g = to_verdicts();
  g.budget_seconds = 30;
  AdaptiveRepetitions c(g, 3);
  c.track_ratio(0, 2);  // settles at once
  c.track_ratio(1, 2);  // never
  EXPECT_EQ(drive_straddling(c), Decision::TimeBudgetUsed);
  EXPECT_EQ(c.rounds(), 30);
  EXPECT_EQ(c.ratios(), 2);
  EXPECT_EQ(c.settled_ratios(), 1);
}

TEST(AdaptiveVerdicts, NeedsAFullLevelInterval) {
  // From 3 rounds, a clear difference still waits for the 6th: below it the interval is at most
  // 87.5%, not the 95% a verdict is stated on.
  AdaptiveRepetitions c(to_verdicts(3), 2);
  c.track_ratio(0, 1);
  EXPECT_EQ(drive_ratio(c, 0.5, 0.01, 1.0, 15), Decision::VerdictsReached);
  EXPECT_EQ(c.rounds(), 6);
}

TEST(AdaptiveVerdicts, APointWithoutRatiosEndsAtItsMinimum) {
  AdaptiveRepetitions c(to_verdicts(4), 2);  // nothing tracked: medians, which have no verdict
  EXPECT_EQ(drive_ratio(c, 0.9, 0.3, 1.0, 16), Decision::VerdictsReached);
  EXPECT_EQ(c.rounds(), 4);
  EXPECT_EQ(c.ratios(), 0);
}

TEST(AdaptiveVerdicts, WithAPrecisionBothRulesHold) {
  auto g = to_verdicts();
  g.precision = 0.005;
  g.resamples = 300;
  g.max_rounds = 30;
  AdaptiveRepetitions c(g, 2);
  c.track_ratio(0, 1);
  // The verdict is clear at 6 rounds; ±0.5% with 5% noise is not reached in 30.
  EXPECT_EQ(drive_ratio(c, 0.5, 0.05, 0.01, 18), Decision::RoundLimit);
  EXPECT_EQ(c.settled_ratios(), 1);
  EXPECT_FALSE(c.settled());
}

TEST(AdaptiveVerdicts, RejectsBadUse) {
  auto g = to_verdicts();
  g.verdict_threshold = -0.01;
  EXPECT_THROW(AdaptiveRepetitions(g, 2), std::invalid_argument);
  g = to_verdicts();
  g.budget_seconds = -1;
  EXPECT_THROW(AdaptiveRepetitions(g, 2), std::invalid_argument);
  EXPECT_STREQ(to_string(Decision::VerdictsReached), "verdicts reached");
}

namespace {
// Focused rounds of {80, a, 100, 90}: variant 3 is in no tracked ratio; a takes turns at 95 and
// 109 (never settles against 100), 80/100 settles at once. NaN for what needs() leaves out.
Decision drive_focused(AdaptiveRepetitions& c, std::vector<int>& measured) {
  measured.assign(4, 0);
  Decision d = Decision::Continue;
  for (int r = 0; d == Decision::Continue; ++r) {
    std::vector<double> round = {80, r % 2 == 0 ? 95.0 : 109.0, 100, 90};
    for (std::size_t v = 0; v < round.size(); ++v) {
      if (c.needs(v))
        ++measured[v];
      else
        round[v] = std::nan("");
    }
    d = c.add_round(round, r + 1.0);
  }
  return d;
}
}  // namespace

// Focused, a point measures after its minimum only what an open ratio needs: the settled one
// keeps its verdict, its own variant stops, the shared one goes on, the untracked one stops.
TEST(AdaptiveVerdicts, FocusedRoundsMeasureOnlyWhatAnOpenRatioNeeds) {
  auto g = to_verdicts();
  g.budget_seconds = 30;
  AdaptiveRepetitions c(g, 4);
  c.track_ratio(0, 2);  // 80 / 100: settles at the 6th round
  c.track_ratio(1, 2);  // never
  c.focus();
  for (std::size_t v = 0; v < 4; ++v) EXPECT_TRUE(c.needs(v)) << v;  // the minimum: everything
  std::vector<int> measured;
  EXPECT_EQ(drive_focused(c, measured), Decision::TimeBudgetUsed);
  EXPECT_EQ(c.rounds(), 30);
  EXPECT_EQ(measured, (std::vector<int>{6, 30, 30, 6}));
  EXPECT_EQ(c.samples(0).size(), 6u);
  EXPECT_EQ(c.samples(2).size(), 30u);
  EXPECT_EQ(c.settled_ratios(), 1);  // the settled ratio stays settled
  // Its finding, over the rounds the two share, states the verdict it was settled on.
  const std::span<const double> both(c.samples(2).data(), c.samples(0).size());
  const auto r = ratio_ci(c.samples(0), both);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->method, CiMethod::PairedBootstrap);
  EXPECT_EQ(judge_ratio(*r, Better::Lower, 0.02), Verdict::Faster);
  EXPECT_DOUBLE_EQ(c.estimates()[0].value, r->value);

  // Unfocused (or under a precision rule) every variant is measured every round.
  AdaptiveRepetitions all(g, 4);
  all.track_ratio(0, 2);
  all.track_ratio(1, 2);
  EXPECT_EQ(drive_focused(all, measured), Decision::TimeBudgetUsed);
  EXPECT_EQ(measured, (std::vector<int>(4, 30)));
  auto precise = g;
  precise.precision = 0.5;
  AdaptiveRepetitions with_precision(precise, 4);
  with_precision.track_ratio(0, 2);
  with_precision.focus();
  drive_focused(with_precision, measured);
  EXPECT_EQ(measured[3], with_precision.rounds());
}

TEST(AdaptiveVerdicts, FocusedRoundsRejectASampleOfAVariantNoLongerMeasured) {
  AdaptiveRepetitions c(to_verdicts(), 3);
  c.track_ratio(0, 1);
  c.focus();
  for (int r = 0; r < 6; ++r) c.add_round(std::vector<double>{80, 100, 90}, r + 1.0);
  ASSERT_TRUE(c.done());  // 80/100 settled at the 6th round
  AdaptiveRepetitions open(to_verdicts(), 3);
  open.track_ratio(0, 1);
  open.focus();
  for (int r = 0; r < 6; ++r)
    open.add_round(std::vector<double>{r % 2 == 0 ? 95.0 : 109.0, 100, 90}, r + 1.0);
  EXPECT_FALSE(open.needs(2));  // in no ratio: the minimum only
  EXPECT_THROW(open.add_round(std::vector<double>{95, 100, 90}, 7), std::invalid_argument);
  EXPECT_NO_THROW(open.add_round(std::vector<double>{95, 100, std::nan("")}, 7));
}
