#include "charts/error_bars.h"

#include <cmath>
#include <utility>

#include <QAbstractAxis>
#include <QPaintEngine>
#include <QPainter>
#include <QValueAxis>

#include "charts/chart_items.h"

namespace perflab::charts {

ErrorBars::ErrorBars(QChart& chart, QAbstractSeries* anchor, QString series, QPen pen,
                     std::vector<ErrorBar> bars)
    : QGraphicsObject(&chart),
      chart_(chart),
      anchor_(anchor),
      series_(std::move(series)),
      pen_(std::move(pen)),
      bars_(std::move(bars)) {
  setAcceptedMouseButtons(Qt::NoButton);  // hover and clicks reach the series below
  setAcceptHoverEvents(false);
  setZValue(100);  // over the series it belongs to
  setFlag(QGraphicsItem::ItemClipsToShape, false);
  auto stale = [this] {
    built_for_ = QRectF();
    update();
  };
  QObject::connect(&chart_, &QChart::plotAreaChanged, this, stale);
  QObject::connect(&chart_, &QGraphicsWidget::geometryChanged, this, [this] {
    prepareGeometryChange();
    built_for_ = QRectF();
  });
  for (auto* axis : anchor_->attachedAxes())
    if (auto* v = qobject_cast<QValueAxis*>(axis))
      QObject::connect(v, &QValueAxis::rangeChanged, this, stale);
}

QRectF ErrorBars::boundingRect() const {
  return QRectF(QPointF(0, 0), chart_.size());
}

void ErrorBars::rebuild() {
  lines_.clear();
  lines_.reserve(bars_.size() * 3);
  auto at = [this](double x, double y) { return chart_.mapToPosition({x, y}, anchor_); };
  for (const auto& b : bars_) {
    lines_.emplace_back(at(b.x_lo, b.lo), at(b.x_hi, b.lo));
    lines_.emplace_back(at(b.x, b.lo), at(b.x, b.hi));
    lines_.emplace_back(at(b.x_lo, b.hi), at(b.x_hi, b.hi));
  }
  built_for_ = chart_.plotArea();
  pixels_ = QImage();
}

void ErrorBars::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  const QRectF area = chart_.plotArea();
  if (area.isEmpty() || bars_.empty()) return;
  if (built_for_ != area) rebuild();
  painter->save();
  const QRectF clip = area.adjusted(-pen_.widthF(), -pen_.widthF(), pen_.widthF(), pen_.widthF());
  painter->setClipRect(clip);
  // Separate lines, not one path: a path of a large run's bars (three lines per point) is
  // stroked as a whole, many times slower. Unscaled, a cosmetic pen of the same width draws the
  // same pixels through the rasterizer's fast line stroker.
  QPen pen = pen_;
  if (!painter->transform().isScaling()) pen.setCosmetic(true);
  // Denser than one bar per pixel column, smoothing their edges shows nothing and costs most of
  // the chart's paint (100,000 bars: ~0.15 s on one core).
  const bool dense = double(bars_.size()) > area.width();
  if (dense) painter->setRenderHint(QPainter::Antialiasing, false);
  painter->setPen(pen);
  painter->setBrush(Qt::NoBrush);
  // Opaque lines without smoothing, moved by whole pixels on a raster device, draw the same
  // pixels each time: the second paint on copies the first's.
  const QTransform& t = painter->transform();
  const bool same_pixels = dense && pen.color().alpha() == 255 && painter->opacity() == 1.0 &&
                           painter->paintEngine()->type() == QPaintEngine::Raster &&
                           painter->device()->devicePixelRatio() == 1.0 &&
                           t.type() <= QTransform::TxTranslate && t.dx() == std::round(t.dx()) &&
                           t.dy() == std::round(t.dy());
  if (!same_pixels) {
    painter->drawLines(lines_.data(), static_cast<int>(lines_.size()));
    painter->restore();
    return;
  }
  if (pixels_.isNull()) {
    const QRect bounds = clip.toAlignedRect();  // all of it, whatever part is being repainted
    pixels_at_ = bounds.topLeft();
    pixels_ = QImage(bounds.size(), QImage::Format_ARGB32_Premultiplied);
    pixels_.fill(Qt::transparent);
    QPainter p(&pixels_);
    p.translate(-pixels_at_);
    p.setClipRect(clip);
    p.setPen(pen);
    p.drawLines(lines_.data(), static_cast<int>(lines_.size()));
  }
  painter->drawImage(pixels_at_, pixels_);
  painter->restore();
}

QList<ErrorBars*> error_bar_items(const QChart& chart) {
  return chart_items<ErrorBars>(chart);
}

}  // namespace perflab::charts
