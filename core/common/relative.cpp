// The relative view of a group: every series' medians as ratios to a baseline series'
// (relative.h).
#include "common/relative.h"

#include <algorithm>
#include <map>

#include "common/figure_format.h"

namespace perflab {

const RelativePoint* RelativeView::find(const std::string& series_name,
                                        const std::string& label) const {
  for (const auto& s : series)
    if (s.name == series_name)
      for (const auto& p : s.points)
        if (p.label == label) return &p;
  return nullptr;
}

std::string named_baseline(const Run& run, const std::string& group) {
  const Group* g = run.group(group);
  if (!g || g->baseline_series.empty()) return {};
  const Series* s = run.find_series(group, g->baseline_series);
  return s && !s->points.empty() ? g->baseline_series : std::string();
}

std::optional<RelativeView> relative_view(const Run& run, const std::string& group,
                                          const std::string& baseline, const RelativeOptions& opt) {
  const Group* g = run.group(group);
  const Series* base = g ? run.find_series(group, baseline) : nullptr;
  if (!base || base->points.empty()) return std::nullopt;
  RelativeView view;
  view.group = group;
  view.baseline = baseline;
  view.better = better_of(*g);
  std::map<std::string, const Point*> base_at;  // the last point of a label, as charts draw it
  for (const auto& p : base->points) {
    if (!base_at.count(p.label)) view.baseline_labels.push_back(p.label);
    base_at[p.label] = &p;
  }
  std::size_t ratios = 0;
  for (const auto& s : run.series)
    if (s.group == group && s.name != baseline)
      for (const auto& p : s.points) ratios += base_at.count(p.label);
  view.intervals_left_out = ratios > opt.max_intervals;

  RatioOptions ro;
  ro.level = opt.level;
  ro.interleaved = g->interleaved;
  for (const auto& s : run.series) {
    if (s.group != group || s.name == baseline || s.points.empty()) continue;
    RelativeSeries rs{s.name, {}};
    for (const auto& p : s.points) {
      auto b = base_at.find(p.label);
      if (b == base_at.end()) continue;
      const std::vector<double>& a = p.samples;
      const Point& bp = *b->second;
      std::optional<Estimate> r;
      if (!view.intervals_left_out && !a.empty() && !bp.samples.empty()) {
        r = ratio_ci(a, bp.samples, ro);
      } else if (p.stats.n > 0 && bp.stats.n > 0 && bp.stats.median != 0) {
        // The ratio of the stored medians, no resampling: too many ratios, or points stored
        // without their samples.
        Estimate e;
        e.value = e.lo = e.hi = p.stats.median / bp.stats.median;
        e.n = std::min(p.stats.n, bp.stats.n);
        r = e;
      }
      if (!r) continue;
      RelativePoint rp{p.label, p.x, *r};
      rs.points.push_back(std::move(rp));
    }
    view.series.push_back(std::move(rs));
  }
  return view;
}

std::string relative_sentence(const RelativeView& view, const std::string& series,
                              const RelativePoint& p) {
  return series + " — " + p.label + ": " + format_relative(p.ratio, view.baseline);
}

}  // namespace perflab
