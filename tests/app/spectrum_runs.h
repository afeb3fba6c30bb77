#pragma once
// A run with latency charts, built in the tests (no server needed): a percentile spectrum of
// three series over five rounds, each keeping its recorders, and a hockey stick (p50 and p99
// against achieved throughput) with a knee marked on each p99 series.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/latency_spectrum.h"
#include "common/run.h"
#include "sample_runs.h"

namespace perflab::test {

inline Group spectrum_group() {
  Group g{"spectrum",
          "Latency at 20,000 req/s",
          "ms",
          "percentile",
          true,
          true,
          "Each request's latency from its intended start.",
          true,
          false};
  g.percentile_x = true;
  return g;
}

inline Group hockey_group() {
  Group g{"hockey",
          "Latency against throughput",
          "ms",
          "achieved throughput (req/s)",
          true,
          true,
          "p50 and p99 over a sweep of offered rates.",
          true,
          false};
  g.markers = {{"direct p99", 70000, "knee: 70,000 req/s"},
               {"proxy p99", 45000, "knee: 45,000 req/s"}};
  return g;
}

// Rounds of `values` latencies each: a log-normal body around `median_ms`, and a share `stall`
// of them near `stall_ms` (a server that pauses).
inline std::vector<LatencyRecorder> latency_rounds(double median_ms, double stall, double stall_ms,
                                                   int values = 4000, std::uint64_t seed = 1) {
  std::vector<LatencyRecorder> rounds(5);
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> body(std::log(median_ms * 1e6), 0.35);
  std::lognormal_distribution<double> slow(std::log(stall_ms * 1e6), 0.2);
  std::bernoulli_distribution stalled(stall);
  for (auto& r : rounds)
    for (int i = 0; i < values; ++i)
      r.record_ns(std::llround(stalled(rng) ? slow(rng) : body(rng)));
  return rounds;
}

inline Run latency_run(int values = 4000) {
  Run run;
  run.experiment = "sharding";
  run.title = "Sharding latency";
  run.params = {{"rate", "20000"}, {"repetitions", "5"}};
  run.status = RunStatus::Finished;
  run.started_unix_ms = 1796000000000;
  run.ended_unix_ms = 1796000060000;
  add_latency_spectrum(run, spectrum_group(), "direct", latency_rounds(0.2, 0.001, 8, values, 1),
                       1e6);
  add_latency_spectrum(run, spectrum_group(), "proxy", latency_rounds(0.3, 0.002, 12, values, 2),
                       1e6);
  add_latency_spectrum(run, spectrum_group(), "cluster", latency_rounds(0.25, 0.01, 40, values, 3),
                       1e6);
  run.ensure_group(hockey_group());
  for (double offered = 10000; offered <= 100000; offered += 10000) {
    const double direct = std::min(offered, 78000.0), proxy = std::min(offered, 52000.0);
    const auto climb = [](double rate, double knee) {
      return rate < knee ? 1.0 : 1.0 + std::pow((rate - knee) / 4000, 2);
    };
    const double d50 = 0.2 * climb(offered, 80000), d99 = 0.9 * climb(offered, 70000);
    const double p50 = 0.3 * climb(offered, 55000), p99 = 1.4 * climb(offered, 45000);
    const std::string x = std::to_string(static_cast<int>(offered));
    run.add_point("hockey", "direct p50", sample_point(x, {d50, d50 * 1.03, d50 * 0.98}, direct));
    run.add_point("hockey", "direct p99", sample_point(x, {d99, d99 * 1.05, d99 * 0.97}, direct));
    run.add_point("hockey", "proxy p50", sample_point(x, {p50, p50 * 1.02, p50 * 0.99}, proxy));
    run.add_point("hockey", "proxy p99", sample_point(x, {p99, p99 * 1.04, p99 * 0.96}, proxy));
  }
  return run;
}

}  // namespace perflab::test
