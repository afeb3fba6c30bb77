// A latency distribution as a curve: the percentile iteration and a spectrum's pooled curve.
#include "common/latency_curve.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "common/latency_codec.h"

namespace perflab {

namespace {

// The next percentile to report after `level` (in percent): the step halves each time the
// distance to 100% halves, with `ticks` steps per halving.
double next_level(double level, int ticks) {
  const auto halvings =
      static_cast<std::int64_t>(std::log(100.0 / (100.0 - level)) / std::log(2.0)) + 1;
  const double reporting_ticks = static_cast<double>(ticks) * std::pow(2.0, halvings);
  return level + 100.0 / reporting_ticks;
}

}  // namespace

std::vector<PercentileStep> percentile_steps(const LatencyRecorder& r,
                                             int ticks_per_half_distance) {
  if (ticks_per_half_distance < 1)
    throw std::invalid_argument("percentile steps: at least one tick per half distance");
  std::vector<PercentileStep> out;
  const std::uint64_t total = r.count();
  if (total == 0) return out;
  const std::size_t last = r.last_nonzero_index();
  std::size_t i = LatencyRecorder::index_of(r.min_ns());
  std::uint64_t cumulative = r.count_at_index(i);
  double level = 0;
  for (;;) {
    const double here = 100.0 * static_cast<double>(cumulative) / static_cast<double>(total);
    if (r.count_at_index(i) != 0 && here >= level) {
      out.push_back({level, LatencyRecorder::highest_equivalent_ns(i), cumulative});
      if (cumulative == total) break;  // every value counted
      const double next = next_level(level, ticks_per_half_distance);
      if (!(next > level && next < 100)) {
        // No finer step a double can tell from this one (a tail of one value in 2^50): the
        // iteration ends at the largest value, as it would once every value were counted.
        out.push_back({level, LatencyRecorder::highest_equivalent_ns(last), total});
        break;
      }
      level = next;
      continue;  // the same bucket may reach the next level too
    }
    if (i == last) break;
    cumulative += r.count_at_index(++i);
  }
  return out;
}

std::optional<double> ns_per_unit(const std::string& unit) {
  const std::string head = unit.substr(0, unit.find('/'));
  if (head == "ns") return 1.0;
  if (head == "us" || head == "µs") return 1e3;
  if (head == "ms") return 1e6;
  if (head == "s") return 1e9;
  return std::nullopt;
}

LatencyRecorder pooled_latency(const Series& s) {
  // One round decoded at a time, into the same recorder: two recorders in memory, however many
  // rounds the series has.
  LatencyRecorder pooled, round;
  for (const auto& text : s.latency) {
    decode_latency(text, round);
    pooled.merge(round);
  }
  return pooled;
}

std::vector<CurvePoint> spectrum_curve(const Series& s, const std::string& unit,
                                       int ticks_per_half_distance) {
  const auto scale = ns_per_unit(unit);
  if (!scale || s.latency.empty()) return {};
  const LatencyRecorder pooled = pooled_latency(s);
  std::vector<CurvePoint> out;
  for (const auto& step : percentile_steps(pooled, ticks_per_half_distance)) {
    // 0% is the smallest value itself, as the recorder's own percentile there.
    const std::int64_t ns =
        step.percent == 0 ? pooled.min_ns() : std::min(step.value_ns, pooled.max_ns());
    out.push_back({step.percent, static_cast<double>(ns) / *scale});
  }
  return out;
}

}  // namespace perflab
