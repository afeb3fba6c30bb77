// SweepProgress (sweep_progress.h): the measurements' times learned depth by depth.
#include "sharding/sweep_progress.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "common/stats.h"

namespace perflab::sharding {

namespace {
constexpr double kByBudget = 0.9;  // a measurement this near its budget ended by it
}  // namespace

SweepProgress::SweepProgress(const std::vector<std::size_t>& variants_per_test,
                             std::vector<std::int64_t> depths, int repeat, double budget_s,
                             double from, double to)
    : variants_(variants_per_test),
      depths_(std::move(depths)),
      repeat_(std::max(1, repeat)),
      budget_s_(budget_s),
      progress_(from, to) {
  for (std::size_t t = 0; t < variants_.size(); ++t) {
    first_.push_back(progress_.size());
    for (std::size_t d = 0; d < depths_.size(); ++d)
      for (int r = 0; r < repeat_; ++r)
        for (std::size_t v = 0; v < variants_[t]; ++v) progress_.add(budget_s_);
  }
}

std::size_t SweepProgress::index(std::size_t test, std::size_t depth, std::size_t variant,
                                 int round) const {
  const auto r = static_cast<std::size_t>(std::clamp(round, 0, repeat_ - 1));
  return first_.at(test) + (depth * static_cast<std::size_t>(repeat_) + r) * variants_[test] +
         variant;
}

double SweepProgress::begin(std::size_t test, std::size_t depth, std::size_t variant, int round) {
  const std::size_t i = index(test, depth, variant, round);
  next_ = std::max(next_, i + 1);
  return progress_.at(i);
}

void SweepProgress::measured(std::size_t test, std::size_t depth, std::size_t variant,
                             double seconds) {
  if (!(seconds >= 0) || test >= variants_.size() || depth >= depths_.size()) return;
  taken_[{test, variant}][depth].push_back(seconds);
  // Those to come of the same test and variant: at this depth and the deeper ones.
  for (std::size_t d = depth; d < depths_.size(); ++d) {
    const double e = expected(test, d, variant);
    for (int r = 0; r < repeat_; ++r)
      if (const std::size_t i = index(test, d, variant, r); i >= next_) progress_.expect(i, e);
  }
}

double SweepProgress::expected(std::size_t test, std::size_t depth, std::size_t variant) const {
  const auto it = taken_.find({test, variant});
  if (it == taken_.end() || depth >= depths_.size()) return budget_s_;
  const auto& by_depth = it->second;
  if (const auto here = by_depth.find(depth); here != by_depth.end())
    return quantile(here->second, 0.5);
  // The deepest depth measured before this one, and the one before it.
  auto last = by_depth.lower_bound(depth);
  if (last == by_depth.begin()) return budget_s_;
  --last;
  const double t1 = quantile(last->second, 0.5);
  const double d1 = static_cast<double>(depths_[last->first]);
  // One depth measured: ended by its budget, it may well again (the proxy writing per reply
  // stalls at every depth); ended by its requests, half of the depth's gain (the rate grows
  // with the depth until the server or the proxy is the bottleneck).
  double a = t1 >= kByBudget * budget_s_ ? 0.0 : 0.5;
  if (last != by_depth.begin()) {
    const auto prev = std::prev(last);
    const double t0 = quantile(prev->second, 0.5);
    const double d0 = static_cast<double>(depths_[prev->first]);
    if (t0 > 0 && t1 > 0 && d1 > d0 && d0 > 0)
      a = std::clamp(std::log(t0 / t1) / std::log(d1 / d0), 0.0, 1.0);
  }
  const double d = static_cast<double>(depths_[depth]);
  return d > 0 && d1 > 0 ? t1 * std::pow(std::min(1.0, d1 / d), a) : t1;
}

}  // namespace perflab::sharding
