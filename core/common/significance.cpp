#include "common/significance.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "common/resample.h"

namespace perflab {

std::optional<Estimate> ratio_ci(std::span<const double> a, std::span<const double> b,
                                 const RatioOptions& opt) {
  if (!(opt.level > 0 && opt.level < 1))
    throw std::invalid_argument("confidence level must be between 0 and 1 (exclusive)");
  if (opt.boot.resamples < 1) throw std::invalid_argument("bootstrap needs at least one resample");
  if (a.empty() || b.empty()) return std::nullopt;
  if (opt.figure == RatioFigure::MedianOfRoundRatios) {
    if (!opt.interleaved || a.size() != b.size()) return std::nullopt;
    std::vector<double> rounds(a.size());
    for (std::size_t r = 0; r < a.size(); ++r) {
      if (b[r] == 0) return std::nullopt;
      rounds[r] = a[r] / b[r];
    }
    return median_ci(rounds, opt.level);
  }
  const double median_b = quantile(b, 0.5);
  if (median_b == 0) return std::nullopt;
  Estimate e;
  e.value = quantile(a, 0.5) / median_b;
  e.lo = e.hi = e.value;
  e.n = std::min(a.size(), b.size());
  if (a.size() < 2 || b.size() < 2) return e;

  const std::span<const double> series[] = {a, b};
  resample::Rng rng(opt.boot.seed ? *opt.boot.seed : resample::data_seed(series));
  const resample::ResampledMedian ma(a), mb(b);
  const bool paired = opt.interleaved && a.size() == b.size();
  // A resample in which b's median is 0 has no finite ratio: it counts as an infinite one,
  // which can only widen the interval.
  auto ratio = [](double x, double y) {
    return y != 0 ? x / y : std::numeric_limits<double>::infinity();
  };
  std::vector<double> replicates;
  replicates.reserve(static_cast<std::size_t>(opt.boot.resamples));
  std::vector<std::uint32_t> ca, cb;
  // A side of many samples draws its resample's median directly (constant time, not linear).
  const auto median_of = [&](const resample::ResampledMedian& m, std::vector<std::uint32_t>& c) {
    if (m.size() > resample::kDrawMedianAbove) return m.draw(rng);
    resample::draw_counts(rng, m.size(), c);
    return m(c);
  };
  for (int r = 0; r < opt.boot.resamples; ++r) {
    if (paired) {
      resample::draw_counts(rng, a.size(), ca);
      replicates.push_back(ratio(ma(ca), mb(ca)));
    } else {
      const double x = median_of(ma, ca);
      replicates.push_back(ratio(x, median_of(mb, cb)));
    }
  }
  std::tie(e.lo, e.hi) = resample::percentile_interval(replicates, opt.level);
  // As for a median (confidence.h): with fewer than 6 repetitions on a side the nominal level
  // is out of reach; the level then states the bound of the smaller side.
  const double bound = median_ci_ranks(std::min(a.size(), b.size()), opt.level).coverage;
  e.level = std::min(opt.level, bound);
  e.full_level = bound >= opt.level;
  e.method = paired ? CiMethod::PairedBootstrap : CiMethod::Bootstrap;
  return e;
}

const char* to_string(Better b) {
  return b == Better::Lower ? "lower" : "higher";
}

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::Faster:
      return "faster";
    case Verdict::Slower:
      return "slower";
    case Verdict::Equivalent:
      return "equivalent";
    case Verdict::NoDifference:
      return "no significant difference";
    case Verdict::LeansFaster:
      return "leans faster";
    case Verdict::LeansSlower:
      return "leans slower";
    case Verdict::TooFewSamples:
      return "too few repetitions";
  }
  return "too few repetitions";
}

