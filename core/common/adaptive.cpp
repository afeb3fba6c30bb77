#include "common/adaptive.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace perflab {

AdaptiveRepetitions::AdaptiveRepetitions(PrecisionGoal goal, std::size_t variants)
    : goal_(goal), samples_(variants), worst_(std::numeric_limits<double>::infinity()) {
  if (variants == 0) throw std::invalid_argument("adaptive repetitions need at least one variant");
  if (!(goal.precision >= 0)) throw std::invalid_argument("precision must not be negative");
  if (goal.verdict_threshold && !(*goal.verdict_threshold >= 0))
    throw std::invalid_argument("the verdict threshold must not be negative");
  if (!(goal.precision > 0) && !goal.verdict_threshold)
    throw std::invalid_argument("a precision above 0 or a verdict threshold is needed");
  if (goal.min_rounds < 1) throw std::invalid_argument("min_rounds must be at least 1");
  if (goal.max_rounds < goal.min_rounds)
    throw std::invalid_argument("max_rounds must be at least min_rounds");
  if (!(goal.budget_seconds >= 0))
    throw std::invalid_argument("the time budget must not be negative");
  if (!(goal.level > 0 && goal.level < 1))
    throw std::invalid_argument("confidence level must be between 0 and 1 (exclusive)");
  if (goal.resamples < 1) throw std::invalid_argument("bootstrap needs at least one resample");
}

void AdaptiveRepetitions::track_median(std::size_t variant) {
  if (variant >= samples_.size()) throw std::invalid_argument("no such variant");
  figures_.push_back({variant, variant, false, std::nullopt});
}

void AdaptiveRepetitions::track_ratio(std::size_t numerator, std::size_t denominator) {
  if (numerator >= samples_.size() || denominator >= samples_.size() || numerator == denominator)
    throw std::invalid_argument("a ratio needs two different variants");
  figures_.push_back({numerator, denominator, true, std::nullopt});
}

bool AdaptiveRepetitions::focused() const {
  return focus_ && !(goal_.precision > 0) && goal_.verdict_threshold &&
         std::any_of(figures_.begin(), figures_.end(), [](const Figure& f) { return f.ratio; });
}

bool AdaptiveRepetitions::needs(std::size_t variant) const {
  if (variant >= samples_.size()) throw std::invalid_argument("no such variant");
  if (!focused() || rounds_ < goal_.min_rounds) return true;
  return std::any_of(figures_.begin(), figures_.end(), [&](const Figure& f) {
    return f.ratio && !f.kept && (f.a == variant || f.b == variant);
  });
}

int AdaptiveRepetitions::ratios() const {
  return static_cast<int>(
      std::count_if(figures_.begin(), figures_.end(), [](const Figure& f) { return f.ratio; }));
}

bool AdaptiveRepetitions::settled_now() {
  if (figures_.empty())
    for (std::size_t v = 0; v < samples_.size(); ++v) track_median(v);
  const bool by_precision = goal_.precision > 0;
  estimates_.clear();
  worst_ = 0;
  settled_ratios_ = 0;
  bool precise = true, verdicts = true;
  const bool focused_now = focused();
  for (auto& f : figures_) {
    Estimate e;
    if (f.kept) {  // focused: its verdict stands on the rounds that gave it
      e = *f.kept;
      ++settled_ratios_;
    } else if (f.ratio) {
      // A ratio with a zero denominator median has no estimate: it can never be settled.
      if (by_precision) {
        RatioOptions opt;
        opt.level = goal_.level;
        opt.interleaved = true;
        opt.boot.resamples = goal_.resamples;
        opt.figure = goal_.ratio_figure;
        e = ratio_ci(samples_[f.a], samples_[f.b], opt).value_or(Estimate{});
      }
      if (goal_.verdict_threshold) {
        // The finding's own interval (comparison_finding: interleaved, the default options),
        // so that "settled" here is the verdict the finding will state. Which way is better
        // only swaps faster and slower, both of which settle.
        const Estimate stated =
            ratio_ci(samples_[f.a], samples_[f.b], RatioOptions{}).value_or(Estimate{});
        const bool settled = stated.full_level &&
                             settles(judge_ratio(stated, Better::Lower, *goal_.verdict_threshold));
        settled_ratios_ += settled ? 1 : 0;
        verdicts = verdicts && settled;
        if (!by_precision) e = stated;
        if (settled && focused_now) f.kept = stated;
      }
    } else {
      e = median_ci(samples_[f.a], goal_.level);
    }
    const double w = e.relative_half_width();
    worst_ = std::max(worst_, w);
    precise = precise && e.full_level && w <= goal_.precision;
    estimates_.push_back(e);
  }
  return (!by_precision || precise) && (!goal_.verdict_threshold || verdicts);
}

AdaptiveRepetitions::Decision AdaptiveRepetitions::add_round(std::span<const double> round,
                                                             double elapsed_seconds) {
  if (done()) throw std::logic_error("adaptive repetitions: the point is already finished");
  if (round.size() != samples_.size())
    throw std::invalid_argument("a round needs one sample per variant");
  for (std::size_t v = 0; v < round.size(); ++v) {
    const bool measured = needs(v);
    if (!measured && !std::isnan(round[v]))
      throw std::invalid_argument("a round has a sample of a variant it no longer measures");
    if (measured) samples_[v].push_back(round[v]);
  }
  ++rounds_;
  if (rounds_ < goal_.min_rounds) return decision_;
  if (settled_now())
    return decision_ =
               goal_.verdict_threshold ? Decision::VerdictsReached : Decision::PrecisionReached;
  if (rounds_ >= goal_.max_rounds) return decision_ = Decision::RoundLimit;
  const double per_round = elapsed_seconds / rounds_;
  if (elapsed_seconds + per_round > goal_.budget_seconds)
    return decision_ = Decision::TimeBudgetUsed;
  return decision_;
}

const char* to_string(AdaptiveRepetitions::Decision d) {
  switch (d) {
    case AdaptiveRepetitions::Decision::Continue:
      return "continue";
    case AdaptiveRepetitions::Decision::PrecisionReached:
      return "precision reached";
    case AdaptiveRepetitions::Decision::VerdictsReached:
      return "verdicts reached";
    case AdaptiveRepetitions::Decision::TimeBudgetUsed:
      return "time budget used";
    case AdaptiveRepetitions::Decision::RoundLimit:
      return "round limit";
  }
  return "continue";
}

}  // namespace perflab
