#pragma once
// The relative view of a group as a chart: every series as ratios to a baseline series, or each
// to its own value in a baseline category (common/relative.h), each ratio's interval as an error
// bar, the baseline at 1 with a dashed reference line across the plot, on a log y axis.
#include <memory>
#include <string>

#include <QChart>
#include <QString>

#include "charts/run_chart.h"
#include "common/relative.h"

namespace perflab::charts {

// The y axis title of a relative view: "× interpolate's time".
QString relative_axis_text(const Group& group, const std::string& baseline);

// The run whose group `view.group` holds the ratios of `view` as its points (their intervals as
// the points' median_ci, the baseline at 1 without one), titled and labelled for the view;
// log y by default. build_chart() draws it as any group.
Run relative_run(const Run& run, const RelativeView& view);

// Builds the relative chart of opts.relative_to (a series, or "category: NAME"); throws
// ChartError when the group has no such series or no point in that category.
std::unique_ptr<QChart> build_relative_chart(const Run& run, const std::string& group_id,
                                             const ChartOptions& opts, ChartFacts* facts);

// The reference line at 1 of a relative chart (property "perflab_reference"), or nullptr.
QAbstractSeries* reference_line(const QChart& chart);

}  // namespace perflab::charts
