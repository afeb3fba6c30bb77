// Open-loop load against a managed redis-server: a 500 ms pause counts for every request that
// was due during it (closed loop records it once per connection), the target rate is held or
// the result says why not, Stop and the reply timeout end an open-loop run.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <stop_token>
#include <thread>

#include "servers.h"
#include "sharding/loadgen.h"
#include "targets/managed_redis.h"

using namespace perflab;
using namespace perflab::sharding;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// How many recorded latencies are >= us: the rank where the histogram's quantile reaches it.
std::int64_t count_at_least(const LatencyHistogram& h, std::int64_t us) {
  const auto n = static_cast<std::int64_t>(h.count());
  const auto value_at = [&](std::int64_t rank) {  // rank 1..n
    return h.quantile_us((static_cast<double>(rank) - 0.5) / static_cast<double>(n));
  };
  std::int64_t lo = 1, hi = n + 1;  // the first rank whose value is >= us
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) / 2;
    if (value_at(mid) >= us)
      hi = mid;
    else
      lo = mid + 1;
  }
  return n - lo + 1;
}

BenchOptions options(const ManagedRedis& redis, const std::string& name) {
  BenchOptions o;
  o.port = redis.port();
  o.clients = 10;
  o.keyspace = 1000;
  o.key_prefix = test::unique_name(name) + ":";
  o.seed = 7;
  return o;
}

// Runs o's GET while the server is stopped (SIGSTOP) for `pause` from `after` into the run;
// returns the result and sets how long the server really was stopped.
BenchResult run_across_pause(const BenchOptions& o, pid_t server, std::chrono::milliseconds after,
                             std::chrono::milliseconds pause, double& paused_s) {
  std::jthread pauser([&] {
    std::this_thread::sleep_for(after);
    test::Freeze freeze(server);
    const auto t0 = Clock::now();
    std::this_thread::sleep_for(pause);
    paused_s = std::chrono::duration<double>(Clock::now() - t0).count();
    freeze.thaw();
  });
  return run_bench(o, BenchTest::Get);
}

}  // namespace

// Each request's latency is also recorded less the generator's own lag in sending it: never
// above the latency, by at most the lag's maximum at any percentile; from the write (a paced
// closed loop) no lag of the generator is in the latency, so nothing is taken out.
TEST(OpenLoop, TheGeneratorsOwnLagIsTakenOutPerRequest) {
  ManagedRedis redis;
  for (const bool from_intended : {true, false}) {
    SCOPED_TRACE(from_intended ? "open loop" : "paced closed loop");
    BenchOptions o = options(redis, "open-loop-less-lag");
    o.rate = 4000;
    o.requests = 4000;
    o.from_intended = from_intended;
    const BenchResult r = run_bench(o, BenchTest::Get);
    ASSERT_EQ(r.requests, 4000);
    EXPECT_EQ(r.latency_less_lag.count(), r.latency.count());
    const double lag_max_us = 1000 * r.open_loop.send_lag_max_ms + 1;
    for (const double q : {0.5, 0.9, 0.99, 0.999}) {
      SCOPED_TRACE(q);
      const auto with = r.latency.quantile_us(q), less = r.latency_less_lag.quantile_us(q);
      if (!from_intended) {
        EXPECT_EQ(less, with);
        continue;
      }
      EXPECT_LE(less, with);
      EXPECT_GE(static_cast<double>(less), static_cast<double>(with) - lag_max_us);
    }
  }
  BenchOptions closed = options(redis, "open-loop-less-lag");  // no rate: none recorded
  closed.requests = 100;
  EXPECT_EQ(run_bench(closed, BenchTest::Get).latency_less_lag.count(), 0u);
}

