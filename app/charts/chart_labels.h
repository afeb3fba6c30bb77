#pragma once
// Category labels that fit: every label of a bar category axis shown whole, inside the chart,
// none over another, at any chart size (Qt drops a label that runs past the axis's end and
// cuts one wider than the room the layout gives it). Internal to perflab_charts.
#include <QBarCategoryAxis>
#include <QChart>
#include <QStringList>

#include "charts/run_chart.h"

namespace perflab::charts {

// Keeps the labels of `axis` (on the chart's bottom or left edge) fitted to the room each
// category has, each time the plot area changes: level on one line when they fit, else wrapped
// over up to three lines, else (bottom edge) turned upright, in a smaller font when nothing
// else fits (never below the options' least readable size). The categories as given stay
// readable through category_text().
void fit_category_labels(QChart& chart, QBarCategoryAxis* axis, const ChartOptions& opts);

// Keeps an axis's title whole: its parts ("µs/op", "log scale", "lower is better") on one line
// while the axis is long enough, else over several, a part too long for one broken between
// words (Qt cuts it to "µs/op, lower ..." or "% of one append (its phases sta…").
void fit_axis_title(QChart& chart, QAbstractAxis* axis);

}  // namespace perflab::charts
