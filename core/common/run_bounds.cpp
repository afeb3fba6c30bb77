// The consistency of a point's stored statistics (run_bounds.h).
#include "common/run_bounds.h"

#include <algorithm>
#include <cmath>

#include <cstdio>

namespace perflab::run_bounds {

namespace {

// a <= b, allowing the rounding of a mean or an interpolated quantile (a few ulps).
bool at_most(double a, double b) {
  return a <= b + 1e-9 * std::max(std::abs(a), std::abs(b));
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace

std::optional<Refusal> stored_stats_refusal(const Stats& st, const std::optional<Estimate>& ci) {
  if (st.n > kMaxPointSamples)
    return Refusal{"stats.n", std::to_string(st.n) +
                                  " is more samples than a point holds (at most " +
                                  std::to_string(kMaxPointSamples) + ")"};
  if (ci && ci->has_interval() && st.n < 2)
    return Refusal{"ci", "an interval of " + std::to_string(st.n) +
                             " samples (stats.n): a median's interval needs at least two"};
  if (st.n == 0) return std::nullopt;  // no figures to check (older files keep zeros)
  if (!at_most(st.min, st.max))
    return Refusal{"stats.min", num(st.min) + " is above max " + num(st.max)};
  if (!at_most(st.min, st.median) || !at_most(st.median, st.max))
    return Refusal{"stats.median",
                   num(st.median) + " is outside min-max " + num(st.min) + "-" + num(st.max)};
  if (!at_most(st.median, st.p95) || !at_most(st.p95, st.max))
    return Refusal{"stats.p95", num(st.p95) + " is not between the median " + num(st.median) +
                                    " and max " + num(st.max)};
  if (!at_most(st.min, st.mean) || !at_most(st.mean, st.max))
    return Refusal{"stats.mean",
                   num(st.mean) + " is outside min-max " + num(st.min) + "-" + num(st.max)};
  if (ci && ci->has_interval() && !(at_most(ci->lo, st.median) && at_most(st.median, ci->hi)))
    return Refusal{"ci", "the median " + num(st.median) + " is outside its interval " +
                             num(ci->lo) + "-" + num(ci->hi)};
  return std::nullopt;
}

}  // namespace perflab::run_bounds
