// Open-loop schedules, the judgement of an open-loop test's rate, and its output (open_loop.h).
#include "sharding/open_loop.h"

#include <cmath>
#include <stdexcept>

#include "common/text.h"
#include "sharding/loadgen.h"

namespace perflab::sharding {

void judge_open_loop(OpenLoopResult& o, double achieved_rps) {
  o.rate_held = achieved_rps >= kRateHeldShare * o.offered_rps;
  o.fell_behind = o.generator_lag_p99_ms > kGeneratorLagLimitMs;
}

namespace {

std::string rate(double rps) {
  return format_fixed(rps, rps < 100 ? 2 : 0) + " req/s";
}

// "1999 req/s of the 2000 req/s offered (99.9%)"
std::string achieved_of_offered(const BenchResult& r) {
  const OpenLoopResult& o = r.open_loop;
  const double share = o.offered_rps > 0 ? 100.0 * r.rps / o.offered_rps : 0;
  return rate(r.rps) + " of the " + rate(o.offered_rps) + " offered (" + format_fixed(share, 1) +
         "%)";
}

std::string padded(double v, int width = 9) {
  std::string s = format_fixed(v, 3);
  if (static_cast<int>(s.size()) < width)
    s.insert(0, static_cast<std::size_t>(width) - s.size(), ' ');
  return s;
}

std::string title_of(const BenchResult& r) {
  return bench_title(r.test);
}

}  // namespace

std::string open_loop_verdict(const BenchResult& r) {
  const OpenLoopResult& o = r.open_loop;
  if (o.target_rps <= 0 || r.cancelled || r.requests == 0) return {};
  if (o.fell_behind)
    return "not valid: the generator fell behind (its own send lag p99 " +
           format_fixed(o.generator_lag_p99_ms, 2) + " ms > " +
           format_fixed(kGeneratorLagLimitMs, 0) +
           " ms), so its delays are counted as the "
           "server's; completed " +
           achieved_of_offered(r) + ".";
  if (!o.rate_held)
    return "rate not held: the server completed " + achieved_of_offered(r) +
           "; the generator kept up (its own send lag p99 " +
           format_fixed(o.generator_lag_p99_ms, 2) +
           " ms), so this rate is past the server's knee.";
  return "rate held: completed " + achieved_of_offered(r) + ".";
}

std::string open_loop_rate_verdict(const BenchResult& r) {
  const OpenLoopResult& o = r.open_loop;
  if (o.target_rps <= 0 || r.cancelled || r.requests == 0) return {};
  if (!o.rate_held) return "rate not held: the server completed " + achieved_of_offered(r) + ".";
  return "rate held: completed " + achieved_of_offered(r) + ".";
}

std::string format_open_loop_summary(const BenchOptions& opt, const BenchResult& r) {
  const OpenLoopResult& o = r.open_loop;
  std::string s = "====== " + title_of(r) + " ======\n";
  s += "  " + std::to_string(r.requests) + " requests completed in " + format_fixed(r.seconds, 2) +
       " seconds\n";
  s += "  " + std::to_string(opt.clients) + " parallel clients\n";
  s += "  " + std::to_string(opt.data_size) + " bytes payload\n";
  s += "  open loop: " + rate(o.target_rps) + " in all, " + to_string(o.arrivals) +
       " arrivals per connection (" + rate(o.target_rps / opt.clients) + " each), at most " +
       std::to_string(opt.pipeline) + " outstanding per connection (-P)\n";
  if (r.errors > 0)
    s += "  errors: " + std::to_string(r.errors) + " (first: " + r.first_error + ")\n";
  s += "\nSummary:\n";
  s += "  throughput summary: " + format_fixed(r.rps, 2) + " requests per second (target " +
       format_fixed(o.target_rps, 2) + ")\n";
  if (o.arrivals == Arrivals::Poisson)
    s += "  the Poisson schedule offered " + format_fixed(o.offered_rps, 2) + " req/s\n";
  s += "  latency from each request's intended send time (corrected for coordinated omission, "
       "msec):\n";
  s += "          p50       p90       p99     p99.9    p99.99       max\n";
  s += "    " + padded(r.p50_ms) + " " + padded(o.p90_ms) + " " + padded(r.p99_ms) + " " +
       padded(o.p999_ms) + " " + padded(o.p9999_ms) + " " + padded(r.max_ms) + "\n";
  s += "  send lag (intended time to write), msec: p99 " + format_fixed(o.send_lag_p99_ms, 3) +
       ", max " + format_fixed(o.send_lag_max_ms, 3) + "; the generator's own p99 " +
       format_fixed(o.generator_lag_p99_ms, 3) + "\n";
  const std::string verdict = open_loop_verdict(r);
  if (!verdict.empty()) s += (o.fell_behind ? "  WARNING: " : "  ") + verdict + "\n";
  return s + "\n";
}

std::string format_open_loop_quiet(const BenchResult& r) {
  std::string s = title_of(r) + ": " + format_fixed(r.rps, 2) + " requests per second of " +
                  format_fixed(r.open_loop.target_rps, 2) +
                  " targeted, corrected p50=" + format_fixed(r.p50_ms, 3) +
                  " p99=" + format_fixed(r.p99_ms, 3) + " msec";
  if (r.open_loop.fell_behind) s += " (NOT VALID: the generator fell behind)";
  return s + "\n";
}

std::string format_open_loop_csv_header() {
  return "\"test\",\"target_rps\",\"rps\",\"p50_latency_ms\",\"p90_latency_ms\","
         "\"p99_latency_ms\",\"p999_latency_ms\",\"p9999_latency_ms\",\"max_latency_ms\","
         "\"send_lag_p99_ms\",\"generator_lag_p99_ms\",\"rate_held\",\"fell_behind\"\n";
}

std::string format_open_loop_csv_row(const BenchResult& r) {
  const OpenLoopResult& o = r.open_loop;
  auto q = [](const std::string& s) { return "\"" + s + "\","; };
  auto ms = [&](double v) { return q(format_fixed(v, 3)); };
  std::string row = q(title_of(r)) + q(format_fixed(o.target_rps, 2)) + q(format_fixed(r.rps, 2)) +
                    ms(r.p50_ms) + ms(o.p90_ms) + ms(r.p99_ms) + ms(o.p999_ms) + ms(o.p9999_ms) +
                    ms(r.max_ms) + ms(o.send_lag_p99_ms) + ms(o.generator_lag_p99_ms) +
                    q(o.rate_held ? "1" : "0") + "\"" + (o.fell_behind ? "1" : "0") + "\"\n";
  return row;
}

}  // namespace perflab::sharding
