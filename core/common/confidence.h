#pragma once
// How sure a figure is: a point's median with a confidence interval, its spread (coefficient
// of variation) and its outliers (Tukey's fences). Pure functions over samples; nothing is
// dropped from the samples, ever.
//
// Two intervals for a median:
// - the distribution-free order-statistic interval (the default): [x(k), x(n+1-k)] of the
//   sorted samples, with the largest k for which P(x(k) <= median <= x(n+1-k)) =
//   1 - 2 * P(Binomial(n, 1/2) <= k - 1) is at least the requested level. That probability is
//   exact for any continuous distribution and is reported as Estimate::level (e.g. 0.9586 for
//   n = 20). Below n = 6 no interval reaches 95% (n = 5 gives at most 93.75%): the widest one,
//   [min, max], is returned with its true level and full_level = false.
// - the percentile bootstrap: the median of `resamples` resamples drawn with replacement, and the
//   (1-level)/2 and (1+level)/2 quantiles of those medians. Seeded: the same samples (and the same
//   seed, when one is given) always give the same interval, so a run file reproduces its own
//   numbers. Its level is the nominal one; below n = 6, where no interval inside [min, max] can
//   cover the median with 95%, it is that upper bound instead and full_level is false.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "common/stats.h"

namespace perflab {

// How an interval was obtained.
enum class CiMethod {
  None,             // fewer than two samples: no interval (lo == hi == value)
  OrderStatistic,   // distribution-free, exact level (medians)
  Bootstrap,        // percentile bootstrap over the samples (medians, unpaired ratios)
  PairedBootstrap,  // percentile bootstrap over repetition indices, jointly (paired ratios)
};
const char* to_string(CiMethod m);

// A figure with its confidence interval.
struct Estimate {
  double value = 0;       // the point estimate: a median, or a ratio (significance.h)
  double lo = 0, hi = 0;  // the interval; lo == hi == value when there is none
  // The probability that the interval covers the true figure: exact for the order-statistic
  // interval (e.g. 0.9586), the nominal level for a bootstrap (0.95) — or, when too few samples
  // keep a bootstrap below it, the most any interval within [min, max] can have (an upper
  // bound: 0.9375 for 5 samples); 0 without an interval.
  double level = 0;
  // level is at least the level asked for. false: too few samples for it (see above).
  bool full_level = false;
  CiMethod method = CiMethod::None;
  // How many samples (repetitions, rounds) the interval was computed from; for a ratio of two
  // series, the smaller side. 0 when unknown (run files written before it was recorded).
  std::size_t n = 0;

  bool has_interval() const { return method != CiMethod::None; }
  bool contains(double v) const { return has_interval() && lo <= v && v <= hi; }
  // The interval's larger distance from the value, relative to the value: 0.02 means the
  // interval lies within ±2% of the estimate. Infinite without an interval or for value 0.
  double relative_half_width() const;
};

// The order-statistic interval of the median for n samples: 1-based ranks of the sorted samples
// and the exact coverage probability. lo_rank == hi_rank == 0 for n < 2.
struct MedianRanks {
  std::size_t lo_rank = 0, hi_rank = 0;
  double coverage = 0;
};
MedianRanks median_ci_ranks(std::size_t n, double level = 0.95);

// The median (as summarize() computes it) with its order-statistic interval.
Estimate median_ci(std::span<const double> samples, double level = 0.95);

struct BootstrapOptions {
  int resamples = 10000;
  // The generator's seed; without one it is derived from the samples' bits, so the same data
  // always gives the same interval.
  std::optional<std::uint64_t> seed;
};

// The median with a seeded percentile-bootstrap interval.
Estimate median_ci_bootstrap(std::span<const double> samples, const BootstrapOptions& opt = {},
                             double level = 0.95);

// Sample standard deviation / mean (pyperf warns above 0.10). 0 for fewer than two samples or
// a zero mean.
double coefficient_of_variation(const Stats& s);

// Tukey's fences over the quartiles (quantile() with q = 0.25, 0.75; IQR = Q3 - Q1), as
// Criterion.rs classifies its samples: beyond 1.5 IQR is a mild outlier, beyond 3 IQR a severe
// one; a value on a fence is not an outlier.
enum class OutlierClass { LowSevere, LowMild, Normal, HighMild, HighSevere };
const char* to_string(OutlierClass c);

struct TukeyFences {
  double low_severe = 0, low_mild = 0, high_mild = 0, high_severe = 0;
  OutlierClass classify(double v) const;
};

struct Outliers {
  TukeyFences fences;
  std::size_t low_severe = 0, low_mild = 0, high_mild = 0, high_severe = 0;
  std::size_t total() const { return low_severe + low_mild + high_mild + high_severe; }
  std::size_t low() const { return low_severe + low_mild; }
  std::size_t high() const { return high_mild + high_severe; }
};
Outliers classify_outliers(std::span<const double> samples);

// Everything a point states about its samples (what phase B stores beside Point::stats).
struct PointOptions {
  double level = 0.95;
  bool bootstrap = false;  // the median's interval by bootstrap instead of order statistics
  BootstrapOptions boot;
};
struct PointSummary {
  Stats stats;
  Estimate median;  // with its interval
  double cv = 0;    // coefficient_of_variation(stats)
  Outliers outliers;
};
PointSummary summarize_point(std::span<const double> samples, const PointOptions& opt = {});

}  // namespace perflab
