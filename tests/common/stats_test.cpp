#include <gtest/gtest.h>

#include <vector>

#include "common/stats.h"

using perflab::summarize;

TEST(Stats, EmptyIsZero) {
  auto s = summarize(std::vector<double>{});
  EXPECT_EQ(s.n, 0u);
  EXPECT_EQ(s.median, 0);
}

TEST(Stats, KnownValues) {
  std::vector<double> v = {5, 1, 4, 2, 3};
  auto s = summarize(v);
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_NEAR(s.stddev, 1.5811388300841898, 1e-12);  // sample standard deviation
  EXPECT_DOUBLE_EQ(s.p95, 4.8);                      // 4 + 0.8 * (5 - 4)
}

TEST(Stats, EvenCountMedianInterpolates) {
  std::vector<double> v = {10, 20, 30, 40};
  EXPECT_DOUBLE_EQ(summarize(v).median, 25);
  EXPECT_DOUBLE_EQ(perflab::quantile(v, 0.0), 10);
  EXPECT_DOUBLE_EQ(perflab::quantile(v, 1.0), 40);
}

TEST(Stats, SingleSampleHasNoSpread) {
  std::vector<double> v = {7};
  auto s = summarize(v);
  EXPECT_DOUBLE_EQ(s.median, 7);
  EXPECT_DOUBLE_EQ(s.p95, 7);
  EXPECT_DOUBLE_EQ(s.stddev, 0);
}
