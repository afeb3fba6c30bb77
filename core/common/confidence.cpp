#include "common/confidence.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "common/resample.h"

namespace perflab {

namespace {
void check_level(double level) {
  if (!(level > 0 && level < 1))
    throw std::invalid_argument("confidence level must be between 0 and 1 (exclusive)");
}

// P(Binomial(n, 1/2) = i), through logarithms so that large n neither overflows nor underflows.
double binomial_half_pmf(std::size_t n, std::size_t i) {
  const auto dn = static_cast<double>(n), di = static_cast<double>(i);
  return std::exp(std::lgamma(dn + 1) - std::lgamma(di + 1) - std::lgamma(dn - di + 1) -
                  dn * std::log(2.0));
}

// The value and a "no interval" estimate for fewer than two samples.
Estimate without_interval(std::span<const double> samples) {
  Estimate e;
  e.value = samples.empty() ? 0 : samples.front();
  e.lo = e.hi = e.value;
  e.n = samples.size();
  return e;
}
}  // namespace

const char* to_string(CiMethod m) {
  switch (m) {
    case CiMethod::None:
      return "none";
    case CiMethod::OrderStatistic:
      return "order-statistic";
    case CiMethod::Bootstrap:
      return "bootstrap";
    case CiMethod::PairedBootstrap:
      return "paired-bootstrap";
  }
  return "none";
}

double Estimate::relative_half_width() const {
  if (!has_interval() || value == 0) return std::numeric_limits<double>::infinity();
  return std::max(std::abs(value - lo), std::abs(hi - value)) / std::abs(value);
}

MedianRanks median_ci_ranks(std::size_t n, double level) {
  check_level(level);
  if (n < 2) return {};
  // Reading a run asks again for every point, nearly always with the same n and level (100,000
  // times for a 100,000-point run, each a sum of binomial terms): the last answer is kept.
  thread_local std::size_t last_n = 0;  // none yet (n is at least 2)
  thread_local double last_level = 0;
  thread_local MedianRanks last;
  if (n == last_n && level == last_level) return last;
  const double alpha = 1 - level;
  // cdf = P(B <= k - 1) for the current k; the interval [x(k), x(n+1-k)] misses the median
  // with probability 2 * cdf. Grow k while the next one still keeps that within alpha.
  std::size_t k = 1;
  double cdf = binomial_half_pmf(n, 0);
  while (k + 1 <= n + 1 - (k + 1)) {
    const double next = cdf + binomial_half_pmf(n, k);
    if (2 * next > alpha) break;
    cdf = next;
    ++k;
  }
  last_n = n;
  last_level = level;
  last = {k, n + 1 - k, std::max(0.0, 1 - 2 * cdf)};
  return last;
}

namespace {
// median_ci over samples already sorted ascending.
Estimate median_ci_sorted(std::span<const double> s, double level) {
  const auto ranks = median_ci_ranks(s.size(), level);
  if (s.size() < 2) return without_interval(s);
  Estimate e;
  e.value = quantile_sorted(s, 0.5);
  e.lo = s[ranks.lo_rank - 1];
  e.hi = s[ranks.hi_rank - 1];
  e.level = ranks.coverage;
  e.full_level = ranks.coverage >= level;
  e.method = CiMethod::OrderStatistic;
  e.n = s.size();
  return e;
}
}  // namespace

Estimate median_ci(std::span<const double> samples, double level) {
  std::vector<double> s(samples.begin(), samples.end());
  std::sort(s.begin(), s.end());
  return median_ci_sorted(s, level);
}

Estimate median_ci_bootstrap(std::span<const double> samples, const BootstrapOptions& opt,
                             double level) {
  check_level(level);
  if (opt.resamples < 1) throw std::invalid_argument("bootstrap needs at least one resample");
  if (samples.size() < 2) return without_interval(samples);
  const std::span<const double> series[] = {samples};
  resample::Rng rng(opt.seed ? *opt.seed : resample::data_seed(series));
  const resample::ResampledMedian median(samples);
  std::vector<double> replicates;
  replicates.reserve(static_cast<std::size_t>(opt.resamples));
  std::vector<std::uint32_t> counts;
  for (int b = 0; b < opt.resamples; ++b) {
    if (samples.size() > resample::kDrawMedianAbove) {  // constant time a resample (resample.h)
      replicates.push_back(median.draw(rng));
      continue;
    }
    resample::draw_counts(rng, samples.size(), counts);
    replicates.push_back(median(counts));
  }
  Estimate e;
  e.value = quantile(samples, 0.5);
  std::tie(e.lo, e.hi) = resample::percentile_interval(replicates, level);
  // No interval inside [min, max] covers the median more often than [min, max] itself.
  const double bound = median_ci_ranks(samples.size(), level).coverage;
  e.level = std::min(level, bound);
  e.full_level = bound >= level;
  e.method = CiMethod::Bootstrap;
  e.n = samples.size();
  return e;
}

double coefficient_of_variation(const Stats& s) {
  if (s.n < 2 || s.mean == 0) return 0;
  return s.stddev / std::abs(s.mean);
}

const char* to_string(OutlierClass c) {
  switch (c) {
    case OutlierClass::LowSevere:
      return "low severe";
    case OutlierClass::LowMild:
      return "low mild";
    case OutlierClass::Normal:
      return "normal";
    case OutlierClass::HighMild:
      return "high mild";
    case OutlierClass::HighSevere:
      return "high severe";
  }
  return "normal";
}

OutlierClass TukeyFences::classify(double v) const {
  if (v < low_severe) return OutlierClass::LowSevere;
  if (v < low_mild) return OutlierClass::LowMild;
  if (v > high_severe) return OutlierClass::HighSevere;
  if (v > high_mild) return OutlierClass::HighMild;
  return OutlierClass::Normal;
}

namespace {
// classify_outliers over samples already sorted ascending.
Outliers classify_outliers_sorted(std::span<const double> s) {
  Outliers o;
  if (s.empty()) return o;
  const double q1 = quantile_sorted(s, 0.25), q3 = quantile_sorted(s, 0.75), iqr = q3 - q1;
  o.fences = {q1 - 3 * iqr, q1 - 1.5 * iqr, q3 + 1.5 * iqr, q3 + 3 * iqr};
  for (double v : s) {
    switch (o.fences.classify(v)) {
      case OutlierClass::LowSevere:
        ++o.low_severe;
        break;
      case OutlierClass::LowMild:
        ++o.low_mild;
        break;
      case OutlierClass::HighMild:
        ++o.high_mild;
        break;
      case OutlierClass::HighSevere:
        ++o.high_severe;
        break;
      case OutlierClass::Normal:
        break;
    }
  }
  return o;
}
}  // namespace

Outliers classify_outliers(std::span<const double> samples) {
  std::vector<double> s(samples.begin(), samples.end());
  std::sort(s.begin(), s.end());
  return classify_outliers_sorted(s);
}

PointSummary summarize_point(std::span<const double> samples, const PointOptions& opt) {
  std::vector<double> sorted(samples.begin(), samples.end());  // sorted once for all three
  std::sort(sorted.begin(), sorted.end());
  PointSummary p;
  p.stats = summarize_sorted(sorted);
  // The bootstrap resamples the samples as measured (its seed comes from their order).
  p.median = opt.bootstrap ? median_ci_bootstrap(samples, opt.boot, opt.level)
                           : median_ci_sorted(sorted, opt.level);
  p.cv = coefficient_of_variation(p.stats);
  p.outliers = classify_outliers_sorted(sorted);
  return p;
}

}  // namespace perflab
