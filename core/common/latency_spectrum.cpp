// A percentile spectrum in a run: its points from the rounds' recorders, the recorders kept
// encoded beside them, and the 1/(1 - p) axis.
#include "common/latency_spectrum.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "common/latency_codec.h"

namespace perflab {

double spectrum_position(double percent) {
  if (!(percent >= 0 && percent < 100))
    throw std::invalid_argument("a spectrum's percentile must be in 0 ≤ p < 100");
  return 1.0 / (1.0 - percent / 100.0);
}

double spectrum_percent(double position) {
  if (!(position >= 1)) throw std::invalid_argument("a spectrum's position must be at least 1");
  return 100.0 * (1.0 - 1.0 / position);
}

std::string spectrum_label(double percent) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g%%", percent);
  return buf;
}

bool add_latency_spectrum(Run& run, const Group& g, const std::string& series,
                          std::span<const LatencyRecorder> rounds, double ns_per_unit) {
  if (!g.numeric_x || !g.percentile_x)
    throw std::invalid_argument("group '" + g.id + "' is not a percentile spectrum");
  if (!(ns_per_unit > 0)) throw std::invalid_argument("ns_per_unit must be positive");
  std::vector<const LatencyRecorder*> measured;
  for (const auto& r : rounds)
    if (r.count() > 0) measured.push_back(&r);
  if (measured.empty()) return false;
  run.ensure_group(g);
  for (const double pct : kSpectrumPercentiles) {
    Point p;
    p.label = spectrum_label(pct);
    p.x = pct;
    for (const auto* r : measured)
      p.samples.push_back(static_cast<double>(r->value_at_percentile_ns(pct)) / ns_per_unit);
    run.add_point(g.id, series, std::move(p));
  }
  Series& s = run.series_for(g.id, series);
  for (const auto* r : measured) s.latency.push_back(encode_latency(*r));
  return true;
}

std::vector<LatencyRecorder> series_latency(const Series& s) {
  std::vector<LatencyRecorder> out;
  out.reserve(s.latency.size());
  for (const auto& text : s.latency) out.push_back(decode_latency(text));
  return out;
}

}  // namespace perflab
