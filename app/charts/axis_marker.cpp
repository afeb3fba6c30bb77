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
#include <QScatterSeries>
#include <QXYSeries>

#include "charts/chart_items.h"

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

namespace {

// What a label box at `box` would hide: 100 per point of a shown series (a scatter point with
// its marker), 1 per sampled stretch of a line, 1000 per earlier marker's label it overlaps.
double hidden_by(QChart& chart, const QRectF& box, const QList<QRectF>& taken) {
  double score = 0;
  for (const QRectF& t : taken)
    if (box.intersects(t)) score += 1000;
  for (auto* s : chart.series()) {
    auto* xy = qobject_cast<QXYSeries*>(s);
    if (!xy || !xy->isVisible() || xy->count() == 0) continue;
    const auto* scatter = qobject_cast<QScatterSeries*>(xy);
    const double r = scatter ? scatter->markerSize() / 2 : xy->pen().widthF();
    const QRectF near = box.adjusted(-r, -r, r, r);
    QPointF last;
    for (int i = 0; i < xy->count(); ++i) {
      const QPointF at = chart.mapToPosition(xy->at(i), xy);
      if (scatter) {
        if (near.contains(at)) score += 100;
        continue;
      }
      if (i > 0)  // the segment from the last point, sampled
        for (int k = 0; k <= 8; ++k)
          if (near.contains(last + (at - last) * (k / 8.0))) score += 1;
      last = at;
    }
  }
  return score;
}

}  // namespace

QRectF AxisMarker::labelRect() const {
  // The labels of the markers before this one, never covered, each placed once in order (each
  // asking for its own predecessors again would take time exponential in the markers).
  QList<QRectF> taken;
  for (auto* m : axis_markers(chart_)) {
    if (m == this) break;
    if (!m->label().isEmpty() && m->isVisible()) taken << m->labelRectBeside(taken);
  }
  return labelRectBeside(taken);
}

QRectF AxisMarker::labelRectBeside(const QList<QRectF>& taken) const {
  const QRectF area = chart_.plotArea();
  const QFontMetricsF fm(font_);
  const double pad = fm.height() * 0.2;
  const QSizeF size(fm.horizontalAdvance(label_) + 2 * pad, fm.height() + pad);
  // Beside the line, right or left of it, from the top of the plot down: the first place that
  // hides no point, no line and no other label; else the place that hides least.
  QRectF best;
  double best_score = -1;
  const double step = size.height() + pad;
  for (double top = area.top() + pad + row_ * step; top + size.height() <= area.bottom();
       top += step)
    for (const bool right : {true, false}) {
      double left =
          right ? lineX() + line_width_ + pad : lineX() - line_width_ - pad - size.width();
      if (left < area.left() || left + size.width() > area.right()) continue;
      const QRectF box(QPointF(left, top), size);
      const double score = hidden_by(chart_, box, taken);
      if (best_score < 0 || score < best_score) best = box, best_score = score;
      if (score == 0) return box;
    }
  if (best_score >= 0) return best;
  // No room beside the line (a plot narrower than the label): at the top, inside the plot.
  const double left = std::clamp(lineX() + line_width_ + pad, area.left(),
                                 std::max(area.left(), area.right() - size.width()));
  return QRectF(QPointF(left, area.top() + pad + row_ * step), size);
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
  return chart_items<AxisMarker>(chart);
}

}  // namespace perflab::charts
