// RunBudget: a run's wall-time budget shared by its points, with a fake clock.
#include <gtest/gtest.h>

#include <stdexcept>

#include "runner/run_budget.h"

using namespace perflab;

TEST(RunBudget, APointTakesWhatRemainsOverThePointsLeft) {
  RunBudget b(120);
  b.expect_points(4);
  EXPECT_DOUBLE_EQ(*b.take_point(0), 30);  // 120 s over 4 points
  // The first point settled in 10 s: its spare goes to the three after it.
  EXPECT_DOUBLE_EQ(*b.take_point(10), 110.0 / 3);
  EXPECT_EQ(b.points_left(), 2u);
  EXPECT_DOUBLE_EQ(*b.take_point(100), 10);
  EXPECT_DOUBLE_EQ(*b.take_point(110), 10);  // the last takes all that remains
  EXPECT_EQ(b.points_left(), 0u);
}

TEST(RunBudget, AnOverrunLeavesNothingToTheRest) {
  RunBudget b(60);
  b.expect_points(3);
  EXPECT_DOUBLE_EQ(*b.take_point(0), 20);
  EXPECT_DOUBLE_EQ(*b.take_point(75), 0);  // past the budget: the minimum rounds only
  // Points beyond those announced take what remains, nothing here.
  EXPECT_DOUBLE_EQ(*b.take_point(80), 0);
  EXPECT_DOUBLE_EQ(*b.take_point(90), 0);
}

TEST(RunBudget, WithoutPointsAnnouncedAPointMayTakeAll) {
  RunBudget b(50);
  EXPECT_DOUBLE_EQ(*b.take_point(5), 45);
}

TEST(RunBudget, NoBudgetNoShare) {
  RunBudget none;
  EXPECT_FALSE(none.limited());
  none.expect_points(3);
  EXPECT_FALSE(none.take_point(0).has_value());
  EXPECT_THROW(RunBudget(0), std::invalid_argument);
  EXPECT_THROW(RunBudget(-1), std::invalid_argument);
}
