#pragma once
// A percentile spectrum in a run: a series of latency at p50 … p99.99 with its interval over
// rounds, its recorders kept beside it, and HdrHistogram's 1/(1 - p) axis that charts draw it on.
#include <array>
#include <span>
#include <string>
#include <vector>

#include "common/latency_recorder.h"
#include "common/run.h"

namespace perflab {

// The percentiles a spectrum has a point at, in percent, in order.
inline constexpr std::array<double, 5> kSpectrumPercentiles{50, 90, 99, 99.9, 99.99};

// Where percentile `percent` (0 <= percent < 100) lies on the spectrum's axis: 1 / (1 - p),
// so 50% is 2, 90% 10, 99% 100: each added nine takes the same width on a log axis.
double spectrum_position(double percent);
// The percentile at a position of that axis (its inverse), for tick labels.
double spectrum_percent(double position);
// "50%", "90%", "99%", "99.9%", "99.99%".
std::string spectrum_label(double percent);

// Adds a series to spectrum group `g` (added to the run if absent; it must have numeric_x and
// percentile_x): one point per kSpectrumPercentiles, x the percentile, samples each round's
// latency there in the group's unit (`ns_per_unit` nanoseconds per unit: 1e3 for "us", 1e6 for
// "ms"), and the rounds' recorders, encoded, in Series::latency. Rounds without values are left
// out; a series of no values adds nothing and returns false.
bool add_latency_spectrum(Run& run, const Group& g, const std::string& series,
                          std::span<const LatencyRecorder> rounds, double ns_per_unit);

// The recorders of a series (Series::latency decoded), one per round.
std::vector<LatencyRecorder> series_latency(const Series& s);

}  // namespace perflab
