#pragma once
// The repetitions of one point: its variants measured interleaved, one round at a time (every
// variant once per round, the order rotated by the experiment), so that a drift of a shared
// machine hits every variant alike and the samples of round r can be paired across variants.
//
// `warmup` unmeasured rounds come first. Then, with the run's parameter `precision` at 0 (off),
// exactly `repetitions` measured rounds; with `precision` above 0, measured rounds until the
// tracked figures' 95% intervals are within ± precision (AdaptiveRepetitions, at least
// `repetitions` rounds) or the time budget per point `precision_budget_s` is used, and every
// point measured so records how many rounds it took and whether the precision was reached.
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

  // Whether another round is due: loop `while (rounds.next()) { measure; rounds.record(…); }`.
  bool next() const;
  bool warmup() const { return round_ < warmup_; }  // the coming round is a warm-up
  int round() const { return round_; }              // rounds recorded, warm-ups included
  // The round just measured: one sample per variant, in variant order (warm-ups are dropped).
  void record(std::span<const double> round);

  // For each point published: rounds measured and whether the precision was reached; nullopt
  // with fixed repetitions.
  std::optional<PointPrecision> precision() const;
  // "repetition 3/17", or when measuring to a precision "repetition 18 (to ±2%)".
  std::string progress_text() const;

 private:
  int warmup_ = 0, repetitions_ = 0, round_ = 0;
  std::size_t variants_ = 0;
  double precision_ = 0;
  std::unique_ptr<AdaptiveRepetitions> adaptive_;
  mutable std::int64_t started_ns_ = 0;  // of the first measured round
};

}  // namespace perflab
