// The relative view of a group: every series' medians as ratios to a baseline series', or to
// their own in a baseline category (relative.h).
#include "common/relative.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

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

namespace {
constexpr std::string_view kCategory = "category: ";

// The ratio of point a to point b: with its interval from the samples, or of the stored medians
// (too many ratios, or points stored without their samples); nullopt when there is none.
std::optional<Estimate> point_ratio(const Point& a, const Point& b, const RatioOptions& ro,
                                    bool intervals) {
  if (intervals && !a.samples.empty() && !b.samples.empty())
    return ratio_ci(a.samples, b.samples, ro);
  if (a.stats.n == 0 || b.stats.n == 0 || b.stats.median == 0) return std::nullopt;
  Estimate e;
  e.value = e.lo = e.hi = a.stats.median / b.stats.median;
  e.n = std::min(a.stats.n, b.stats.n);
  return e;
}

// Every series against its own point in `category`.
std::optional<RelativeView> category_view(const Run& run, const Group& g,
                                          const std::string& category, const RelativeOptions& opt) {
  RelativeView view;
  view.group = g.id;
  view.baseline = category;
  view.category = true;
  view.better = better_of(g);
  view.baseline_labels = {category};
  std::vector<std::pair<const Series*, const Point*>> with;  // each series with its point there
  std::size_t ratios = 0;
  for (const auto& s : run.series) {
    if (s.group != g.id) continue;
    const Point* base = nullptr;
    for (const auto& p : s.points)
      if (p.label == category) base = &p;  // the last of a label, as charts draw it
    if (!base) continue;
    with.emplace_back(&s, base);
    for (const auto& p : s.points) ratios += p.label != category;
  }
  if (with.empty()) return std::nullopt;
  view.intervals_left_out = ratios > opt.max_intervals;
  RatioOptions ro;
  ro.level = opt.level;
  ro.interleaved = g.interleaved;
  for (const auto& [s, base] : with) {
    RelativeSeries rs{s->name, {}};
    for (const auto& p : s->points) {
      if (p.label == category) continue;
      if (const auto r = point_ratio(p, *base, ro, !view.intervals_left_out))
        rs.points.push_back({p.label, p.x, *r});
    }
    view.series.push_back(std::move(rs));
  }
  return view;
}
}  // namespace

std::string category_baseline(const std::string& label) {
  return std::string(kCategory) + label;
}

std::optional<std::string> baseline_category(const std::string& baseline) {
  if (!baseline.starts_with(kCategory)) return std::nullopt;
  return baseline.substr(kCategory.size());
}

std::optional<RelativeView> relative_view(const Run& run, const std::string& group,
                                          const std::string& baseline, const RelativeOptions& opt) {
  const Group* g = run.group(group);
  if (const auto category = baseline_category(baseline))
    return g ? category_view(run, *g, *category, opt) : std::nullopt;
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
      const std::optional<Estimate> r = point_ratio(p, *b->second, ro, !view.intervals_left_out);
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