TEST(OpenLoop, APauseCountsForEveryRequestDueDuringIt) {
  ManagedRedis redis;
  // Open loop: 1,000 req/s for 3 s, the server stopped for 500 ms in the middle. -P 100: a
  // connection has room for every request that comes due during the pause.
  BenchOptions open = options(redis, "openloop-pause");
  open.rate = 1000;
  open.requests = 3000;
  open.pipeline = 100;
  double open_pause = 0;
  const BenchResult o = run_across_pause(open, redis.pid(), 1250ms, 500ms, open_pause);
  ASSERT_EQ(o.requests, 3000);
  // The requests due during the pause waited for its end: their latencies spread evenly from
  // the stall's length down to 0, so ~rate x (stall - 250 ms) of them are >= 250 ms and
  // ~rate x stall are delayed by it at all (>= 10 ms). The stall is at least the pause; on a
  // loaded machine the server and the generator take a while to catch up after it, which the
  // largest latency shows.
  const std::int64_t at_250 = count_at_least(o.latency, 250'000);
  const std::int64_t at_10 = count_at_least(o.latency, 10'000);
  const double stall = o.max_ms / 1000;
  std::printf(
      "open loop: paused %.3f s, stalled %.3f s; %lld requests >= 250 ms (expected "
      "%.0f-%.0f), %lld >= 10 ms (expected %.0f-%.0f); %s\n",
      open_pause, stall, static_cast<long long>(at_250), 1000 * (open_pause - 0.25),
      1000 * (stall - 0.25), static_cast<long long>(at_10), 1000 * (open_pause - 0.01),
      1000 * (stall - 0.01), open_loop_verdict(o).c_str());
  EXPECT_GE(stall, 0.95 * open_pause);
  EXPECT_GE(at_250, 0.8 * 1000 * (open_pause - 0.25) - 20);
  EXPECT_GE(at_10, 0.8 * 1000 * (open_pause - 0.01) - 20);
  // A generator starved by the machine adds stalls of its own, and says so; otherwise the
  // pause is all there is.
  if (!o.open_loop.fell_behind) {
    EXPECT_LE(at_250, 1.15 * 1000 * (stall - 0.25) + 20);
    EXPECT_LE(at_10, 1.15 * 1000 * (stall - 0.01) + 60);  // + a loaded machine's own delays
  }
  EXPECT_EQ(o.open_loop.target_rps, 1000);

  // Closed loop, the same clients across the same pause: each connection's one request in
  // flight waits, the others are never sent: about one slow request per connection.
  BenchOptions closed = options(redis, "closedloop-pause");
  closed.requests = 1'000'000'000;
  closed.time_limit = 3s;
  double closed_pause = 0;
  const BenchResult c = run_across_pause(closed, redis.pid(), 1250ms, 500ms, closed_pause);
  const std::int64_t closed_250 = count_at_least(c.latency, 250'000);
  std::printf("closed loop: paused %.3f s; %lld requests >= 250 ms of %lld (%d connections)\n",
              closed_pause, static_cast<long long>(closed_250), static_cast<long long>(c.requests),
              closed.clients);
  EXPECT_GE(closed_250, 1);
  EXPECT_LE(closed_250, 3 * closed.clients);
  EXPECT_EQ(c.open_loop.target_rps, 0);
  EXPECT_EQ(open_loop_verdict(c), "");
  EXPECT_GT(at_250, 5 * closed_250);
}

TEST(OpenLoop, HoldsATargetBelowTheKneeOrSaysWhyNot) {
  ManagedRedis redis;
  BenchOptions o = options(redis, "openloop-rate");
  o.rate = 2000;  // far below what redis-server answers on one core
  o.requests = 6000;
  o.pipeline = 16;
  const BenchResult r = run_bench(o, BenchTest::Set);
  const OpenLoopResult& ol = r.open_loop;
  std::printf(
      "target %.0f req/s: achieved %.2f; send lag p99 %.3f ms, the generator's own %.3f "
      "ms; %s\n",
      o.rate, r.rps, ol.send_lag_p99_ms, ol.generator_lag_p99_ms, open_loop_verdict(r).c_str());
  ASSERT_EQ(r.requests, 6000);
  EXPECT_EQ(r.errors, 0);
  // Uniform arrivals offer the target: the requests sent span their schedule. A generator that
  // fell behind sends the last requests of some connections after the pool of 6,000 ran out on
  // the others, so what it sent spans a little more of the schedule: never a higher rate.
  if (!ol.fell_behind)
    EXPECT_NEAR(ol.offered_rps, 2000, 2000 * 0.005);
  else
    EXPECT_LE(ol.offered_rps, 2000 * (1 + 1e-9));
  // Never faster than the schedule: the 6,000 requests span 3 s (to within a reply).
  EXPECT_LE(r.rps, 1.01 * o.rate);
  // A machine too loaded to keep the schedule must say so rather than report a wrong rate.
  if (ol.fell_behind) {
    EXPECT_GT(ol.generator_lag_p99_ms, kGeneratorLagLimitMs);
    EXPECT_EQ(open_loop_verdict(r).rfind("not valid: the generator fell behind", 0), 0u);
    return;
  }
  if (!ol.rate_held) {  // the server was starved: its replies, not the writes, came late
    EXPECT_GT(ol.send_lag_max_ms, ol.generator_lag_p99_ms);
    EXPECT_EQ(open_loop_verdict(r).rfind("rate not held", 0), 0u);
    return;
  }
  EXPECT_NEAR(r.rps, o.rate, 0.01 * o.rate);
  EXPECT_EQ(open_loop_verdict(r).rfind("rate held", 0), 0u);
}

TEST(OpenLoop, PoissonArrivalsOfferTheTargetOnAverage) {
  ManagedRedis redis;
  BenchOptions o = options(redis, "openloop-poisson");
  o.rate = 2000;
  o.requests = 4000;
  o.pipeline = 16;
  o.arrivals = Arrivals::Poisson;
  const BenchResult r = run_bench(o, BenchTest::Get);
  ASSERT_EQ(r.requests, 4000);
  // 4,000 exponential gaps: the offered rate is the target within a few standard errors (1.6%).
  EXPECT_NEAR(r.open_loop.offered_rps, 2000, 0.08 * 2000);
  EXPECT_EQ(r.open_loop.arrivals, Arrivals::Poisson);
  EXPECT_LE(r.rps, 1.01 * r.open_loop.offered_rps);
}

TEST(OpenLoop, WritesALargeRequestInPieces) {
  ManagedRedis redis;
  // 4 MB values: a write fills the socket's buffer and goes on when it is writable again.
  BenchOptions o = options(redis, "openloop-large");
  o.clients = 2;
  o.rate = 20;
  o.requests = 10;
  o.data_size = 4 << 20;
  o.reply_timeout = 20s;
  const BenchResult r = run_bench(o, BenchTest::Set);
  EXPECT_EQ(r.requests, 10);
  EXPECT_EQ(r.errors, 0) << r.first_error;
}

TEST(OpenLoop, StopEndsARunThatWouldTakeAnHour) {
  ManagedRedis redis;
  BenchOptions o = options(redis, "openloop-stop");
  o.rate = 1000;
  o.requests = 3'600'000;
  std::stop_source stop;
  test::StopLater later(
      stop, [] { return true; }, 500ms);
  const BenchResult r = run_bench(o, BenchTest::Get, stop.get_token());
  std::printf("stopped %.3f s after the stop, %lld requests completed\n",
              later.seconds_since_stop(), static_cast<long long>(r.requests));
  EXPECT_TRUE(later.requested());
  EXPECT_TRUE(r.cancelled);
  EXPECT_LT(later.seconds_since_stop(), 10.0);  // the generator sees a stop within 0.1 s
  EXPECT_EQ(open_loop_verdict(r), "");          // a stopped run says nothing about its rate
}

TEST(OpenLoop, AnIdleSpellIsNoTimeoutButAFrozenServerIs) {
  ManagedRedis redis;
  // 2 connections at 4 req/s in all: each is idle 500 ms between requests, longer than the
  // reply timeout; the timeout runs only while a request waits.
  BenchOptions o = options(redis, "openloop-idle");
  o.clients = 2;
  o.rate = 4;
  o.requests = 6;
  o.reply_timeout = 300ms;
  EXPECT_EQ(run_bench(o, BenchTest::Set).requests, 6);

  o.requests = 1000;
  o.rate = 100;
  o.reply_timeout = 1s;
  test::Freeze freeze(redis.pid());
  const auto t0 = Clock::now();
  EXPECT_THROW(run_bench(o, BenchTest::Set), std::runtime_error);
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("gave up %.2f s into a run of 10 s on a frozen server (timeout 1 s)\n", took);
  EXPECT_LT(took, 8.0);  // the run's schedule alone is 10 s
}
