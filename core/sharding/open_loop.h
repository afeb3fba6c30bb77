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
#include <cstdint>
#include <random>
#include <string>
#include <string_view>

namespace perflab::sharding {

struct BenchOptions;
struct BenchResult;

enum class Arrivals { Uniform, Poisson };
const char* to_string(Arrivals a);            // "uniform", "poisson"
Arrivals parse_arrivals(std::string_view s);  // case-insensitive; throws invalid_argument
inline constexpr const char* kArrivalsNames = "uniform|poisson";

// The intended send times of one connection's requests, in wall_ns() nanoseconds. Connection i
// of n sharing `total_rate` req/s gets total_rate / n. Uniform: its k-th request at start +
// (i + k n) / total_rate, so the connections interleave and all of them together send evenly
// spaced requests. Poisson: exponential gaps of mean n / total_rate, a generator of its own.
class ArrivalSchedule {
 public:
  ArrivalSchedule(double total_rate, int connection, int connections, Arrivals arrivals,
                  std::uint64_t seed, std::int64_t start_ns);
  std::int64_t next_ns() const { return next_; }
  void advance();  // the request at next_ns() was sent

 private:
  double period_ns_;  // between two requests of all the connections
  int connection_, connections_;
  Arrivals arrivals_;
  std::mt19937_64 rng_;
  std::int64_t start_, k_ = 0, next_ = 0;
  double poisson_at_ = 0;  // ns after start
};

// The generator fell behind when its own send lag (from the moment a request was due and its
// connection had room for it, to its write) has a p99 above this: its delays would be counted
// as the server's.
inline constexpr double kGeneratorLagLimitMs = 1.0;
// The rate was held when the requests completed at >= this share of the offered rate.
inline constexpr double kRateHeldShare = 0.99;

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

// Output of an open-loop test: the summary with corrected percentiles, the -q line, CSV.
std::string format_open_loop_summary(const BenchOptions& o, const BenchResult& r);
std::string format_open_loop_quiet(const BenchResult& r);
std::string format_open_loop_csv_header();
std::string format_open_loop_csv_row(const BenchResult& r);

}  // namespace perflab::sharding