Verdict judge_ratio(const Estimate& ratio, Better better, double threshold) {
  if (!(threshold >= 0)) throw std::invalid_argument("the threshold must not be negative");
  if (!ratio.has_interval()) return Verdict::TooFewSamples;
  const bool lower = better == Better::Lower;
  if (ratio.hi < 1 - threshold) return lower ? Verdict::Faster : Verdict::Slower;
  if (ratio.lo > 1 + threshold) return lower ? Verdict::Slower : Verdict::Faster;
  if (1 - threshold <= ratio.lo && ratio.hi <= 1 + threshold) return Verdict::Equivalent;
  if (ratio.lo <= 1 && 1 <= ratio.hi) return Verdict::NoDifference;
  const bool a_lower = ratio.hi < 1;  // the interval excludes 1, partly inside the band
  return a_lower == lower ? Verdict::LeansFaster : Verdict::LeansSlower;
}

bool settles(Verdict v) {
  return v == Verdict::Faster || v == Verdict::Slower || v == Verdict::Equivalent;
}

std::optional<RatioJudgement> judge_series(std::span<const double> a, std::span<const double> b,
                                           Better better, double threshold,
                                           const RatioOptions& opt) {
  auto r = ratio_ci(a, b, opt);
  if (!r) return std::nullopt;
  return RatioJudgement{*r, judge_ratio(*r, better, threshold), threshold, better};
}

const char* to_string(Reproduction r) {
  switch (r) {
    case Reproduction::Reproduced:
      return "reproduced";
    case Reproduction::NotReproduced:
      return "not reproduced";
    case Reproduction::Inconclusive:
      return "inconclusive";
    case Reproduction::NotJudged:
      return "not judged";
  }
  return "not judged";
}

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string short_figure(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}
}  // namespace

const char* to_string(Claim::Kind k) {
  switch (k) {
    case Claim::Kind::Value:
      return "value";
    case Claim::Kind::Below:
      return "below";
    case Claim::Kind::Above:
      return "above";
    case Claim::Kind::NoChange:
      return "no_change";
  }
  return "value";
}

std::string Claim::yardstick() const {
  switch (kind) {
    case Kind::Value:
      return short_figure(figure) + " ± " + short_figure((hi - lo) / 2);
    case Kind::Below:
      return "≤ " + short_figure(hi);
    case Kind::Above:
      return "≥ " + short_figure(lo);
    case Kind::NoChange:
      return "1 ± " + short_figure((hi - lo) / 2 * 100) + "%";
  }
  return {};
}

Claim claim_value(double figure, double tolerance) {
  if (!(tolerance > 0)) throw std::invalid_argument("a claim's tolerance must be positive");
  return {Claim::Kind::Value, figure, figure - tolerance, figure + tolerance};
}

Claim claim_below(double figure, double bound) {
  return {Claim::Kind::Below, figure, 0, bound};
}

Claim claim_above(double figure, double bound) {
  return {Claim::Kind::Above, figure, bound, kInf};
}

Claim claim_no_change(double figure, double tolerance) {
  if (!(tolerance > 0)) throw std::invalid_argument("a claim's tolerance must be positive");
  return {Claim::Kind::NoChange, figure, 1 - tolerance, 1 + tolerance};
}

Reproduction judge_claim(const Claim& claim, const Estimate& measured) {
  if (!measured.has_interval()) return Reproduction::NotJudged;
  if (claim.lo <= measured.lo && measured.hi <= claim.hi) return Reproduction::Reproduced;
  if (measured.hi < claim.lo || measured.lo > claim.hi) return Reproduction::NotReproduced;
  return Reproduction::Inconclusive;
}

std::optional<std::size_t> repetitions_to_settle(const Claim& claim, const Estimate& measured) {
  if (!measured.has_interval() || measured.n < 2) return std::nullopt;
  // The interval must shrink until neither end crosses the band's nearest edge.
  double room = kInf;
  for (double edge : {claim.lo, claim.hi})
    if (std::isfinite(edge)) room = std::min(room, std::abs(measured.value - edge));
  const double half = std::max(measured.value - measured.lo, measured.hi - measured.value);
  if (!(room > 0) || !std::isfinite(room) || !(half > 0)) return std::nullopt;
  const double factor = (half / room) * (half / room);
  const double n = std::ceil(static_cast<double>(measured.n) * factor);
  if (!(n < 1e9)) return std::nullopt;
  return static_cast<std::size_t>(n);
}

const char* to_string(UTestMethod m) {
  switch (m) {
    case UTestMethod::Auto:
      return "auto";
    case UTestMethod::Exact:
      return "exact";
    case UTestMethod::Asymptotic:
      return "asymptotic";
  }
  return "auto";
}

