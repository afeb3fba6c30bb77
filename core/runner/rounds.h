#pragma once
// The repetitions of one point: its variants measured interleaved, one round at a time (every
// variant once per round, the order rotated by the experiment), so that a drift of a shared
// machine hits every variant alike and the samples of round r can be paired across variants.
//
// `warmup` unmeasured rounds come first. Then, with the run's parameters `precision` at 0 and
// `verdicts` false, exactly `repetitions` measured rounds; otherwise measured rounds until the
// point is settled (AdaptiveRepetitions, at least `repetitions` rounds): the tracked figures'
// 95% intervals within ± precision, and with `verdicts` every tracked ratio with a verdict at
// the run's `threshold`; or until its time budget is used: `precision_budget_s`, or its share
// of the run's `budget_s` (RunContext::take_point_budget) when that is less. Every point
// measured so records how many rounds it took and whether it was settled.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "common/adaptive.h"
#include "common/run.h"

namespace perflab {

class RunContext;

class PointRounds {
 public:
  // variants >= 1; repetitions >= 1 (the minimum when measuring to a precision).
  PointRounds(const RunContext& ctx, int warmup, int repetitions, std::size_t variants);
  ~PointRounds();
  PointRounds(PointRounds&&) noexcept;
  PointRounds& operator=(PointRounds&&) noexcept;

  // What the precision watches: ratios of two variants (what the findings state), or medians.
  // Without any, every variant's median. No effect with fixed repetitions.
  void track_ratio(std::size_t numerator, std::size_t denominator);
  void track_median(std::size_t variant);
  // Measuring to verdicts, spend the rounds after the minimum only on the tracked ratios without
  // a verdict (AdaptiveRepetitions::focus): measure variant v in a round only when needs(v),
  // and record NaN for it otherwise.
  void focus();
  bool needs(std::size_t variant) const;

  // Whether another round is due: loop `while (rounds.next()) { measure; rounds.record(…); }`.
  bool next() const;
  bool warmup() const { return round_ < warmup_; }  // the coming round is a warm-up
  int round() const { return round_; }              // rounds recorded, warm-ups included
  // The round just measured: one sample per variant, in variant order (warm-ups are dropped).
  void record(std::span<const double> round);

  // For each point published: rounds measured and whether the point was settled; nullopt with
  // fixed repetitions.
  std::optional<PointPrecision> precision() const;
  // "repetition 3/17", or when measuring to a precision "repetition 18 (to ±2%)", to verdicts
  // "repetition 9 (to verdicts: 1 of 3 settled)".
  std::string progress_text() const;
  // The point's time budget, seconds (adaptive only; 0 with fixed repetitions).
  double budget_s() const { return budget_s_; }
  // How far the point is, 0..1: with fixed repetitions its rounds over all it will take;
  // measuring adaptively, its time over what it may take (its budget, or its minimum rounds
  // when they take longer); it may end sooner, settled.
  double done() const;

 private:
  int warmup_ = 0, repetitions_ = 0, round_ = 0;
  std::size_t variants_ = 0;
  double precision_ = 0, budget_s_ = 0;
  bool verdicts_ = false;
  std::unique_ptr<AdaptiveRepetitions> adaptive_;
  mutable std::int64_t started_ns_ = 0;  // of the first measured round
};

}  // namespace perflab
