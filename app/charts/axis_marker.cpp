// A marked place on a chart's x axis: its line and its label (axis_marker.h).
#include "charts/axis_marker.h"

#include <algorithm>
#include <utility>

#include <QAbstractSeries>
#include <QBrush>
#include <QFontMetricsF>
#include <QGradient>
#include <QPainter>
#include <QPen>

namespace perflab::charts {

AxisMarker::AxisMarker(QChart& chart, QAbstractSeries* anchor, double x, QString label,
                       QString series, QColor color, QFont font, double line_width, int row)
    : QGraphicsObject(&chart),
      chart_(chart),
      anchor_(anchor),
      x_(x),
      label_(std::move(label)),
      series_(std::move(series)),
      color_(std::move(color)),
      font_(std::move(font)),
      line_width_(line_width),
      row_(row) {
  setAcceptedMouseButtons(Qt::NoButton);
  setZValue(110);  // over the series and their error bars: the label stays readable
  QObject::connect(&chart_, &QChart::plotAreaChanged, this, [this] { update(); });
  QObject::connect(&chart_, &QGraphicsWidget::geometryChanged, this,
                   [this] { prepareGeometryChange(); });
}

double AxisMarker::lineX() const {
  return chart_.mapToPosition({x_, 0}, anchor_).x();
}

QRectF AxisMarker::labelRect() const {
  const QRectF area = chart_.plotArea();
  const QFontMetricsF fm(font_);
  const double pad = fm.height() * 0.2;
  const QSizeF size(fm.horizontalAdvance(label_) + 2 * pad, fm.height() + pad);
  const double top = area.top() + pad + row_ * (size.height() + pad);
  // Right of the line, or left of it when it would run past the plot's right edge.
  double left = lineX() + line_width_ + pad;
  if (left + size.width() > area.right()) left = lineX() - line_width_ - pad - size.width();
  return QRectF(QPointF(std::max(left, area.left()), top), size);
}

QRectF AxisMarker::boundingRect() const {
  return QRectF(QPointF(0, 0), chart_.size());
}

void AxisMarker::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  const QRectF area = chart_.plotArea();
  const double x = lineX();
  if (area.isEmpty() || x < area.left() - 1 || x > area.right() + 1) return;
  painter->save();
  QPen pen(color_);
  pen.setWidthF(line_width_);
  pen.setStyle(Qt::DashLine);
  painter->setPen(pen);
  painter->drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
  if (!label_.isEmpty()) {
    const QRectF box = labelRect();
    // The chart's background (a theme's may be a gradient: its first colour).
    const QBrush back = chart_.backgroundBrush();
    QColor fill = back.style() == Qt::SolidPattern ? back.color() : QColor(Qt::white);
    if (back.gradient() && !back.gradient()->stops().isEmpty())
      fill = back.gradient()->stops().first().second;

    painter->setPen(QPen(color_, 1));
    painter->setBrush(fill);
    painter->drawRect(box);
    // A light colour on a light box is darkened to stay readable (and a dark one on a dark box
    // lightened).
    QColor text = color_;
    if (fill.lightness() > 128 && text.lightness() > 140) text = text.darker(170);
    if (fill.lightness() <= 128 && text.lightness() < 110) text = text.lighter(170);
    painter->setPen(text);
    painter->setFont(font_);
    painter->drawText(box, Qt::AlignCenter, label_);
  }
  painter->restore();
}

QList<AxisMarker*> axis_markers(const QChart& chart) {
  QList<AxisMarker*> out;
  for (auto* item : chart.childItems())
    if (auto* m = dynamic_cast<AxisMarker*>(item)) out << m;
  return out;
}

}  // namespace perflab::charts
