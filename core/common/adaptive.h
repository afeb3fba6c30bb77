#pragma once
// Adaptive repetitions: keep measuring a point until its figures are known to a precision, or
// until every comparison it makes has a verdict.
//
// An experiment measures a point's variants interleaved, one round at a time (every variant once
// per round, order rotated). It feeds every measured round to this controller, which answers
// Continue until one of these:
//   - the point is settled by the rules in force, each of them holding (Settled):
//     - the precision rule (precision > 0): every tracked figure's 95% interval lies within
//       ±precision of its estimate (Estimate::relative_half_width() <= precision, and the
//       interval has its full level); a figure is a variant's median (order-statistic interval)
//       or the ratio of two variants (ratio_ci() over the rounds, interleaved: the paired
//       bootstrap of the ratio of medians, seeded by the data, or the median of the per-round
//       ratios);
//     - the verdict rule (a verdict threshold t): every tracked ratio's interval, the very one
//       its finding states (ratio_ci() with the findings' options: the paired bootstrap of the
//       ratio of medians at 95%, at its full level), lies wholly beyond 1 ± t (faster, slower)
//       or wholly inside it (equivalent): settles(judge_ratio()), so the finding will state a
//       verdict. A median has no verdict: under this rule alone a point without a ratio is
//       settled by its minimum rounds;
//   - or the budget is used up: max_rounds rounds (RoundLimit), or the time budget
//     (TimeBudgetUsed) — reached, or the next round, taking as long as the average one so far,
//     would end past it.
// min_rounds rounds are always measured (the run's `repetitions`); no judgement before that.
// Focused (focus(), under the verdict rule alone, with ratios tracked), a point spends its rounds
// after min_rounds only on what is still open: a tracked ratio that has a verdict keeps it (its
// estimate is not made again) and its variants are measured on only while another open ratio
// needs them; a variant no tracked ratio names is measured for min_rounds only. needs() says
// which variants the next round measures; a round gives NaN for the others. A variant that is
// no longer measured never is again, so any two variants' samples are paired over the rounds
// the shorter has.
// The intervals are estimated again after every round, so with very few rounds a lucky, too
// narrow interval can stop a point early: keep min_rounds at the run's repetitions (15 for
// iolist), not at the bare 6 where a 95% interval first exists.
// The controller is pure: it owns the samples it was fed and reads no clock (the caller passes
// the elapsed time), so it is tested with synthetic data and a fake clock.
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "common/confidence.h"
#include "common/significance.h"

namespace perflab {

struct PrecisionGoal {
  double precision = 0.02;  // relative half-width of the intervals; 0: no precision rule
  // The verdict rule's threshold of practical significance (a share, the run's `threshold`);
  // none: no verdict rule. At least one of the two rules is in force.
  std::optional<double> verdict_threshold = std::nullopt;
  int min_rounds = 6;          // >= 1; the order-statistic interval reaches 95% from 6 samples
  int max_rounds = 1000;       // >= min_rounds
  double budget_seconds = 60;  // per point, >= 0 (0: the minimum rounds, no more)
  double level = 0.95;
  int resamples = 2000;  // per check of a ratio of medians (every round after min_rounds)
  RatioFigure ratio_figure = RatioFigure::RatioOfMedians;  // what track_ratio() watches
};

class AdaptiveRepetitions {
 public:
  // PrecisionReached: settled with the precision rule alone; VerdictsReached: settled with the
  // verdict rule in force (and the precision rule too, when it is).
  enum class Decision { Continue, PrecisionReached, VerdictsReached, TimeBudgetUsed, RoundLimit };

  // variants: how many samples each round carries. Throws std::invalid_argument on a goal
  // out of range.
  AdaptiveRepetitions(PrecisionGoal goal, std::size_t variants);

  // What to watch (at least one figure; none means: watch every variant's median).
  void track_median(std::size_t variant);
  void track_ratio(std::size_t numerator, std::size_t denominator);
  // Spend the rounds after min_rounds on the tracked ratios without a verdict (above).
  void focus() { focus_ = true; }
  // Whether the next round measures this variant (always, unless focused).
  bool needs(std::size_t variant) const;

  // One round: round[v] is variant v's sample (NaN where needs(v) was false); elapsed_seconds
  // since the point started. Returns the decision; after anything but Continue the controller
  // takes no more rounds (std::logic_error). Throws std::invalid_argument when round.size() !=
  // variants or a variant no longer measured has a sample.
  Decision add_round(std::span<const double> round, double elapsed_seconds);

  Decision decision() const { return decision_; }
  bool done() const { return decision_ != Decision::Continue; }
  int rounds() const { return rounds_; }
  bool precision_reached() const { return decision_ == Decision::PrecisionReached; }
  // Whether the point ended settled by the rules in force (PrecisionReached, VerdictsReached).
  bool settled() const { return precision_reached() || decision_ == Decision::VerdictsReached; }
  // Under the verdict rule: the tracked ratios, and those settled at the last check.
  int ratios() const;
  int settled_ratios() const { return settled_ratios_; }
  // The widest tracked figure's relative half-width at the last check (infinite before one).
  double worst_relative_half_width() const { return worst_; }
  const std::vector<double>& samples(std::size_t variant) const { return samples_.at(variant); }
  // The tracked figures' estimates at the last check, in the order they were tracked.
  const std::vector<Estimate>& estimates() const { return estimates_; }

 private:
  struct Figure {
    std::size_t a = 0, b = 0;
    bool ratio = false;
    std::optional<Estimate> kept;  // focused: the estimate that gave it its verdict
  };
  bool settled_now();
  bool focused() const;  // focus() asked, and it applies (verdict rule alone, ratios tracked)

  PrecisionGoal goal_;
  std::vector<std::vector<double>> samples_;
  std::vector<Figure> figures_;
  std::vector<Estimate> estimates_;
  int rounds_ = 0;
  int settled_ratios_ = 0;
  double worst_;
  Decision decision_ = Decision::Continue;
  bool focus_ = false;
};

const char* to_string(AdaptiveRepetitions::Decision d);

}  // namespace perflab
