#pragma once
// A long line drawn with the points its plot's pixel columns can show: in each column the first,
// the lowest, the highest and the last of its points, so the line drawn covers the pixels the
// whole line would (a spike stays: it is its column's highest point). The Run keeps every point;
// only what the series hands QtCharts to stroke is smaller.
#include <vector>

#include <QList>
#include <QPointF>
#include <QStringList>

class QChart;
class QValueAxis;
class QXYSeries;

namespace perflab::charts {

// Indices of `points` (in x order) to draw: for each column `width` wide in x, columns starting
// at `x0`, its first, lowest, highest and last point, in their order and each once.
std::vector<qsizetype> column_extremes(const QList<QPointF>& points, double x0, double width);

// Gives `line` the column_extremes of `points` (x order, drawn coordinates on the linear axis
// `x`) at half-pixel columns of the chart's plot area, again whenever the plot area or the axis
// range changes; "perflab_labels" follows with the labels of the points drawn. The line is empty
// until the chart is laid out (a chart's first layout changes its plot area).
void draw_decimated(QChart& chart, QXYSeries* line, const QValueAxis* x, QList<QPointF> points,
                    QStringList labels);

}  // namespace perflab::charts
