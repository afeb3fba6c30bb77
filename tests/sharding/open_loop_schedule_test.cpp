// Open loop without a server: the arrival schedules, the judgement of a rate and the sentences
// and output generated from it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sharding/loadgen.h"
#include "sharding/open_loop.h"

using namespace perflab::sharding;

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

namespace {
BenchResult open_result(double target, double achieved, double generator_lag_p99_ms) {
  BenchResult r;
  r.test = BenchTest::Get;
  r.requests = 6000;
  r.seconds = 6000 / achieved;
  r.rps = achieved;
  r.open_loop.target_rps = r.open_loop.offered_rps = target;
  r.open_loop.generator_lag_p99_ms = generator_lag_p99_ms;
  r.open_loop.send_lag_p99_ms = generator_lag_p99_ms;
  judge_open_loop(r.open_loop, achieved);
  return r;
}
}  // namespace

TEST(OpenLoopVerdict, HeldFellBehindOrPastTheKnee) {
  const BenchResult held = open_result(2000, 1995, 0.2);
  EXPECT_TRUE(held.open_loop.rate_held);
  EXPECT_FALSE(held.open_loop.fell_behind);
  EXPECT_EQ(open_loop_verdict(held),
            "rate held: completed 1995 req/s of the 2000 req/s offered "
            "(99.8%).");

  const BenchResult behind = open_result(2000, 1995, 3.25);
  EXPECT_TRUE(behind.open_loop.fell_behind);
  EXPECT_EQ(open_loop_verdict(behind),
            "not valid: the generator fell behind (its own send lag p99 3.25 ms > 1 ms), so its "
            "delays are counted as the server's; completed 1995 req/s of the 2000 req/s offered "
            "(99.8%).");

  const BenchResult knee = open_result(2000, 1500, 0.3);
  EXPECT_FALSE(knee.open_loop.rate_held);
  EXPECT_FALSE(knee.open_loop.fell_behind);
  EXPECT_EQ(open_loop_verdict(knee),
            "rate not held: the server completed 1500 req/s of the 2000 req/s offered (75.0%); "
            "the generator kept up (its own send lag p99 0.30 ms), so this rate is past the "
            "server's knee.");

  BenchResult closed;
  closed.rps = 9000;
  EXPECT_EQ(open_loop_verdict(closed), "");
}

TEST(OpenLoopOutput, CorrectedPercentilesAndTheWarning) {
  BenchResult r = open_result(2000, 1990, 4.0);
  r.p50_ms = 0.25;
  r.open_loop.p90_ms = 0.5;
  r.p99_ms = 2.5;
  r.open_loop.p999_ms = 12;
  r.open_loop.p9999_ms = 40;
  r.max_ms = 41;
  BenchOptions o;
  o.clients = 10;
  o.rate = 2000;
  const std::string s = format_open_loop_summary(o, r);
  EXPECT_NE(s.find("open loop: 2000 req/s in all, uniform arrivals per connection (200 req/s "
                   "each), at most 1 outstanding per connection (-P)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("          p50       p90       p99     p99.9    p99.99       max\n"
                   "        0.250     0.500     2.500    12.000    40.000    41.000\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("WARNING: not valid: the generator fell behind"), std::string::npos) << s;
  EXPECT_EQ(format_open_loop_quiet(r),
            "GET: 1990.00 requests per second of 2000.00 targeted, corrected p50=0.250 "
            "p99=2.500 msec (NOT VALID: the generator fell behind)\n");
  EXPECT_EQ(format_open_loop_csv_row(r),
            "\"GET\",\"2000.00\",\"1990.00\",\"0.250\",\"0.500\",\"2.500\",\"12.000\",\"40.000\","
            "\"41.000\",\"4.000\",\"4.000\",\"1\",\"1\"\n");
  // Closed loop says what it is.
  EXPECT_NE(format_bench_summary(o, BenchResult{}).find("closed loop (uncorrected)"),
            std::string::npos);
}
