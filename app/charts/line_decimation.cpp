// Long lines drawn with what their plot's pixel columns can show (line_decimation.h).
#include "charts/line_decimation.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include <QChart>
#include <QValueAxis>
#include <QXYSeries>

namespace perflab::charts {

std::vector<qsizetype> column_extremes(const QList<QPointF>& points, double x0, double width) {
  std::vector<qsizetype> keep;
  const qsizetype n = points.size();
  auto column = [&](qsizetype i) { return std::floor((points[i].x() - x0) / width); };
  for (qsizetype i = 0; i < n;) {
    const double c = column(i);
    qsizetype lo = i, hi = i, last = i;
    const qsizetype first = i;
    for (++i; i < n && column(i) == c; ++i) {
      last = i;
      if (points[i].y() < points[lo].y()) lo = i;
      if (points[i].y() > points[hi].y()) hi = i;
    }
    for (qsizetype k : {first, std::min(lo, hi), std::max(lo, hi), last})
      if (keep.empty() || keep.back() != k) keep.push_back(k);
  }
  return keep;
}

void draw_decimated(QChart& chart, QXYSeries* line, const QValueAxis* x, QList<QPointF> points,
                    QStringList labels) {
  struct Whole {
    QList<QPointF> points;
    QStringList labels;
    std::vector<qsizetype> drawn;
  };
  auto whole = std::make_shared<Whole>(Whole{std::move(points), std::move(labels), {}});
  auto draw = [line, x, whole](double left, double pixels) {
    const double span = x->max() - x->min();
    if (!(pixels > 0) || !(span > 0)) return;
    // Columns on the device's whole pixels, halved: a picture at twice the pixels is the same.
    const double per_pixel = span / pixels;
    const double x0 = x->min() - (left - std::floor(left)) * per_pixel;
    auto keep = column_extremes(whole->points, x0, per_pixel / 2);
    if (keep == whole->drawn) return;
    QList<QPointF> at;
    QStringList labels;
    at.reserve(static_cast<qsizetype>(keep.size()));
    labels.reserve(static_cast<qsizetype>(keep.size()));
    for (qsizetype i : keep) {
      at << whole->points[i];
      if (i < whole->labels.size()) labels << whole->labels[i];
    }
    whole->drawn = std::move(keep);
    line->replace(at);
    line->setProperty("perflab_labels", labels);
  };
  // Nothing before the chart is laid out: its first layout draws the line for its plot (drawn
  // for a guessed plot before, the line was stroked twice, the first time with twice the points).
  auto redraw = [&chart, draw] {
    const QRectF area = chart.plotArea();
    draw(area.left(), area.width());
  };
  QObject::connect(&chart, &QChart::plotAreaChanged, line, redraw);
  QObject::connect(x, &QValueAxis::rangeChanged, line, redraw);
}

}  // namespace perflab::charts
