#pragma once
// A marked place on a chart's x axis (Group::markers, e.g. the knee of a hockey stick): a dashed
// vertical line across the plot in its series' colour, its label beside it on a box of the
// chart's background where it hides no point, line or other label (the highest such place),
// readable from the back of a room. Internal to perflab_charts.
#include <QChart>
#include <QColor>
#include <QFont>
#include <QGraphicsObject>
#include <QList>
#include <QString>

namespace perflab::charts {

class AxisMarker : public QGraphicsObject {
 public:
  // `anchor`: a data series on the axes the marker is drawn on; `x` in that axis's drawn
  // coordinates; `series` the Series::name it belongs to (hidden with it; empty: none); `row`
  // the label's line from the top, so that the labels of several markers do not overlap.
  AxisMarker(QChart& chart, QAbstractSeries* anchor, double x, QString label, QString series,
             QColor color, QFont font, double line_width, int row);

  const QString& series() const { return series_; }
  const QString& label() const { return label_; }
  QColor color() const { return color_; }
  // Where the line is drawn, in the chart's coordinates, for the chart's current layout.
  double lineX() const;
  // The label's box in the chart's coordinates, for the chart's current layout.
  QRectF labelRect() const;

  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  // The label's box given the boxes of the labels before it.
  QRectF labelRectBeside(const QList<QRectF>& taken) const;

  QChart& chart_;
  QAbstractSeries* anchor_;
  double x_;
  QString label_, series_;
  QColor color_;
  QFont font_;
  double line_width_;
  int row_;
};

// The markers of a chart, in the order of Group::markers.
QList<AxisMarker*> axis_markers(const QChart& chart);

}  // namespace perflab::charts
