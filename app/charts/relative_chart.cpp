// The relative view as a chart: the ratios of common/relative.h drawn by build_chart, the
// baseline at 1 and a reference line through it.
#include "charts/relative_chart.h"

#include <algorithm>

#include <QBarCategoryAxis>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>

namespace perflab::charts {

namespace {

// What a group's unit measures, in a word for "× <baseline>'s <word>".
std::string quantity_of(const std::string& unit) {
  const std::string head = unit.substr(0, unit.find('/'));
  if (head == "ns" || head == "us" || head == "ms" || head == "s") return "time";
  if (unit.size() > 2 && unit.compare(unit.size() - 2, 2, "/s") == 0) return "rate";
  return unit.empty() ? "value" : unit;
}

// A dashed line at ratio 1 across the plot, attached to the chart's axes; no legend entry.
void add_reference_line(QChart& chart, const ChartOptions& opts) {
  const auto xs = chart.axes(Qt::Horizontal);
  const auto ys = chart.axes(Qt::Vertical);
  if (xs.isEmpty() || ys.isEmpty()) return;
  double x0 = 0, x1 = 1;
  if (auto* cats = qobject_cast<QBarCategoryAxis*>(xs.front())) {
    x0 = -0.5;
    x1 = cats->count() - 0.5;
  } else if (auto* values = qobject_cast<QValueAxis*>(xs.front())) {
    x0 = values->min();
    x1 = values->max();
  }
  // A log axis draws log10 of the values (run_chart.h): 1 is drawn at 0.
  const double one = ys.front()->property("perflab_log").toBool() ? 0.0 : 1.0;
  auto* line = new QLineSeries;
  line->setName(QStringLiteral("1 = baseline"));
  line->setProperty("perflab_reference", true);
  line->append(x0, one);
  line->append(x1, one);
  QPen pen(QColor(120, 120, 120));
  pen.setStyle(Qt::DashLine);
  pen.setWidthF(opts.presentation ? 2.5 : 1.5);
  line->setPen(pen);
  chart.addSeries(line);
  line->attachAxis(xs.front());
  line->attachAxis(ys.front());
  for (auto* m : chart.legend()->markers(line)) m->setVisible(false);
}

}  // namespace

QString relative_axis_text(const Group& group, const std::string& baseline) {
  return QString::fromStdString("× " + baseline + "'s " + quantity_of(group.unit));
}

Run relative_run(const Run& run, const RelativeView& view) {
  Run out;
  out.experiment = run.experiment;
  out.threshold = run.threshold;
  Group g = *run.group(view.group);
  g.unit = relative_axis_text(g, view.baseline).toStdString();
  g.log_y = true;  // ratios: 0.5× and 2× lie as far from 1
  g.stacked = false;
  out.groups.push_back(g);
  for (const auto& s : run.series) {
    if (s.group != view.group) continue;
    if (view.category) {  // each series at 1 in the category, its ratios in the others
      const auto it = std::find_if(view.series.begin(), view.series.end(),
                                   [&](const RelativeSeries& r) { return r.name == s.name; });
      if (it == view.series.end()) continue;
      Series& rs = out.series_for(view.group, s.name);
      for (const auto& p : s.points) {
        Point q;
        q.label = p.label;
        q.x = p.x;
        if (p.label == view.baseline) {
          q.stats.median = 1;
          q.stats.n = 1;
        } else if (const RelativePoint* rp = view.find(s.name, p.label)) {
          q.stats.median = rp->ratio.value;
          q.stats.n = rp->ratio.n;
          q.median_ci = rp->ratio;
        } else {
          continue;
        }
        rs.points.push_back(std::move(q));
      }
      continue;
    }
    Series& rs = out.series_for(view.group, s.name);
    if (s.name == view.baseline) {
      for (const auto& label : view.baseline_labels) {
        Point p;
        p.label = label;
        p.x = run.find_point(view.group, s.name, label)->x;
        p.stats.median = 1;
        p.stats.n = 1;
        rs.points.push_back(std::move(p));
      }
      continue;
    }
    for (const auto& series : view.series) {
      if (series.name != s.name) continue;
      for (const auto& rp : series.points) {
        Point p;
        p.label = rp.label;
        p.x = rp.x;
        p.stats.median = rp.ratio.value;
        p.stats.n = rp.ratio.n;
        p.median_ci = rp.ratio;
        rs.points.push_back(std::move(p));
      }
    }
  }
  return out;
}

std::unique_ptr<QChart> build_relative_chart(const Run& run, const std::string& group_id,
                                             const ChartOptions& opts, ChartFacts* facts) {
  if (!run.group(group_id)) throw ChartError("the run has no group '" + group_id + "'");
  const auto view = relative_view(run, group_id, opts.relative_to);
  if (!view)
    throw ChartError(baseline_category(opts.relative_to)
                         ? "the chart '" + group_id + "' has no point in the category '" +
                               *baseline_category(opts.relative_to) + "'"
                         : "the chart '" + group_id + "' has no series '" + opts.relative_to + "'");
  ChartOptions o = opts;
  o.relative_to.clear();
  // A ratio axis is log whatever Log y says: on a linear one 0.2× and 1.09× vanish beside 218×.
  o.log_y = true;
  o.title_suffix = QStringLiteral(" — relative to ") + QString::fromStdString(view->baseline) +
                   opts.title_suffix;
  if (view->intervals_left_out) {
    std::size_t ratios = 0;
    for (const auto& s : view->series) ratios += s.points.size();
    o.title_suffix += QStringLiteral(" (%L1 ratios: no intervals)").arg(ratios);
  }
  auto chart = build_chart(relative_run(run, *view), group_id, o, facts);
  add_reference_line(*chart, opts);
  return chart;
}

QAbstractSeries* reference_line(const QChart& chart) {
  for (auto* s : chart.series())
    if (s->property("perflab_reference").toBool()) return s;
  return nullptr;
}

}  // namespace perflab::charts
