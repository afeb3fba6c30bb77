// PointProgress (point_progress.h): the points' forecasts, scaled by what the run measured.
#include "iolist/point_progress.h"

#include <algorithm>
#include <utility>

namespace perflab::iolist {

void PointProgress::add(PointKind kind, std::int64_t n, std::string tag, std::size_t steps,
                        double forecast_s) {
  parts_.push_back({kind, n, std::move(tag), std::max<std::size_t>(1, steps), forecast_s});
  took_s_.push_back(-1);
  progress_.add(forecast_s);
}

double PointProgress::begin(PointKind kind, std::int64_t n, const std::string& tag, double now_s) {
  std::size_t i = current_ ? *current_ + 1 : 0;
  while (i < parts_.size() && !(parts_[i].kind == kind && parts_[i].n == n && parts_[i].tag == tag))
    ++i;
  if (i == parts_.size()) return fraction_;
  if (current_) {
    took_s_[*current_] = std::max(0.0, now_s - began_s_);
    current_ = i;  // the points before it are no longer expected
    revise();
  }
  current_ = i;
  steps_done_ = 0;
  began_s_ = now_s;
  fraction_ = std::max(fraction_, progress_.at(i));
  return fraction_;
}

double PointProgress::step() {
  if (!current_) return fraction_;
  ++steps_done_;
  const Planned& p = parts_[*current_];
  const double within =
      std::min(1.0, static_cast<double>(steps_done_) / static_cast<double>(p.steps));
  fraction_ = std::max(fraction_, progress_.at(*current_, within));
  return fraction_;
}

double PointProgress::reach(double within) {
  if (!current_) return fraction_;
  fraction_ = std::max(fraction_, progress_.at(*current_, std::clamp(within, 0.0, 1.0)));
  return fraction_;
}

void PointProgress::foretell(std::size_t i, double forecast_s) {
  parts_.at(i).forecast_s = forecast_s;
  progress_.expect(i, forecast_s);
}

void PointProgress::revise() {
  double took_all = 0, forecast_all = 0;
  std::vector<std::pair<double, double>> by_kind(static_cast<std::size_t>(PointKind::Latency) + 1);
  for (std::size_t i = 0; i < parts_.size(); ++i) {
    const Planned& p = parts_[i];
    if (took_s_[i] < 0 || !(p.forecast_s > 0)) continue;
    took_all += took_s_[i], forecast_all += p.forecast_s;
    by_kind[static_cast<std::size_t>(p.kind)].first += took_s_[i];
    by_kind[static_cast<std::size_t>(p.kind)].second += p.forecast_s;
  }
  if (!(forecast_all > 0)) return;
  for (std::size_t i = *current_; i < parts_.size(); ++i) {
    const auto& [took, forecast] = by_kind[static_cast<std::size_t>(parts_[i].kind)];
    const double factor = forecast > 0 ? took / forecast : took_all / forecast_all;
    progress_.expect(i, parts_[i].forecast_s * factor);
  }
}

}  // namespace perflab::iolist
