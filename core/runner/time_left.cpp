// TimeLeft (time_left.h): the recent rate of progress and the smoothed end it points to.
#include "runner/time_left.h"

#include <algorithm>
#include <cmath>

namespace perflab {

void TimeLeft::reset() {
  samples_.clear();
  begun_s_ = 0;
  progress_reports_ = 0;
  end_s_.reset();
  estimated_at_s_ = 0;
}

double TimeLeft::fraction_at(double t) const {
  if (samples_.empty() || t <= samples_.front().first)
    return samples_.empty() ? 0.0 : samples_.front().second;
  for (std::size_t i = 1; i < samples_.size(); ++i) {
    const auto& [t1, f1] = samples_[i];
    if (t1 < t) continue;
    const auto& [t0, f0] = samples_[i - 1];
    return t1 > t0 ? f0 + (f1 - f0) * (t - t0) / (t1 - t0) : f1;
  }
  return samples_.back().second;
}

void TimeLeft::add(double fraction, double elapsed_s) {
  if (!std::isfinite(fraction) || !std::isfinite(elapsed_s) || elapsed_s < 0) return;
  fraction = std::clamp(fraction, 0.0, 1.0);
  if (samples_.empty()) samples_.emplace_back(0.0, 0.0);  // the run starts with nothing done
  if (elapsed_s < samples_.back().first) return;
  if (fraction > samples_.back().second) ++progress_reports_;
  fraction = std::max(fraction, samples_.back().second);
  if (elapsed_s == samples_.back().first)
    samples_.back().second = fraction;
  else
    samples_.emplace_back(elapsed_s, fraction);
  if (fraction <= 0) begun_s_ = elapsed_s, progress_reports_ = 0;
  if (fraction >= 1.0) {
    end_s_ = estimated_at_s_ = elapsed_s;
    return;
  }
  const double progress_s = elapsed_s - begun_s_;
  const bool minutes = elapsed_s >= kMinSeconds && progress_s >= kMinProgressSeconds;
  const bool seconds = fraction >= kQuickFraction && progress_reports_ >= kQuickReports &&
                       progress_s >= kQuickProgressSeconds;
  if (fraction < kMinFraction || !(minutes || seconds)) return;

  // The rate over the recent share of the time gone, from the progress's beginning at the
  // earliest; the samples before it are not needed again (its start only moves on), but one
  // stays to interpolate from.
  const double from = std::max(begun_s_, elapsed_s * (1 - kRecentShare));
  while (samples_.size() > 2 && samples_[1].first <= from) samples_.pop_front();
  double rate = (fraction - fraction_at(from)) / (elapsed_s - from);
  if (!(rate > 0)) rate = fraction / (elapsed_s - begun_s_);  // none lately: the whole rate
  const double end = elapsed_s + (1 - fraction) / rate;
  const double tau = std::min(kSmoothingSeconds, kSmoothingShare * elapsed_s);
  const double weight = end_s_ ? 1 - std::exp(-(elapsed_s - estimated_at_s_) / tau) : 1.0;
  end_s_ = end_s_.value_or(end) + weight * (end - end_s_.value_or(end));
  estimated_at_s_ = elapsed_s;
}

std::optional<double> TimeLeft::seconds_left(double elapsed_s) const {
  if (!end_s_) return std::nullopt;
  return std::max(0.0, *end_s_ - elapsed_s);
}

}  // namespace perflab
