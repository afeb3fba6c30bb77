#include "runner/rounds.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "common/clock.h"
#include "common/figure_format.h"
#include "common/text.h"
#include "runner/experiment.h"

namespace perflab {

PointRounds::PointRounds(const RunContext& ctx, int warmup, int repetitions, std::size_t variants)
    : warmup_(warmup), repetitions_(repetitions), variants_(variants) {
  if (variants == 0 || repetitions < 1 || warmup < 0)
    throw std::invalid_argument("a point needs a variant and a repetition");
  const RunnerSettings& runner = ctx.runner();
  if (!runner.adaptive()) return;
  precision_ = runner.precision;
  verdicts_ = runner.verdicts;
  PrecisionGoal goal;
  goal.precision = precision_;
  if (verdicts_) goal.verdict_threshold = ctx.threshold();
  goal.min_rounds = repetitions;
  goal.max_rounds = std::max(repetitions, 1000);
  budget_s_ = std::min(runner.precision_budget_s,
                       ctx.take_point_budget().value_or(runner.precision_budget_s));
  goal.budget_seconds = budget_s_;
  adaptive_ = std::make_unique<AdaptiveRepetitions>(goal, variants);
}

PointRounds::~PointRounds() = default;
PointRounds::PointRounds(PointRounds&&) noexcept = default;
PointRounds& PointRounds::operator=(PointRounds&&) noexcept = default;

void PointRounds::track_ratio(std::size_t numerator, std::size_t denominator) {
  if (adaptive_) adaptive_->track_ratio(numerator, denominator);
}

void PointRounds::track_median(std::size_t variant) {
  if (adaptive_) adaptive_->track_median(variant);
}

void PointRounds::focus() {
  if (adaptive_) adaptive_->focus();
}

bool PointRounds::needs(std::size_t variant) const {
  return warmup() || !adaptive_ || adaptive_->needs(variant);
}

bool PointRounds::next() const {
  if (warmup()) return true;
  if (adaptive_) {
    if (adaptive_->rounds() == 0) started_ns_ = wall_ns();  // the first measured round starts
    return !adaptive_->done();
  }
  return round_ < warmup_ + repetitions_;
}

void PointRounds::record(std::span<const double> round) {
  if (round.size() != variants_) throw std::invalid_argument("a round needs one sample a variant");
  const bool measured = !warmup();
  ++round_;
  if (!measured || !adaptive_) return;
  adaptive_->add_round(round, static_cast<double>(wall_ns() - started_ns_) / 1e9);
}

double PointRounds::done() const {
  const double all = warmup_ + repetitions_;
  if (!adaptive_) return std::min(1.0, round_ / all);
  const int measured = adaptive_->rounds();
  if (measured == 0) return 0;  // warming up
  const double elapsed = static_cast<double>(wall_ns() - started_ns_) / 1e9;
  const double at_least = elapsed / measured * repetitions_;
  const double may_take = std::max(budget_s_, at_least);
  return may_take > 0 ? std::min(1.0, elapsed / may_take) : 1.0;
}

std::optional<PointPrecision> PointRounds::precision() const {
  if (!adaptive_) return std::nullopt;
  return PointPrecision{adaptive_->rounds(), adaptive_->settled(),
                        adaptive_->worst_relative_half_width(), precision_ > 0, verdicts_};
}

std::string PointRounds::progress_text() const {
  std::string out = "repetition ";
  out += std::to_string(round_);
  if (adaptive_) {
    std::vector<std::string> goals;
    if (precision_ > 0) goals.push_back("±" + format_percent(precision_));
    if (verdicts_) {
      std::string v = "verdicts";
      if (adaptive_->ratios() > 0 && adaptive_->rounds() > 0)
        v += ": " + std::to_string(adaptive_->settled_ratios()) + " of " +
             std::to_string(adaptive_->ratios()) + " settled";
      goals.push_back(v);
    }
    out += " (to " + join(goals, " and ") + ")";
  } else {
    out += "/";
    out += std::to_string(warmup_ + repetitions_);
  }
  return out;
}

}  // namespace perflab
