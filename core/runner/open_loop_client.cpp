// An open-loop round of a blocking client at a target rate (open_loop_client.h).
#include "runner/open_loop_client.h"

#include <chrono>
#include <stdexcept>
#include <thread>

#include "common/clock.h"
#include "common/text.h"
#include "runner/experiment.h"
#include "runner/open_loop_series.h"

namespace perflab {

namespace {

// Sleeping wakes up late by the timer slack and the scheduler's delay: the client sleeps until
// this long before a request is due and waits the rest awake.
constexpr std::int64_t kSpinNs = 100'000;

void wait_until(std::int64_t due_ns) {
  const std::int64_t early = due_ns - kSpinNs - wall_ns();
  if (early > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(early));
  while (wall_ns() < due_ns) {
  }
}

}  // namespace

double OpenLoopRound::generator_lag_p99_ms() const {
  return static_cast<double>(generator_lag.value_at_percentile_ns(99)) / 1e6;
}

OpenLoopRound run_open_loop(const OpenLoopPlan& plan, const std::function<void()>& request,
                            std::stop_token stop) {
  if (!(plan.rate > 0) || plan.requests < 1)
    throw std::invalid_argument("an open-loop round needs a rate > 0 and a request");
  OpenLoopRound r;
  const std::int64_t start = wall_ns();
  ArrivalSchedule schedule(plan.rate, 0, 1, plan.arrivals, plan.seed, start);
  std::int64_t free_at = start, last_due = start;
  for (std::int64_t k = 0; k < plan.requests; ++k) {
    if (stop.stop_requested()) throw Cancelled{};
    const std::int64_t due = schedule.next_ns();
    wait_until(due);
    const std::int64_t sent = wall_ns();
    request();
    const std::int64_t done = wall_ns();
    r.latency.record_ns(done - due);
    r.generator_lag.record_ns(sent - std::max(due, free_at));
    free_at = done;
    last_due = due;
    ++r.requests;
    schedule.advance();
  }
  // Uniform: the k-th request at start + k / rate, so n requests span n / rate; Poisson: the
  // first is one gap after the start, the n-th n gaps.
  const double period_ns = 1e9 / plan.rate;
  const double offered_span_ns = static_cast<double>(last_due - start) +
                                 (plan.arrivals == Arrivals::Uniform ? period_ns : 0.0);
  const double achieved_span_ns = static_cast<double>(free_at - start);
  const double n = static_cast<double>(r.requests);
  r.offered_rps = offered_span_ns > 0 ? n * 1e9 / offered_span_ns : plan.rate;
  r.achieved_rps = achieved_span_ns > 0 ? n * 1e9 / achieved_span_ns : 0;
  r.rate_held = r.achieved_rps >= kRateHeldShare * r.offered_rps;
  r.lag_limit_ms = plan.lag_limit_ms;
  r.fell_behind = r.generator_lag_p99_ms() > plan.lag_limit_ms;
  return r;
}

std::string open_loop_round_problem(const OpenLoopRound& r) {
  std::string s;
  if (r.fell_behind)
    s = "the client fell behind (its own lag p99 " + format_fixed(r.generator_lag_p99_ms(), 2) +
        " ms > " + format_fixed(r.lag_limit_ms, r.lag_limit_ms < 10 ? 1 : 0) + " ms)";
  if (!r.rate_held) {
    if (!s.empty()) s += "; ";
    const double share = r.offered_rps > 0 ? 100.0 * r.achieved_rps / r.offered_rps : 0;
    s += "rate not held (completed " + open_loop_rate_text(r.achieved_rps) + " of the " +
         open_loop_rate_text(r.offered_rps) + " offered, " + format_fixed(share, 1) + "%)";
  }
  return s;
}

}  // namespace perflab
