#pragma once
// What a chart's legend does with its series: clicking an entry hides or shows the series with
// its error bars, spectrum curve and axis markers, the entry kept, dimmed and struck out; which
// series are hidden reads back from the chart. The bar sets' own half is for build_chart.
#include <set>
#include <string>

#include <QAbstractSeries>
#include <QBarSet>
#include <QChart>

namespace perflab::charts {

// Whether a series of a chart has a legend entry of its own: not a spectrum's curve (shown and
// hidden with its series) nor the relative view's reference line.
bool listed_in_legend(const QAbstractSeries* s);

// Clicking a legend marker hides/shows its series (the marker stays, dimmed). For views.
void enable_legend_toggles(QChart* chart);

// Series::name values hidden in a chart (by legend clicks or ChartOptions::hidden_series).
std::set<std::string> hidden_series(const QChart* chart);

// A bar set keeps its brush and pen, to be shown again after hiding (before any is hidden).
void remember_brush(QBarSet* set);
// Hides a bar set (no brush, no pen: its slot stays) or shows it with what it remembered.
void set_barset_hidden(QBarSet* set, bool hidden);
// Hidden series keep a dimmed, struck-out legend entry.
void dim_hidden_markers(QChart& chart);

}  // namespace perflab::charts
