// The values of bars too short to read, written above them (bar_values.h).
#include "charts/bar_values.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <QFontMetricsF>
#include <QPainter>

#include "charts/chart_items.h"

namespace perflab::charts {

BarValues::BarValues(QChart& chart, QBarSeries* bars, QFont font, std::vector<Value> values)
    : QGraphicsObject(&chart),
      chart_(chart),
      bars_(bars),
      font_(std::move(font)),
      values_(std::move(values)) {
  setAcceptedMouseButtons(Qt::NoButton);
  setZValue(105);  // over the bars and their error bars
  QObject::connect(&chart_, &QChart::plotAreaChanged, this, [this] { update(); });
  QObject::connect(&chart_, &QGraphicsWidget::geometryChanged, this,
                   [this] { prepareGeometryChange(); });
}

QRectF BarValues::textRect(const Value& v) const {
  const QFontMetricsF fm(font_);
  const QPointF top = chart_.mapToPosition({v.x, v.value}, bars_);
  const QSizeF size(fm.horizontalAdvance(v.text) + 4, fm.height());
  // Above the bar's top, clear of its error bar's cap at small sizes: a line's height up.
  return QRectF(QPointF(top.x() - size.width() / 2, top.y() - size.height() - 2), size);
}

std::vector<std::pair<const BarValues::Value*, QRectF>> BarValues::placed() const {
  // In the order of the bars; one that would overlap a text before it goes a line higher
  // (neighbouring short bars of one category are narrower than their values).
  std::vector<std::pair<const Value*, QRectF>> out;
  std::map<long, int> rows;  // by category: the most lines a text of it went up, plus one
  for (const auto& v : values_) {
    if (v.set->property("perflab_hidden").toBool()) continue;
    const QRectF first = textRect(v);
    QRectF r = first;
    for (bool moved = true; moved;) {
      moved = false;
      for (const auto& o : out)
        if (r.intersects(o.second)) {
          r.moveBottom(o.second.top() - 1);
          moved = true;
        }
    }
    int& most = rows[std::lround(v.x)];
    most =
        std::max(most, 1 + static_cast<int>(std::lround((first.top() - r.top()) / first.height())));
    out.emplace_back(&v, r);
  }
  std::erase_if(out, [&](const auto& o) { return rows[std::lround(o.first->x)] > kMaxRows; });
  return out;
}

QList<QRectF> BarValues::textRects() const {
  QList<QRectF> out;
  for (const auto& [v, r] : placed()) out << r;
  return out;
}

QRectF BarValues::boundingRect() const {
  return QRectF(QPointF(0, 0), chart_.size());
}

void BarValues::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  if (chart_.plotArea().isEmpty() || !bars_->isVisible()) return;
  painter->save();
  painter->setFont(font_);
  for (const auto& [v, r] : placed()) {
    // The set's colour, darkened on a light chart so that a pale bar's value reads.
    QColor c = v->set->color();
    if (chart_.backgroundBrush().color().lightness() > 128 && c.lightness() > 140)
      c = c.darker(170);
    painter->setPen(c);
    painter->drawText(r, Qt::AlignCenter, v->text);
  }
  painter->restore();
}

QList<BarValues*> bar_value_items(const QChart& chart) {
  return chart_items<BarValues>(chart);
}

}  // namespace perflab::charts
