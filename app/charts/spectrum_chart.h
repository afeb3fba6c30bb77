#pragma once
// What a chart draws beside a numeric group's lines: a percentile spectrum's whole curves (each
// series' pooled recorders, common/latency_curve.h, as a thin line in its colour from 0% to its
// largest value) and the group's markers (axis_marker.h). Internal to perflab_charts.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <QChart>
#include <QColor>
#include <QLineSeries>

#include "charts/chart_axes.h"
#include "common/latency_curve.h"

namespace perflab::charts {

// The curves of a spectrum group's series that keep recorders, and what the axes must reach to
// show them whole.
struct SpectrumCurves {
  std::map<std::string, std::vector<CurvePoint>> by_series;
  double reach_percent = 0;    // the highest percentile a curve reaches
  std::vector<double> values;  // every value of every curve
};
// Empty unless the group is a spectrum (Group::percentile_x).
SpectrumCurves spectrum_curves(const Group& g, const std::vector<const Series*>& series);

// Draws a curve of `series` on the axes (no legend entry of its own: property
// "perflab_curve_of" names its series, which hides and shows it). Returns the line.
QLineSeries* add_spectrum_curve(QChart& chart, const std::string& series,
                                const std::vector<CurvePoint>& curve, const ValueAxis& x,
                                const ValueAxis& y, const QColor& color, const ChartOptions& opts);

// Draws the group's markers on `anchor`'s axes, each in the colour of its series (`color_of`),
// hidden with a hidden series; a marker beyond a log axis's reach (x ≤ 0) is left out.
void add_axis_markers(QChart& chart, const Group& g, QAbstractSeries* anchor, const ValueAxis& x,
                      const std::function<QColor(const std::string&)>& color_of,
                      const ChartOptions& opts);

}  // namespace perflab::charts
