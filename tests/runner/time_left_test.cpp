// TimeLeft: the time a run has left, from the progress it reports, against known run shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "runner/time_left.h"

using namespace perflab;

namespace {

// The estimated whole length at `t` of a run whose progress at time s is progress(s), reported
// every `every` seconds from the start.
template <class Progress>
double total_at(TimeLeft& est, Progress progress, double t, double every = 0.5) {
  for (double s = every; s <= t + 1e-9; s += every) est.add(progress(s), s);
  return t + est.seconds_left(t).value_or(NAN);
}

}  // namespace

TEST(TimeLeft, NothingUntilThereIsProgressToTell) {
  TimeLeft est;
  EXPECT_FALSE(est.seconds_left(0).has_value());
  est.add(0.5, 1.0);  // half done after a second: too soon to tell
  EXPECT_FALSE(est.seconds_left(1.0).has_value());
  TimeLeft slow;
  slow.add(0.01, 10.0);  // ten seconds, 1%: too little done to tell
  EXPECT_FALSE(slow.seconds_left(10.0).has_value());
  slow.add(0.05, 20.0);
  ASSERT_TRUE(slow.seconds_left(20.0).has_value());
  EXPECT_GT(*slow.seconds_left(20.0), 0);
}

TEST(TimeLeft, SteadyProgressGivesTheRunsLength) {
  TimeLeft est;
  const double total = total_at(
      est, [](double s) { return s / 100.0; }, 50.0);
  EXPECT_NEAR(total, 100.0, 1.0);
  EXPECT_NEAR(*est.seconds_left(50.0), 50.0, 1.0);
}

TEST(TimeLeft, ASlowStartStopsCountingOnceItIsWellBehind) {
  // 30 s of servers starting at 2%, then steady to the end at 130 s. Elapsed / fraction says
  // 30+50 / 0.51 = 157 s at the middle; the recent rate says 130 s.
  const auto progress = [](double s) { return s < 30 ? 0.02 : 0.02 + 0.98 * (s - 30) / 100.0; };
  TimeLeft est;
  const double at_half = total_at(est, progress, 80.0);
  EXPECT_NEAR(at_half, 130.0, 130.0 * 0.05);
  EXPECT_GT(80.0 / progress(80.0), 130.0 * 1.15);  // what the naive estimate said
  TimeLeft later;
  EXPECT_NEAR(total_at(later, progress, 105.0), 130.0, 130.0 * 0.02);
}

TEST(TimeLeft, CountsDownBetweenReportsAndMovesSteadily) {
  // Progress reported at the end of 10-second steps of 10% each.
  TimeLeft est;
  const auto steps = [](double s) { return std::floor(s / 10.0) / 10.0; };
  total_at(est, steps, 40.0);
  const double left = *est.seconds_left(40.0);
  EXPECT_NEAR(left, 60.0, 6.0);
  EXPECT_NEAR(*est.seconds_left(45.0), left - 5.0, 1e-9);  // no report: the clock runs down
  // A step that took twice as long: the recent rate (0.2 in the last 30 s) says 135 s in all;
  // the estimate moves towards it, smoothed, not all the way at once.
  est.add(0.4, 50.0);
  est.add(0.5, 60.0);
  const double after = 60.0 + *est.seconds_left(60.0);
  EXPECT_GT(after, 110.0);
  EXPECT_LT(after, 135.0);
}

TEST(TimeLeft, NeverNegativeNorBackwards) {
  TimeLeft est;
  for (double s = 1; s <= 20; ++s) est.add(s / 40.0, s);
  est.add(0.1, 21.0);  // a fraction below one reported before: no progress, not a step back
  ASSERT_TRUE(est.seconds_left(21.0).has_value());
  EXPECT_GT(*est.seconds_left(21.0), 0);
  EXPECT_EQ(*est.seconds_left(1000.0), 0.0);  // an estimated end long past: nothing left
  est.add(0.6, 22.0);
  est.add(1.0, 23.0);
  EXPECT_EQ(*est.seconds_left(23.0), 0.0);
  EXPECT_DOUBLE_EQ(*est.estimated_total(), 23.0);
  est.reset();
  EXPECT_FALSE(est.seconds_left(0).has_value());
}

