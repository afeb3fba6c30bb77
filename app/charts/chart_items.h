#pragma once
// The graphics items of one kind that Perflab draws over a chart (markers, error bars, bar
// values), in the order they were added. Internal to perflab_charts.
#include <QChart>
#include <QList>

namespace perflab::charts {

template <class Item>
QList<Item*> chart_items(const QChart& chart) {
  QList<Item*> out;
  for (auto* item : chart.childItems())
    if (auto* i = dynamic_cast<Item*>(item)) out << i;
  return out;
}

}  // namespace perflab::charts
