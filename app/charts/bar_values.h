#pragma once
// The values of bars too short to read on a linear axis, written above them (local memory's
// 0.034 µs beside PostgreSQL's 1,500 µs: a bar of no height). One item per bar series, in the
// chart's coordinates; a hidden bar set's values are not drawn. Internal to perflab_charts.
#include <utility>
#include <vector>

#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QFont>
#include <QGraphicsObject>
#include <QList>
#include <QRectF>
#include <QString>

namespace perflab::charts {

// A bar shorter than this share of its value axis gets its value written above it.
inline constexpr double kTinyBarShare = 0.02;

class BarValues : public QGraphicsObject {
 public:
  struct Value {
    QBarSet* set;
    double x;      // the bar's centre, in category units (slot_x)
    double value;  // its top, on the value axis
    QString text;  // "0.034"
  };
  BarValues(QChart& chart, QBarSeries* bars, QFont font, std::vector<Value> values);

  const std::vector<Value>& values() const { return values_; }
  // Where each shown value's text is drawn, in the chart's coordinates (for the current
  // layout): above its bar, a line higher for each text before it that it would overlap. A
  // category whose values would stack more than kMaxRows high shows none: thirteen short bars
  // of one category wrote a column of numbers over the chart (its log y shows them instead).
  QList<QRectF> textRects() const;
  static constexpr int kMaxRows = 2;

  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QRectF textRect(const Value& v) const;
  std::vector<std::pair<const Value*, QRectF>> placed() const;  // the values shown, and where

  QChart& chart_;
  QBarSeries* bars_;
  QFont font_;
  std::vector<Value> values_;
};

// The bar-value items of a chart.
QList<BarValues*> bar_value_items(const QChart& chart);

}  // namespace perflab::charts
