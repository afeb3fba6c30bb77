#pragma once
// A run as readable text: what the CLI prints on stdout.
#include <optional>
#include <string>

#include "common/run.h"

namespace perflab {

// Header (experiment, status, parameters, targets, the machine's load), one table per group
// (series × point: median with its interval and the interval's level, CV, p95, min, max, n, in the
// group's unit; a noisy point marked "!"), the findings (finding_sentence), then one line counting
// the noisy figures; `verbose` lists each of them.
std::string format_run_report(const Run& run, bool verbose = false);

// One line for a run whose figures may be noisy, nullopt for a calm one: "The machine was busy
// (load 1.8 per core before the run): every figure may be noisy — rerun, or raise repetitions."
// or "2 figures are noisy (CV above 10%): append/iolist/100 writers, read/copy/1 reader — rerun,
// or raise repetitions." (at most three named).
std::optional<std::string> run_noise_summary(const Run& run);

// Once per run whose intervals fall short of 95% (too few repetitions for it), what they reach
// and what would reach 95%: "Intervals in this run reach at most 75% (n = 3); a median's
// interval reaches 95% from 6 repetitions." nullopt when every interval reaches 95%.
std::optional<std::string> interval_level_note(const Run& run);

// The warning a point carries (noise_warning() of its CV and the machine around its run, which
// may be null), or nullopt; a point of fewer than two samples has no spread and no warning.
std::optional<std::string> point_noise_warning(const Point& p, const MachineNoise* machine);
inline std::optional<std::string> point_noise_warning(const Run& run, const Point& p) {
  return point_noise_warning(p, run.machine ? &*run.machine : nullptr);
}

}  // namespace perflab
