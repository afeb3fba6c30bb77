#pragma once
// The axes of a run's chart: value axes (linear, or log drawn as log10 on a linear axis), their
// ranges, ticks, label formats, titles and fonts. Internal to perflab_charts (run_chart.cpp).
#include <cstddef>
#include <string>
#include <vector>

#include <QAbstractAxis>
#include <QString>

#include "charts/run_chart.h"
#include "common/run.h"

namespace perflab::charts {

// x of a numeric point: Point::x, else its label read as a number, else its index.
double x_of(const Point& p, std::size_t index);

// The interval of a point worth drawing: one with an interval of some width.
const Estimate* interval_of(const Point& p);

// A log axis range (tight around the data, with room so no point is cut at the edge) and the
// floor where values ≤ 0 are drawn.
struct LogRange {
  double min = 1, max = 10, floor = 0;
};

// An axis of values, linear or log; on a log axis values ≤ 0 are drawn at a floor.
// On a log axis values are drawn at log10(v) (see make_log_axis).
struct ValueAxis {
  QAbstractAxis* axis = nullptr;
  bool log = false;
  bool nonpositive = false;  // some value ≤ 0
  LogRange range;            // when log
  // A percentile spectrum's x axis: a percentile p is drawn at log10(1 / (1 - p)) (log is set).
  bool percentile = false;
  bool clamps(double v) const { return log && !percentile && !(v > 0); }
  double at(double v) const;
};

// Label and title fonts of an axis: presentation sizes for a room, else the window's.
void style_axis(QAbstractAxis* axis, const ChartOptions& opts);

// The point sizes of axis text (tick labels, titles) in a chart built with `opts`.
double axis_label_points(const ChartOptions& opts);
double axis_title_points(const ChartOptions& opts);

// The y axis of a group: the points' medians (and their intervals) and `more` values drawn
// beside them (a spectrum's curves), titled by what it shows.
ValueAxis make_y_axis(const Group& g, const std::vector<const Series*>& series,
                      const ChartOptions& opts, const std::vector<double>& more = {});

// The x axis of a numeric group: Point::x of every point and of the group's markers (log when
// opts.log_x says so). A percentile spectrum's (Group::percentile_x, every x in 0 ≤ x < 100) is
// HdrHistogram's 1/(1 - p) axis on a log scale whatever opts.log_x says, ticks at 50%, 90%,
// 99% … each nine within its range, reaching `reach_percent` (a curve's last percentile) too.
ValueAxis make_x_axis(const Group& g, const std::vector<const Series*>& series,
                      const ChartOptions& opts, double reach_percent = 0);

}  // namespace perflab::charts
