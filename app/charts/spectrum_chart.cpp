// A spectrum's curves and a group's markers on a chart (spectrum_chart.h).
#include "charts/spectrum_chart.h"

#include <algorithm>
#include <cmath>

#include <QLegend>
#include <QLegendMarker>
#include <QPen>

#include "charts/axis_marker.h"

namespace perflab::charts {

SpectrumCurves spectrum_curves(const Group& g, const std::vector<const Series*>& series) {
  SpectrumCurves out;
  if (!g.percentile_x) return out;
  for (const Series* s : series) {
    auto curve = spectrum_curve(*s, g.unit);
    if (curve.empty()) continue;
    out.reach_percent = std::max(out.reach_percent, curve.back().percent);
    for (const auto& c : curve) out.values.push_back(c.value);
    out.by_series.emplace(s->name, std::move(curve));
  }
  return out;
}

QLineSeries* add_spectrum_curve(QChart& chart, const std::string& series,
                                const std::vector<CurvePoint>& curve, const ValueAxis& x,
                                const ValueAxis& y, const QColor& color, const ChartOptions& opts) {
  auto* line = new QLineSeries;
  line->setProperty("perflab_curve_of", QString::fromStdString(series));
  QList<QPointF> at;
  at.reserve(static_cast<qsizetype>(curve.size()));
  for (const auto& c : curve) at << QPointF(x.at(c.percent), y.at(c.value));
  line->replace(at);
  chart.addSeries(line);
  QPen pen(color);
  pen.setWidthF(opts.presentation ? 2 : 1.2);
  line->setPen(pen);
  const auto axes = chart.axes();
  for (auto* axis : axes)
    if (axis->orientation() == Qt::Horizontal ? axis == x.axis : axis == y.axis)
      line->attachAxis(axis);
  for (auto* m : chart.legend()->markers(line)) m->setVisible(false);
  if (opts.hidden_series.count(series)) line->setVisible(false);
  return line;
}

void add_axis_markers(QChart& chart, const Group& g, QAbstractSeries* anchor, const ValueAxis& x,
                      const std::function<QColor(const std::string&)>& color_of,
                      const ChartOptions& opts) {
  QFont font = chart.legend()->font();
  font.setPointSizeF(axis_title_points(opts));
  font.setBold(true);
  int row = 0;
  for (const auto& m : g.markers) {
    if (!std::isfinite(m.x) || (x.log && !x.percentile && !(m.x > 0))) continue;
    if (x.percentile && !(m.x >= 0 && m.x < 100)) continue;
    const QColor color = m.series.empty() ? error_bar_color(opts.theme) : color_of(m.series);
    auto* item = new AxisMarker(chart, anchor, x.at(m.x), QString::fromStdString(m.label),
                                QString::fromStdString(m.series), color, font,
                                opts.presentation ? 3.0 : 2.0, row++);
    if (!m.series.empty() && opts.hidden_series.count(m.series)) item->setVisible(false);
  }
}

}  // namespace perflab::charts
