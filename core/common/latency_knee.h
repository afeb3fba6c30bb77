#pragma once
// The knee of a hockey stick (latency against achieved throughput over a sweep of offered
// rates): the highest offered rate a path still serves as it serves a light load.
#include <cstddef>
#include <optional>
#include <span>

namespace perflab {

// One point of a sweep: the rate offered, the rate achieved, and the p99 latency there.
struct KneePoint {
  double offered = 0;   // req/s
  double achieved = 0;  // req/s
  double p99 = 0;       // any unit, the same for every point
};

// A rate was held when it achieved at least this share of the offered rate.
inline constexpr double kKneeHeldShare = 0.99;
// ... and its p99 stayed at most this many times the lightest load's p99.
inline constexpr double kKneeP99Factor = 3.0;

// The knee: with the points in ascending order of offered rate, the last point of the run that
// starts at the lowest rate in which every point held its rate (achieved >= held_share x
// offered) with a p99 <= p99_factor x the lowest rate's p99. A rate beyond the first that fails
// is not a knee even if it passes (a noisy sweep does not skip its collapse). nullopt when the
// lowest rate already fails, or there are no points. Returns the index into `sweep`, which must
// be sorted by offered rate (std::invalid_argument otherwise).
std::optional<std::size_t> latency_knee(std::span<const KneePoint> sweep,
                                        double held_share = kKneeHeldShare,
                                        double p99_factor = kKneeP99Factor);

}  // namespace perflab
