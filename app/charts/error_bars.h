#pragma once
// The error bars of one data series: every interval of its points as an I-beam, drawn by one
// graphics item over the chart's plot area. One item per series (not one series per point):
// a chart of 100,000 points adds one item, painted with one path.
#include <vector>

#include <QAbstractSeries>
#include <QChart>
#include <QGraphicsObject>
#include <QImage>
#include <QLineF>
#include <QList>
#include <QPen>
#include <QString>

namespace perflab::charts {

// One I-beam in the axes' drawn coordinates (log10 of the value on a log axis): a vertical
// stroke from lo to hi at x, with caps from x_lo to x_hi at both ends.
struct ErrorBar {
  double x_lo, x, x_hi, lo, hi;
};

class ErrorBars : public QGraphicsObject {
 public:
  // `anchor` is a data series attached to the axes the bars are drawn on (it maps values to
  // positions); `series` the Series::name they belong to. A child of `chart`.
  ErrorBars(QChart& chart, QAbstractSeries* anchor, QString series, QPen pen,
            std::vector<ErrorBar> bars);

  const QString& series() const { return series_; }
  const std::vector<ErrorBar>& bars() const { return bars_; }
  QPen pen() const { return pen_; }

  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  void rebuild();  // the lines, for the chart's current plot area and axis ranges

  QChart& chart_;
  QAbstractSeries* anchor_;
  QString series_;
  QPen pen_;
  std::vector<ErrorBar> bars_;
  std::vector<QLineF> lines_;  // the bars' lines, for the plot area they were built for
  QRectF built_for_;           // plot area the path was built for; empty: rebuild
  // The lines as painted without antialiasing (more bars than pixel columns), at `pixels_at_`
  // in the item: a repaint (a window's grab, a tooltip over the plot) copies them.
  QImage pixels_;
  QPoint pixels_at_;
};

// The error-bar items of a chart, one per series with intervals.
QList<ErrorBars*> error_bar_items(const QChart& chart);

}  // namespace perflab::charts
