// The open-loop schedules of intended send times: uniform connections interleave without drift,
// Poisson gaps are exponential at a connection's share of the rate.
#include "common/open_loop_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

using namespace perflab;

TEST(ArrivalSchedule, UniformConnectionsInterleaveEvenly) {
  // 4 connections sharing 1,000 req/s: each every 4 ms, connection i offset by i ms, so all of
  // them together send one request per millisecond, without drift.
  std::vector<std::int64_t> all;
  for (int i = 0; i < 4; ++i) {
    ArrivalSchedule s(1000, i, 4, Arrivals::Uniform, 1, 5'000'000);
    for (int k = 0; k < 25'000; ++k) {
      all.push_back(s.next_ns());
      s.advance();
    }
  }
  std::sort(all.begin(), all.end());
  for (std::size_t j = 0; j < all.size(); ++j)
    ASSERT_EQ(all[j], 5'000'000 + static_cast<std::int64_t>(j) * 1'000'000) << j;
  EXPECT_THROW(ArrivalSchedule(0, 0, 1, Arrivals::Uniform, 1, 0), std::invalid_argument);
}

TEST(ArrivalSchedule, PoissonGapsAreExponentialAtTheConnectionsShare) {
  // One connection of 10 sharing 1,000 req/s: exponential gaps of mean 10 ms (CV 1).
  ArrivalSchedule s(1000, 3, 10, Arrivals::Poisson, 42, 0);
  std::int64_t prev = 0;
  double sum = 0, sum2 = 0;
  const int n = 20000;
  for (int k = 0; k < n; ++k) {
    const double gap = static_cast<double>(s.next_ns() - prev);
    ASSERT_GE(gap, 0);
    sum += gap;
    sum2 += gap * gap;
    prev = s.next_ns();
    s.advance();
  }
  const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
  EXPECT_NEAR(mean, 10e6, 0.05 * 10e6);
  EXPECT_NEAR(sd / mean, 1.0, 0.05);
  // Another seed, another schedule; the same seed, the same.
  ArrivalSchedule a(1000, 3, 10, Arrivals::Poisson, 42, 0),
      b(1000, 3, 10, Arrivals::Poisson, 43, 0);
  ArrivalSchedule c(1000, 3, 10, Arrivals::Poisson, 42, 0);
  EXPECT_NE(a.next_ns(), b.next_ns());
  EXPECT_EQ(a.next_ns(), c.next_ns());
}

TEST(ArrivalSchedule, ParsesArrivals) {
  EXPECT_EQ(parse_arrivals("Poisson"), Arrivals::Poisson);
  EXPECT_EQ(parse_arrivals("uniform"), Arrivals::Uniform);
  EXPECT_THROW(parse_arrivals("bursty"), std::invalid_argument);
}
