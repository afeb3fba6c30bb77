// ExpectedProgress (expected_progress.h): a share of what is left per part, fixed as it begins.
#include "runner/expected_progress.h"

#include <algorithm>
#include <cmath>

namespace perflab {

namespace {
double seconds_or_none(double s) {
  return std::isfinite(s) && s > 0 ? s : 0.0;
}
}  // namespace

ExpectedProgress::ExpectedProgress(double from, double to)
    : from_(from), to_(std::max(from, to)), start_(from) {}

std::size_t ExpectedProgress::add(double seconds) {
  expected_.push_back(seconds_or_none(seconds));
  waiting_s_ += expected_.back();
  return expected_.size() - 1;
}

void ExpectedProgress::expect(std::size_t i, double seconds) {
  if (i >= expected_.size() || (begun_ && i <= current_)) return;
  waiting_s_ += seconds_or_none(seconds) - expected_[i];
  expected_[i] = seconds_or_none(seconds);
}

void ExpectedProgress::end_at(double to) {
  if (std::isfinite(to)) to_ = std::max(from_, to);
}

void ExpectedProgress::reshare(double within, double seconds, double to) {
  if (!begun_) {
    expect(0, seconds);
    end_at(to);
    return;
  }
  within = std::isfinite(within) ? std::clamp(within, 0.0, 1.0) : 0.0;
  const double now = std::min(to_, start_ + within * share_);
  if (std::isfinite(to)) to_ = std::max(now, to);
  expected_[current_] = seconds_or_none(seconds);
  if (within >= 1.0) return;
  const double rest_s = expected_[current_] * (1 - within), all_s = rest_s + waiting_s_;
  const auto parts_left = static_cast<double>(expected_.size() - current_);
  const double rest = (to_ - now) * (all_s > 0 ? rest_s / all_s : 1.0 / parts_left);
  share_ = rest / (1 - within);  // from here, the part's rest takes `rest` of the span
  start_ = now - within * share_;
}

double ExpectedProgress::at(std::size_t i, double within) {
  within = std::isfinite(within) ? std::clamp(within, 0.0, 1.0) : 0.0;
  if (i >= expected_.size()) return expected_.empty() ? from_ : to_;
  if (begun_ && i < current_) return start_;
  // Begin parts up to i, each taking its share of what is left.
  while (!begun_ || current_ < i) {
    if (begun_) {
      start_ += share_;
      ++current_;
    }
    begun_ = true;
    const double left = std::max(0.0, to_ - start_);
    const auto parts_left = static_cast<double>(expected_.size() - current_);
    share_ =
        waiting_s_ > 0 ? left * std::min(1.0, expected_[current_] / waiting_s_) : left / parts_left;
    waiting_s_ = std::max(0.0, waiting_s_ - expected_[current_]);
  }
  return std::min(to_, start_ + within * share_);
}

}  // namespace perflab
