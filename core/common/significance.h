#pragma once
// Is a difference real? The ratio of two series (of their medians, or the median of their
// per-round ratios) with a confidence interval, a verdict with a threshold of practical
// significance, a published figure judged against the interval, and the Mann–Whitney U test
// that Google Benchmark's compare.py prints beside every comparison.
//
// The verdict on a ratio a/b with interval [lo, hi] and threshold t (default 0.02) says only
// what the interval shows (docs/verdicts.md). Criterion.rs and compare.py are the anchors; the
// words here are more precise than theirs, because each case is named by where the whole interval
// lies against 1 and the band [1 - t, 1 + t]:
//   1. no interval (fewer than two samples on a side): TooFewSamples;
//   2. hi < 1 - t or lo > 1 + t: Faster or Slower — the whole interval is beyond the band.
//      Which of the two follows from the direction of the unit: for times (lower is better)
//      a/b < 1 means a is faster; for throughput (higher is better) a/b > 1 means a is faster;
//   3. 1 - t <= lo and hi <= 1 + t: Equivalent — the whole interval is inside the band;
//   4. lo <= 1 <= hi (and the interval reaches beyond the band): NoDifference — the data are
//      compatible with equal medians, and with a difference larger than t either way;
//   5. the interval excludes 1 but is not wholly beyond the band: LeansFaster or LeansSlower —
//      the difference is probably real, but this run cannot show it is larger than t.
// A point estimate alone never makes a verdict: 0.95 [0.90–1.01] is "no significant difference".
#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "common/confidence.h"

