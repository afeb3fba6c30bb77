// SweepProgress (sweep_progress.h): the measurements' times learned depth by depth.
#include "sharding/sweep_progress.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>

#include "common/stats.h"

namespace perflab::sharding {

SweepProgress::SweepProgress(const std::vector<std::size_t>& variants_per_test,
                             std::vector<std::int64_t> depths, int repeat, double budget_s,
                             std::int64_t requests, double from, double to)
    : variants_(variants_per_test),
      depths_(std::move(depths)),
      repeat_(std::max(1, repeat)),
      budget_s_(budget_s),
      requests_(requests),
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
                             double seconds, std::int64_t requests) {
  if (!(seconds > 0) || test >= variants_.size() || depth >= depths_.size()) return;
  Taken& here = taken_[{test, variant}][depth];
  here.seconds.push_back(seconds);
  here.rate.push_back(static_cast<double>(std::max<std::int64_t>(0, requests)) / seconds);
  revise(test, depth, variant);
}

void SweepProgress::probed(std::size_t test, std::size_t depth, std::size_t variant, double setup_s,
                           double seconds, std::int64_t requests) {
  if (!(seconds > 0) || requests <= 0 || test >= variants_.size() || depth >= depths_.size())
    return;
  const double per_request = seconds / static_cast<double>(requests);
  probed_[{test, variant, depth}] =
      std::min(budget_s_, std::max(0.0, setup_s) + per_request * static_cast<double>(requests_));
  revise(test, depth, variant);
}

void SweepProgress::timed(std::size_t test, std::size_t variant, double seconds) {
  if (!(seconds > 0) || test >= variants_.size() || variant >= variants_[test]) return;
  timed_[{test, variant}] = seconds;
  revise(test, 0, variant);
}

// Those to come of the same test and variant: at this depth and the deeper ones.
void SweepProgress::revise(std::size_t test, std::size_t depth, std::size_t variant) {
  for (std::size_t d = depth; d < depths_.size(); ++d) {
    const double e = expected(test, d, variant);
    for (int r = 0; r < repeat_; ++r)
      if (const std::size_t i = index(test, d, variant, r); i >= next_) progress_.expect(i, e);
  }
}

double SweepProgress::expected(std::size_t test, std::size_t depth, std::size_t variant) const {
  const auto it = taken_.find({test, variant});
  if (const auto timed = timed_.find({test, variant}); timed != timed_.end()) {
    if (it == taken_.end()) return timed->second;
    // The deepest depth measured up to this one, else the shallowest measured.
    auto at = it->second.upper_bound(depth);
    if (at != it->second.begin()) --at;
    const std::vector<double>& s = at->second.seconds;
    return std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  }
  const auto probe = probed_.find({test, variant, depth});
  if (it != taken_.end())
    if (const auto here = it->second.find(depth); here != it->second.end())
      return quantile(here->second.seconds, 0.5);
  if (probe != probed_.end()) return probe->second;
  if (it == taken_.end() || depth >= depths_.size()) return budget_s_;
  const auto& by_depth = it->second;
  // The deepest depth measured before this one, and the one before it.
  auto last = by_depth.lower_bound(depth);
  if (last == by_depth.begin()) return budget_s_;
  --last;
  const double t1 = quantile(last->second.seconds, 0.5), r1 = quantile(last->second.rate, 0.5);
  const double d1 = static_cast<double>(depths_[last->first]);
  // The rate grows with the depth until the server or the proxy is the bottleneck (or, for the
  // proxy writing per reply without TCP_NODELAY, falls): as it did over the last two depths,
  // or by half of the depth's gain from one.
  double a = 0.5;
  if (last != by_depth.begin()) {
    const auto prev = std::prev(last);
    const double r0 = quantile(prev->second.rate, 0.5);
    const double d0 = static_cast<double>(depths_[prev->first]);
    if (r0 > 0 && r1 > 0 && d1 > d0 && d0 > 0)
      a = std::clamp(std::log(r1 / r0) / std::log(d1 / d0), 0.0, 1.0);
  }
  const double d = static_cast<double>(depths_[depth]);
  const double rate = r1 * (d > d1 && d1 > 0 ? std::pow(d / d1, a) : 1.0);
  // It ends by its requests or its budget (which a measurement ending by it overran by t1's
  // margin).
  const double cap = std::max(budget_s_, t1);
  return rate > 0 ? std::min(cap, static_cast<double>(requests_) / rate) : cap;
}

}  // namespace perflab::sharding