namespace {
// P(U <= u) and P(U >= u) under the null hypothesis, for samples of m and n values without ties:
// every choice of which m of the N = m + n ranks belong to the first sample is equally likely.
// ways[k][v]: choices of k first-sample values among the j smallest values with U so far v; a
// first-sample value placed after i second-sample values adds i to U. Additions only, so the
// counts (at most C(N, m)) keep their relative precision.
std::pair<double, double> exact_u_tails(std::size_t m, std::size_t n, double u) {
  if (m > n) std::swap(m, n);  // U has the same null distribution either way round
  const std::size_t max_u = m * n, N = m + n;
  std::vector<std::vector<double>> ways(m + 1, std::vector<double>(max_u + 1, 0.0));
  ways[0][0] = 1;
  for (std::size_t j = 0; j < N; ++j) {
    for (std::size_t k = std::min(j, m - 1) + 1; k-- > 0;) {
      const std::size_t before = j - k;  // second-sample values below the next one
      if (before > n) continue;
      const auto& from = ways[k];
      auto& to = ways[k + 1];
      for (std::size_t v = 0; v + before <= max_u; ++v)
        if (from[v] != 0) to[v + before] += from[v];
    }
  }
  const auto& dist = ways[m];
  double total = 0, below = 0, above = 0;
  for (std::size_t v = 0; v <= max_u; ++v) {
    total += dist[v];
    if (static_cast<double>(v) <= u) below += dist[v];
    if (static_cast<double>(v) >= u) above += dist[v];
  }
  return {below / total, above / total};
}
}  // namespace

UTest mann_whitney_u(std::span<const double> x, std::span<const double> y, UTestMethod method) {
  UTest t;
  const std::size_t n1 = x.size(), n2 = y.size(), N = n1 + n2;
  t.enough = n1 >= 2 && n2 >= 2;
  t.reliable = n1 >= 9 && n2 >= 9;
  if (n1 == 0 || n2 == 0) return t;

  // Midranks of the pooled samples and the tie groups.
  std::vector<std::size_t> order(N);
  std::iota(order.begin(), order.end(), std::size_t{0});
  auto value = [&](std::size_t i) { return i < n1 ? x[i] : y[i - n1]; };
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return value(a) < value(b); });
  double rank_sum_x = 0, tie_term = 0;
  for (std::size_t i = 0; i < N;) {
    std::size_t j = i;
    while (j + 1 < N && value(order[j + 1]) == value(order[i])) ++j;
    const double midrank = static_cast<double>(i + j) / 2 + 1;
    for (std::size_t k = i; k <= j; ++k)
      if (order[k] < n1) rank_sum_x += midrank;
    const auto group = static_cast<double>(j - i + 1);
    if (j > i) {
      t.ties = true;
      tie_term += group * group * group - group;
    }
    i = j + 1;
  }
  const auto d1 = static_cast<double>(n1), d2 = static_cast<double>(n2), dN = d1 + d2;
  t.u = rank_sum_x - d1 * (d1 + 1) / 2;
  if (!t.enough) return t;

  bool exact = false;
  if (method == UTestMethod::Auto) exact = !t.ties && (n1 <= 8 || n2 <= 8);
  if (method == UTestMethod::Exact) exact = !t.ties && n1 * n2 <= 2500;
  if (exact) {
    const auto [below, above] = exact_u_tails(n1, n2, t.u);
    t.method = UTestMethod::Exact;
    t.p_value = std::min(1.0, 2 * std::min(below, above));
    return t;
  }
  t.method = UTestMethod::Asymptotic;
  const double mean = d1 * d2 / 2;
  const double variance = d1 * d2 / 12 * ((dN + 1) - tie_term / (dN * (dN - 1)));
  if (!(variance > 0)) return t;  // every value equal: nothing tells the samples apart
  const double distance = std::abs(t.u - mean);
  const double z = (distance - 0.5) / std::sqrt(variance);
  t.z = t.u < mean ? -z : z;
  t.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return t;
}

}  // namespace perflab