namespace perflab {

// Which way is better for the figure's unit (Group::lower_is_better).
enum class Better { Lower, Higher };
const char* to_string(Better b);  // "lower", "higher"

// Which figure "the ratio of a to b" is.
enum class RatioFigure {
  // median(a) / median(b): what the findings state. Interval: percentile bootstrap over the
  // repetitions, paired when the series were interleaved with equal counts.
  RatioOfMedians,
  // The median over rounds r of a[r] / b[r]; interleaved series with equal counts only. A slow
  // moment of the machine slows both variants of its round and cancels in that round's ratio,
  // so on a drifting machine this figure is much more precise: with a shared per-round factor
  // of log-sd 0.2 and 2% own noise, 21 rounds, its spread over 400 seeded trials was 0.0064
  // against 0.0156 for the ratio of medians. Interval: the order-statistic interval of the
  // per-round ratios' median (exact level, no resampling).
  MedianOfRoundRatios,
};

struct RatioOptions {
  double level = 0.95;
  // Repetition r of a and repetition r of b were measured side by side (interleaved, one round
  // after the other). With equal counts the bootstrap then resamples repetition indices jointly
  // (paired), which keeps what a round shared (a slow moment of the machine hits both) out of
  // the interval; with unequal counts, or not interleaved, a and b are resampled independently.
  // Two separate runs (a compare row: new / old) are not interleaved.
  bool interleaved = true;
  RatioFigure figure = RatioFigure::RatioOfMedians;
  BootstrapOptions boot;  // without a seed: derived from both series' samples
};

// The ratio of a to b with its interval. nullopt when there is no such ratio: a series is
// empty, the denominator is 0 (median(b), or for MedianOfRoundRatios any b[r]), or
// MedianOfRoundRatios is asked of series that are not interleaved with equal counts.
// A single sample (round) gives a value without an interval.
std::optional<Estimate> ratio_ci(std::span<const double> a, std::span<const double> b,
                                 const RatioOptions& opt = {});

enum class Verdict {
  Faster,
  Slower,
  Equivalent,
  NoDifference,
  LeansFaster,
  LeansSlower,
  TooFewSamples
};
// "faster", "slower", "equivalent", "no significant difference", "leans faster", "leans slower",
// "too few repetitions": the names run files store.
const char* to_string(Verdict v);

// The verdict on a ratio a/b (see the rule at the top). threshold >= 0.
Verdict judge_ratio(const Estimate& ratio, Better better, double threshold = 0.02);

// Whether a verdict settles the comparison: a difference beyond the band (faster, slower) or an
// equivalence inside it (cases 2 and 3 above); the others say more rounds could still tell.
bool settles(Verdict v);

// A ratio with everything said about it: what a finding, a compare row and a teaching panel show.
struct RatioJudgement {
  Estimate ratio;
  Verdict verdict = Verdict::TooFewSamples;
  double threshold = 0.02;
  Better better = Better::Lower;
};
std::optional<RatioJudgement> judge_series(std::span<const double> a, std::span<const double> b,
                                           Better better, double threshold = 0.02,
                                           const RatioOptions& opt = {});

// A published claim about a figure, with the yardstick it is judged by: the band of values that
// would reproduce it. Four kinds, one rule (judge_claim):
//   - Value: the published figure with a tolerance, band [figure - tolerance, figure + tolerance]
//     ("0.78 ± 0.08");
//   - Below / Above: a direction or an order of magnitude, band (0, bound] or [bound, inf)
//     ("iolist faster than interpolate": a time ratio below 1; "a collapse of about two orders of
//     magnitude": a throughput ratio at most 1/30);
//   - NoChange: "no change within ±tolerance", band [1 - tolerance, 1 + tolerance].
struct Claim {
  enum class Kind { Value, Below, Above, NoChange };
  Kind kind = Kind::Value;
  double figure = 1;  // what was published, as this finding defines its figure
  double lo = 0, hi = 0;
  // The band in words: "0.78 ± 0.08", "≤ 0.0333", "≥ 30", "1 ± 5%".
  std::string yardstick() const;
};
const char* to_string(Claim::Kind k);  // "value", "below", "above", "no_change"
Claim claim_value(double figure, double tolerance);
Claim claim_below(double figure, double bound);
Claim claim_above(double figure, double bound);
Claim claim_no_change(double figure, double tolerance);

// A claim against this run's interval:
//   - the whole interval inside the band: "reproduced";
//   - the whole interval outside it: "not reproduced";
//   - otherwise: "inconclusive" (repetitions_to_settle() says how many more might settle it);
//   - no interval: "not judged".
enum class Reproduction { Reproduced, NotReproduced, Inconclusive, NotJudged };
const char* to_string(Reproduction r);  // "reproduced", "not reproduced", "inconclusive", ...
Reproduction judge_claim(const Claim& claim, const Estimate& measured);

// For an inconclusive claim: about how many repetitions would make the interval narrow enough
// to lie wholly inside or wholly outside the band, if the estimate stayed where it is (an
// interval's width shrinks about as 1/sqrt(n)). nullopt when the estimate sits on the band's
// edge (no number of repetitions settles it) or n is unknown.
std::optional<std::size_t> repetitions_to_settle(const Claim& claim, const Estimate& measured);

// The Mann–Whitney U test (Wilcoxon rank-sum), two-sided, as compare.py reports it
// (scipy.stats.mannwhitneyu with its defaults).
//   u: U of the first sample: the number of pairs (x_i, y_j) with x_i > y_j, ties counting 1/2.
//   Exact: the exact null distribution of U (every assignment of ranks equally likely),
//     p = min(1, 2 * min(P(U <= u), P(U >= u))). Valid only without ties.
//   Asymptotic: the normal approximation with mean n1 n2 / 2, the variance corrected for ties,
//     n1 n2 / 12 * ((N + 1) - sum(t^3 - t) / (N (N - 1))) over tie groups of size t, and a
//     continuity correction of 1/2 toward the mean; p = 2 * (1 - Phi(z)), at most 1.
//     All values equal (zero variance): p = 1.
//   Auto (the default, SciPy's rule, so that Perflab's p equals compare.py's on the same data):
//     Exact when at least one sample has at most 8 values and there are no ties, else Asymptotic.
//   Exact is also honoured when asked for if there are no ties and n1 * n2 <= 2500 (the exact
//   distribution costs about N * min(n1, n2) * n1 n2 operations); otherwise Asymptotic is used
//   and `method` says so.
enum class UTestMethod { Auto, Exact, Asymptotic };
const char* to_string(UTestMethod m);

struct UTest {
  double u = 0;
  double p_value = 1;
  UTestMethod method = UTestMethod::Asymptotic;  // the one used: Exact or Asymptotic
  double z = 0;                                  // the normal deviate (Asymptotic only)
  bool ties = false;
  // compare.py needs at least 2 repetitions on each side to test at all and calls fewer than 9
  // "unreliable" (UTEST_MIN_REPETITIONS, UTEST_OPTIMAL_REPETITIONS).
  bool enough = false;    // both sides have >= 2 samples; otherwise p_value is 1, untested
  bool reliable = false;  // both sides have >= 9 samples
};
UTest mann_whitney_u(std::span<const double> x, std::span<const double> y,
                     UTestMethod method = UTestMethod::Auto);

// What compare.py colours: significant at alpha (default 0.05).
inline bool significant(const UTest& t, double alpha = 0.05) {
  return t.enough && t.p_value < alpha;
}

}  // namespace perflab
