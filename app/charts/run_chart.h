#pragma once
// A Run's group as a QChart: grouped bars for categorical groups, lines with markers for numeric x.
// Shared by the CLI (`perflab-cli chart`) and the GUI, so both draw the same chart.
//
// Every series (and bar set) carries two dynamic properties so a view can map what the user
// points at back to the Run: "perflab_group" (Group::id) and "perflab_series" (Series::name).
// Values that a log axis cannot show (≤ 0) are drawn at a floor below the smallest positive
// value and marked by an extra scatter series (property "perflab_nonpositive" = true) and a note
// in the chart title; they are never dropped.
//
// Every point with an interval carries an error bar: its median's 95% confidence interval
// (Point::median_ci) drawn as an I-beam in error_bar_color() over its bar or line marker. Each
// series' I-beams are one ErrorBars item, a child of the chart (error_bars.h; no legend entry),
// hidden and shown with its series. The value axis spans the intervals too.
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <QBarCategoryAxis>
#include <QChart>
#include <QColor>
#include <QString>

#include "charts/error_bars.h"
#include "charts/legend_toggles.h"  // the legend's toggles, for views of a chart
#include "common/run.h"

namespace perflab::charts {

struct ChartOptions {
  // Log scales; unset: the group's own (Group::log_y, Group::log_x). On a log y axis a
  // categorical group is drawn as points, never as bars.
  std::optional<bool> log_y;
  // Only for numeric-x groups; ignored for categories and for a percentile spectrum (always on
  // HdrHistogram's log 1/(1 - p) axis).
  std::optional<bool> log_x;
  bool presentation = false;  // larger fonts, thicker lines: for a room
  QChart::ChartTheme theme = QChart::ChartThemeLight;
  bool animations = false;              // off for exports and tests
  std::set<std::string> hidden_series;  // Series::name values to hide (legend toggles)
  QString title_suffix;                 // appended to the group title, e.g. " — compare"
  bool error_bars = true;               // the medians' 95% intervals
  // Labels of an overlay (overlay_runs): "<old>: X" and "<new>: X" share X's hue, the new solid,
  // the old lighter (and dashed for lines). Empty: every series its own colour.
  std::string overlay_old, overlay_new;
  // Non-empty: the relative view, every series as a ratio to this one (relative_chart.h).
  std::string relative_to;
  double font_scale = 1.0;  // every font of the chart times this (the window's Ctrl +/-)
  // Drawn for a window on screen: a line of more points than are marked drawn with what its
  // plot's pixel columns show (line_decimation.h), the same picture in a fraction of the time.
  // Off for exports: a vector file keeps every point.
  bool for_screen = false;
};

// The colour of the error bars on a chart of `theme`: dark on light backgrounds, light on dark.
QColor error_bar_color(QChart::ChartTheme theme);
QColor error_bar_color();  // on the light theme

// The group a run does not have.
class ChartError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Name of the marker series that shows values ≤ 0 on a log axis.
QString nonpositive_series_name();

// Facts about a built chart, for tests and the GUI.
struct ChartFacts {
  int clamped_points = 0;  // values ≤ 0 drawn at the floor on a log axis
  double floor = 0;        // that floor (0 when nothing was clamped)
  int error_bars = 0;      // intervals drawn
};

// Builds the chart of one group. Throws ChartError when the run has no such group.
std::unique_ptr<QChart> build_chart(const Run& run, const std::string& group_id,
                                    const ChartOptions& opts, ChartFacts* facts = nullptr);

// Group ids of a run in their order (groups without any point are skipped).
std::vector<std::string> chart_groups(const Run& run);
// The chart a run opens on: its experiment's headline chart (Group::headline) when it has
// points, else the first; empty when there is no chart.
std::string headline_group(const Run& run);

// Overlays two runs of the same experiment for comparison: every series of `a` is renamed
// "<label_a>: <name>", every series of `b` "<label_b>: <name>"; groups, findings and the rest
// come from `b`. Build charts of the result as usual.
Run overlay_runs(const Run& a, const std::string& label_a, const Run& b,
                 const std::string& label_b);

// The run's experiment and parameters in one line, for SVG descriptions and PDF titles:
// "Perflab iolist — builders=iolist,interpolate; events=100 — finished 2026-11-30 02:50 UTC".
QString run_description(const Run& run);

// The category at `index` of a chart's category axis as the run names it (the axis may show it
// wrapped over lines to fit).
QString category_text(const QBarCategoryAxis* axis, int index);

}  // namespace perflab::charts
