// An open-loop round of a blocking client without a server: a stall counts for every request
// due during it, a rate the request's own time cannot keep is "not held", Poisson arrivals offer
// the rate on average, and a stop ends the round.
#include "runner/open_loop_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stop_token>
#include <thread>

#include "runner/experiment.h"

using namespace perflab;
using namespace std::chrono_literals;

namespace {
std::uint64_t count_at_or_above(const LatencyRecorder& r, std::int64_t ns) {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i <= r.last_nonzero_index() && i < LatencyRecorder::kCountsLength; ++i)
    if (LatencyRecorder::lowest_equivalent_ns(i) >= ns) n += r.count_at_index(i);
  return n;
}
}  // namespace

TEST(OpenLoopClient, AStallCountsForEveryRequestDueDuringIt) {
  // 1,000 req/s for 1.2 s; the 200th request stalls 500 ms. The requests due during the stall
  // wait for it: those due in its first half wait 250 ms or more (about 250 of them), where a
  // closed-loop client would have recorded the stall once.
  int k = 0;
  const OpenLoopRound r =
      run_open_loop({.rate = 1000, .arrivals = Arrivals::Uniform, .requests = 1200, .seed = 1},
                    [&] {
                      if (k++ == 200) std::this_thread::sleep_for(500ms);
                    },
                    {});
  EXPECT_EQ(r.requests, 1200);
  EXPECT_EQ(r.latency.count(), 1200u);
  EXPECT_GE(r.latency.max_ns(), 500'000'000);
  const std::uint64_t slow = count_at_or_above(r.latency, 250'000'000);
  EXPECT_GE(slow, 240u);
  EXPECT_LE(slow, 320u);
  // The client caught up after the stall: its own lag is not where the stall went.
  EXPECT_LT(r.generator_lag.value_at_percentile_ns(50), 250'000'000);
  EXPECT_NEAR(r.offered_rps, 1000, 1e-6);
}

TEST(OpenLoopClient, ARateTheServerCannotKeepIsNotHeld) {
  // Each request takes 4 ms: 250 req/s at most against 1,000 offered.
  const OpenLoopRound r =
      run_open_loop({.rate = 1000, .arrivals = Arrivals::Uniform, .requests = 100, .seed = 1},
                    [] { std::this_thread::sleep_for(4ms); }, {});
  EXPECT_FALSE(r.rate_held);
  EXPECT_FALSE(r.valid());
  EXPECT_LT(r.achieved_rps, 260);
  EXPECT_NE(open_loop_round_problem(r).find("rate not held (completed "), std::string::npos)
      << open_loop_round_problem(r);
  EXPECT_NE(open_loop_round_problem(r).find(" of the 1000 req/s offered, "), std::string::npos);
}

TEST(OpenLoopClient, PoissonArrivalsOfferTheRateOnAverage) {
  const OpenLoopRound r = run_open_loop(
      {.rate = 2000, .arrivals = Arrivals::Poisson, .requests = 2000, .seed = 7}, [] {}, {});
  EXPECT_EQ(r.latency.count(), 2000u);
  EXPECT_NEAR(r.offered_rps, 2000, 0.1 * 2000);
}

TEST(OpenLoopClient, AStopEndsTheRoundAndARoundNeedsARate) {
  std::stop_source stop;
  int sent = 0;
  EXPECT_THROW(run_open_loop(
                   {.rate = 100, .arrivals = Arrivals::Uniform, .requests = 1000},
                   [&] {
                     if (++sent == 3) stop.request_stop();
                   },
                   stop.get_token()),
               Cancelled);
  EXPECT_EQ(sent, 3);
  EXPECT_THROW(run_open_loop({.rate = 0, .requests = 1}, [] {}, {}), std::invalid_argument);
}

TEST(OpenLoopClient, TheProblemSentencesComeFromTheFigures) {
  OpenLoopRound r;
  r.offered_rps = 1000;
  r.achieved_rps = 812;
  r.rate_held = false;
  EXPECT_EQ(open_loop_round_problem(r),
            "rate not held (completed 812 req/s of the 1000 req/s offered, 81.2%)");
  r.rate_held = true;
  r.achieved_rps = 999;
  EXPECT_EQ(open_loop_round_problem(r), "");
  r.fell_behind = true;
  r.generator_lag.record_ns(3'200'000);
  EXPECT_EQ(open_loop_round_problem(r),
            "the client fell behind (its own lag p99 3.20 ms > 1.0 ms)");
  r.lag_limit_ms = 2.5;
  EXPECT_EQ(open_loop_round_problem(r),
            "the client fell behind (its own lag p99 3.20 ms > 2.5 ms)");
}
