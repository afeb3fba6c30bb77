#pragma once
// Open-loop load: the schedule of intended send times at a target rate (uniform or Poisson
// arrivals) every open-loop client shares, and the rules that say whether a generator held it.
//
// A closed-loop client sends, waits for the reply and sends again: when the server stalls, it
// stops sending, so the stall is recorded once per connection ("coordinated omission"). In open
// loop each request has an intended send time from a schedule and its latency is measured from
// that time (as wrk2 -R, YCSB's intended time, HdrHistogram's corrected recording): a stall
// counts for every request that should have been sent during it.
#include <cstdint>
#include <random>
#include <string_view>

namespace perflab {

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

}  // namespace perflab
