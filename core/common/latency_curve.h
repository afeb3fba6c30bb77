#pragma once
// A latency distribution as a curve: HdrHistogram's percentile iteration (ever finer steps
// toward 100%) over a recorder, and the whole curve of a spectrum series from its pooled rounds.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/latency_recorder.h"
#include "common/run.h"

namespace perflab {

// One step of the iteration: the value (the highest equivalent of its bucket) reached at
// `percent`, and how many values lie at or below it.
struct PercentileStep {
  double percent = 0;
  std::int64_t value_ns = 0;
  std::uint64_t cumulative = 0;
};

// HdrHistogram's percentile iteration (outputPercentileDistribution) from 0% until every value
// is counted, `ticks_per_half_distance` steps each time the distance to 100% halves; the final
// 100% line is not one of them. Empty for an empty recorder. Throws std::invalid_argument for
// ticks_per_half_distance < 1.
std::vector<PercentileStep> percentile_steps(const LatencyRecorder& r,
                                             int ticks_per_half_distance = 5);

// Nanoseconds in one unit of a latency: "ns" 1, "us" (or "µs") 1e3, "ms" 1e6, "s" 1e9, with or
// without a "/op" after it; nullopt for any other unit.
std::optional<double> ns_per_unit(const std::string& unit);

// The rounds' recorders of a series (Series::latency) pooled into one, as if every value had
// been recorded in one recorder; empty when the series keeps none.
LatencyRecorder pooled_latency(const Series& s);

// A point of a spectrum's curve: the latency (in the group's unit) at a percentile.
struct CurvePoint {
  double percent = 0;
  double value = 0;
};

// The curve of a spectrum series (what HdrHistogram's plotter draws): its rounds' recorders
// (Series::latency) pooled into one, its percentile steps from 0% up to the step that reaches
// the largest value, each value capped at the exact maximum and 0% the exact minimum (as
// the recorder's percentiles are), in `unit`. Empty when the series keeps no recorders or the unit
// is not a time.
std::vector<CurvePoint> spectrum_curve(const Series& s, const std::string& unit,
                                       int ticks_per_half_distance = 5);

}  // namespace perflab