TEST(TimeLeft, NoProgressLatelyFallsBackToTheWholeRunsRate) {
  TimeLeft est;
  est.add(0.3, 10.0);
  est.add(0.3, 60.0);  // 50 s without progress
  ASSERT_TRUE(est.seconds_left(60.0).has_value());
  EXPECT_TRUE(std::isfinite(*est.seconds_left(60.0)));
  EXPECT_GT(*est.seconds_left(60.0), 0);
}

TEST(TimeLeft, ServersStartingBeforeAnyProgressDoNotCount) {
  // A 25 s run whose first 5 s (a fifth) start servers at none done, then steady to the end:
  // from a quarter of the time on, the estimate is the run's length. Counting the start as a
  // slow beginning said 108 s at a quarter and 49 s at half.
  const auto progress = [](double s) { return s <= 5 ? 0.0 : (s - 5) / 20.0; };
  for (const double t : {6.25, 12.5, 18.75}) {
    TimeLeft est;
    EXPECT_NEAR(total_at(est, progress, t), 25.0, 25.0 * 0.05) << "at " << t << " s";
  }
  TimeLeft early;
  total_at(early, progress, 5.5);  // half a second of progress: too soon to tell
  EXPECT_FALSE(early.seconds_left(5.5).has_value());
}

TEST(TimeLeft, AShortRunFollowsItsPaceWithinSeconds) {
  // 6 s at one pace (30% done), then the rest more than twice as fast: the run ends at 12 s.
  // Four seconds after the change the estimate has followed it; smoothing over 5 s, as for a
  // run of minutes, still said 16.4 s.
  const auto progress = [](double s) { return s <= 6 ? s / 20.0 : 0.3 + (s - 6) * 0.7 / 6.0; };
  TimeLeft est;
  EXPECT_NEAR(total_at(est, progress, 10.0), 12.0, 12.0 * 0.1);
}

TEST(TimeLeft, ALongRunWithAStartIsEstimatedAsBefore) {
  // A default run of a quarter of an hour: 30 s of servers and setup at none done, then points
  // of 1.5 s each. Within 2% at a quarter, half and three quarters of it.
  const auto progress = [](double s) {
    return s <= 30 ? 0.0 : std::min(1.0, std::floor((s - 30) / 1.5) * 1.5 / 870.0);
  };
  for (const double t : {225.0, 450.0, 675.0}) {
    TimeLeft est;
    EXPECT_NEAR(total_at(est, progress, t), 900.0, 900.0 * 0.02) << "at " << t << " s";
  }
}

TEST(TimeLeft, ARunOfSecondsShowsItsTimeLeftFromATenthDone) {
  // A caching lecture run: 0.2 s storing records at none done, then 2 s of measuring reported
  // every 20 ms. At a quarter, half and three quarters of it the time left is within 20%;
  // waiting 3 s, there was none before its end.
  const auto progress = [](double s) { return std::clamp((s - 0.2) / 2.0, 0.0, 1.0); };
  for (const double t : {0.55, 1.1, 1.65}) {
    TimeLeft est;
    EXPECT_NEAR(total_at(est, progress, t, 0.02), 2.2, (2.2 - t) * 0.2) << "at " << t << " s";
  }
  TimeLeft early;  // less than a tenth done
  total_at(early, progress, 0.38, 0.02);
  EXPECT_FALSE(early.seconds_left(0.38).has_value());
  TimeLeft once;  // a tenth done in one report: no pace measured yet
  once.add(0.0, 0.2);
  once.add(0.2, 0.6);
  EXPECT_FALSE(once.seconds_left(0.6).has_value());
}
