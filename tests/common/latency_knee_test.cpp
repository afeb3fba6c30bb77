// The knee of a hockey stick: the last rate held with a p99 near the lightest load's.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "common/latency_knee.h"

using namespace perflab;

namespace {

// A path that holds every rate up to `capacity` with a flat p99 of 1 and then queues.
std::vector<KneePoint> hockey_stick(double capacity) {
  std::vector<KneePoint> out;
  for (double offered : {1000.0, 3000.0, 5000.0, 7000.0, 9000.0, 11000.0}) {
    const bool past = offered > capacity;
    out.push_back({offered, past ? capacity : offered, past ? 200.0 : 1.0});
  }
  return out;
}

}  // namespace

TEST(LatencyKnee, IsTheLastRateHeldBeforeTheTailRises) {
  const auto sweep = hockey_stick(8000);
  const auto knee = latency_knee(sweep);
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(sweep[*knee].offered, 7000);
  EXPECT_EQ(*latency_knee(hockey_stick(100000)), 5u);  // never past it: the highest rate
}

TEST(LatencyKnee, ARateNotHeldEndsItEvenWithALowTail) {
  auto sweep = hockey_stick(100000);
  sweep[3].achieved = sweep[3].offered * 0.985;  // below 99% of the offered rate
  EXPECT_EQ(*latency_knee(sweep), 2u);
  sweep[3].achieved = sweep[3].offered * 0.991;
  EXPECT_EQ(*latency_knee(sweep), 5u);
}

TEST(LatencyKnee, ATailPastTheFactorEndsItEvenWhenTheRateWasHeld) {
  auto sweep = hockey_stick(100000);
  sweep[2].p99 = kKneeP99Factor * 1.01;
  EXPECT_EQ(*latency_knee(sweep), 1u);
  sweep[2].p99 = kKneeP99Factor;  // at the factor: still near
  EXPECT_EQ(*latency_knee(sweep), 5u);
  EXPECT_EQ(*latency_knee(sweep, kKneeHeldShare, 2.0), 1u);
}

TEST(LatencyKnee, APassingRateAfterTheFirstFailureIsNoKnee) {
  auto sweep = hockey_stick(100000);
  sweep[1].p99 = 50;  // one bad point: the sweep collapsed there, whatever follows
  EXPECT_EQ(*latency_knee(sweep), 0u);
}

TEST(LatencyKnee, NoneWhenTheLightestLoadFailsOrThereAreNoPoints) {
  auto sweep = hockey_stick(100000);
  sweep[0].achieved = sweep[0].offered / 2;
  EXPECT_FALSE(latency_knee(sweep).has_value());
  EXPECT_FALSE(latency_knee(std::vector<KneePoint>{}).has_value());
}

TEST(LatencyKnee, RefusesAnUnsortedSweepOrMeaninglessBounds) {
  auto sweep = hockey_stick(100000);
  std::swap(sweep[1], sweep[2]);
  EXPECT_THROW(latency_knee(sweep), std::invalid_argument);
  EXPECT_THROW(latency_knee(hockey_stick(1), 0.0), std::invalid_argument);
  EXPECT_THROW(latency_knee(hockey_stick(1), 0.99, 0.5), std::invalid_argument);
}
