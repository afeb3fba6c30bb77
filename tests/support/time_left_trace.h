#pragma once
// A run's progress replayed into TimeLeft: what the time left read at a share of the run.
#include <cmath>
#include <utility>
#include <vector>

#include "runner/time_left.h"

namespace perflab::test {

using ProgressTrace = std::vector<std::pair<double, double>>;  // (elapsed s, fraction)

// The time left a TimeLeft fed the trace shows at `share` of it (its last entry: the end).
inline double time_left_at(const ProgressTrace& trace, double share) {
  const double now = share * trace.back().first;
  TimeLeft est;
  for (const auto& [t, f] : trace) {
    if (t > now) break;
    est.add(f, t);
  }
  return est.seconds_left(now).value_or(NAN);
}

}  // namespace perflab::test
