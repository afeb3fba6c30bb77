#pragma once
// Open-loop load for the load generator: each connection's schedule of intended send times at a
// target rate (uniform or Poisson arrivals), and the judgement whether the generator held it.
//
// A closed-loop client (redis-benchmark, pgbench by default) sends, waits for the reply and
// sends again: when the server stalls, it stops sending, so the stall is recorded once per
// connection ("coordinated omission"). In open loop each request has an intended send time from
// its connection's schedule and its latency is measured from that time (as wrk2 -R, YCSB's
// intended time, HdrHistogram's corrected recording): a stall counts for every request that
// should have been sent during it.
//
// How -P and open loop combine (as memtier_benchmark's --rate-limiting with --pipeline): -P is
// the most requests a connection has outstanding. The requests that come due together are
// written in one batch; requests that come due while the connection has -P outstanding wait
// for a reply, and that wait is in their latency (it runs from their intended time).
#include <string>

#include "common/open_loop_schedule.h"

namespace perflab::sharding {

struct BenchOptions;
struct BenchResult;

// The schedule and the rules every open-loop client shares (common/open_loop_schedule.h).
using perflab::Arrivals;
using perflab::ArrivalSchedule;
using perflab::kArrivalsNames;
using perflab::kGeneratorLagLimitMs;
using perflab::kRateHeldShare;
using perflab::parse_arrivals;

// An open-loop test's rate and its validity (BenchResult::open_loop).
struct OpenLoopResult {
  double target_rps = 0;  // 0: closed loop
  Arrivals arrivals = Arrivals::Uniform;
  // What the schedule offered: the target for uniform arrivals; Poisson arrivals offer it only
  // on average (requests / the schedule's span).
  double offered_rps = 0;
  // Percentiles of the corrected latency beyond BenchResult's.
  double p90_ms = 0, p999_ms = 0, p9999_ms = 0;
  // Send lag: intended time to write, p99 and max; the generator's own part of it (from the
  // moment the request was due and its connection had room for it), p99.
  double send_lag_p99_ms = 0, send_lag_max_ms = 0, generator_lag_p99_ms = 0;
  bool rate_held = false;    // achieved >= kRateHeldShare of offered
  bool fell_behind = false;  // the generator's own lag p99 > kGeneratorLagLimitMs: not valid
};

// Sets rate_held and fell_behind from the figures and the achieved rate.
void judge_open_loop(OpenLoopResult& o, double achieved_rps);

// One sentence on the rate, generated from the figures: held, fell behind (not valid, as wrk2
// says) or not held by the server (past its knee). Empty for closed loop or a stopped run.
std::string open_loop_verdict(const BenchResult& r);
// The same on the rate alone, for a measurement that takes the generator's own lag out of its
// verdicts instead of discarding the round ("rate held: completed 999 req/s of the 1000 req/s
// offered (99.9%)", "rate not held: the server completed ...").
std::string open_loop_rate_verdict(const BenchResult& r);

// What the experiments call the generator's own lag when they take it out of a verdict
// (common/finding.h ToolError).
inline constexpr const char* kGeneratorLagError = "the generator's own lag";

// Output of an open-loop test: the summary with corrected percentiles, the -q line, CSV.
std::string format_open_loop_summary(const BenchOptions& o, const BenchResult& r);
std::string format_open_loop_quiet(const BenchResult& r);
std::string format_open_loop_csv_header();
std::string format_open_loop_csv_row(const BenchResult& r);

}  // namespace perflab::sharding
