#pragma once
// What a run file can honestly hold: the most samples, series, markers and latency rounds the
// reader takes (every one far above what an experiment writes, and small enough that reading,
// charting and comparing stay linear in the file), and the consistency of the statistics a point
// without samples keeps as stored.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "common/confidence.h"
#include "common/latency_recorder.h"
#include "common/stats.h"

namespace perflab::run_bounds {

// Samples (repetitions) of one point, and the n of a point's stored statistics: ten times the
// most repetitions any experiment takes (the caching experiment's 100,000).
inline constexpr std::size_t kMaxPointSamples = 1'000'000;
// Groups of a run (charts), series of one group (lines or bar sets on one chart) and markers on
// one chart's x axis: past these a chart cannot tell them apart (an experiment writes at most a
// few dozen groups, a dozen series a group and one marker a series).
inline constexpr std::size_t kMaxGroups = 1000;
inline constexpr std::size_t kMaxSeries = 10'000;  // of a run, over all its groups
inline constexpr std::size_t kMaxGroupSeries = 256;
inline constexpr std::size_t kMaxGroupMarkers = 64;
// Latency rounds (recorders) of one series: ten times the most rounds a point measures
// (adaptive repetitions stop at 1,000).
inline constexpr std::size_t kMaxSeriesRounds = 10'000;
// Values one series' recorders hold together, as one recorder may: 2^53, one a nanosecond for
// 104 days; every count and every rank of the pooled recorder stays exact as a double.
inline constexpr std::uint64_t kMaxLatencyValues = LatencyRecorder::kMaxCount;

// What is wrong with a refused figure: the field (relative to the point: "stats.median",
// "ci") and why, in words.
struct Refusal {
  std::string field;
  std::string why;
};

// Whether the statistics a point without samples stores (its stats and, when present, its
// median's interval) could come from samples: n at most kMaxPointSamples, no interval below
// two samples, min <= median <= p95 <= max, min <= mean <= max (to a rounding), and the median
// inside its interval. The first thing wrong, or nothing.
std::optional<Refusal> stored_stats_refusal(const Stats& st, const std::optional<Estimate>& ci);

}  // namespace perflab::run_bounds
