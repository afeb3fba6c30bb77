#pragma once
// An open-loop round of a blocking client (one request at a time on one connection: a tier's
// get, an append): each request sent at its intended time from a schedule at the target rate,
// its latency measured from that time, so a request that had to wait for the one before it
// counts the wait (no coordinated omission). The round says whether the rate was held.
#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>

#include "common/latency_recorder.h"
#include "common/open_loop_schedule.h"

namespace perflab {

struct OpenLoopPlan {
  double rate = 0;  // req/s
  Arrivals arrivals = Arrivals::Uniform;
  std::int64_t requests = 0;  // in the round
  std::uint64_t seed = 1;     // of Poisson arrivals
  // The client fell behind when its own lag p99 is above this (kGeneratorLagLimitMs; a loaded
  // machine's scheduler may need more, and says so in every figure's validity).
  double lag_limit_ms = kGeneratorLagLimitMs;
};

struct OpenLoopRound {
  LatencyRecorder latency;  // intended start to reply, per request
  // The client's own lag per request: from the moment it was due and the client was free (the
  // request before it answered) to its send. Its p99 above the plan's lag_limit_ms: the client
  // fell behind, its delays would be counted as the server's.
  LatencyRecorder generator_lag;
  std::int64_t requests = 0;  // completed
  double offered_rps = 0;     // what the schedule offered (uniform: the rate)
  double achieved_rps = 0;    // completed over the round's span
  bool rate_held = false;     // achieved >= kRateHeldShare of offered
  bool fell_behind = false;   // the client's own lag p99 > the plan's lag_limit_ms
  double lag_limit_ms = kGeneratorLagLimitMs;
  bool valid() const { return rate_held && !fell_behind; }
  double generator_lag_p99_ms() const;
};

// Runs plan.requests requests of `request` (blocking; throws on failure) at their intended
// times. Throws Cancelled (runner/experiment.h) when `stop` is requested, between two requests.
OpenLoopRound run_open_loop(const OpenLoopPlan& plan, const std::function<void()>& request,
                            std::stop_token stop);

// Why a round is not valid, generated from its figures ("the client fell behind (its own lag p99
// 3.20 ms > 1 ms)", "rate not held (completed 812 req/s of the 1000 req/s offered, 81.2%)");
// empty for a valid round.
std::string open_loop_round_problem(const OpenLoopRound& r);

}  // namespace perflab
