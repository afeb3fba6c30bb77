// Open loop without a server: the judgement of a rate and the sentences and output generated
// from it (the schedules: tests/common/open_loop_schedule_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sharding/loadgen.h"
#include "sharding/open_loop.h"

using namespace perflab::sharding;

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
