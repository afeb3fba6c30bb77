// The knee of a hockey stick: the last offered rate held with a p99 near the lightest load's.
#include "common/latency_knee.h"

#include <stdexcept>

namespace perflab {

std::optional<std::size_t> latency_knee(std::span<const KneePoint> sweep, double held_share,
                                        double p99_factor) {
  if (!(held_share > 0 && held_share <= 1) || !(p99_factor >= 1))
    throw std::invalid_argument("a knee needs 0 < held_share <= 1 and p99_factor >= 1");
  for (std::size_t i = 1; i < sweep.size(); ++i)
    if (sweep[i].offered < sweep[i - 1].offered)
      throw std::invalid_argument("a sweep's points must be in ascending order of offered rate");
  std::optional<std::size_t> knee;
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    const KneePoint& p = sweep[i];
    const bool held = p.offered > 0 && p.achieved >= held_share * p.offered;
    const bool tail_near = p.p99 <= p99_factor * sweep.front().p99;
    if (!held || !tail_near) break;
    knee = i;
  }
  return knee;
}

}  // namespace perflab
