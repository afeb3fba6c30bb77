#pragma once
// How many calls of an operation one timed sample makes, so that a sample lasts at least a
// target time and the clocks' own cost (a thread-CPU clock read is a system call) stays small.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "common/clock.h"

namespace perflab {

// One call's time is the fastest of five windows, each of at least twice `target_ns` (or
// 2 × `max_calls` calls): one window alone can take a preemption for the operation's own time —
// a local-memory get of 80 ns came out at 3 µs, its samples of 7 gets lasted 2 µs, and the
// clocks made a third of each get. Returns target_ns / that, rounded up, in 1..max_calls.
template <class Op>
std::int64_t calls_per_sample(const Op& op, std::int64_t target_ns, std::int64_t max_calls) {
  double best_ns = std::numeric_limits<double>::infinity();
  for (int window = 0; window < 5; ++window) {
    const std::int64_t t0 = wall_ns();
    std::int64_t n = 0;
    do {
      op();
      ++n;
    } while (wall_ns() - t0 < 2 * target_ns && n < 2 * max_calls);
    best_ns = std::min(best_ns, static_cast<double>(wall_ns() - t0) / static_cast<double>(n));
  }
  const double calls = static_cast<double>(target_ns) / std::max(best_ns, 1.0);
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(calls) + 1, 1, max_calls);
}

}  // namespace perflab
