#include "common/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace perflab {

double quantile_sorted(std::span<const double> s, double q) {
  if (s.empty()) return 0;
  q = std::clamp(q, 0.0, 1.0);
  const double pos = q * static_cast<double>(s.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, s.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return s[lo] + (s[hi] - s[lo]) * frac;
}

double quantile(std::span<const double> samples, double q) {
  std::vector<double> s(samples.begin(), samples.end());
  std::sort(s.begin(), s.end());
  return quantile_sorted(s, q);
}

Stats summarize(std::span<const double> samples) {
  std::vector<double> s(samples.begin(), samples.end());
  std::sort(s.begin(), s.end());
  return summarize_sorted(s);
}

Stats summarize_sorted(std::span<const double> s) {
  Stats st;
  st.n = s.size();
  if (s.empty()) return st;
  st.min = s.front();
  st.max = s.back();
  st.median = quantile_sorted(s, 0.5);
  st.p95 = quantile_sorted(s, 0.95);
  st.mean = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  if (s.size() > 1) {
    double acc = 0;
    for (double v : s) acc += (v - st.mean) * (v - st.mean);
    st.stddev = std::sqrt(acc / static_cast<double>(s.size() - 1));
  }
  return st;
}

}  // namespace perflab
