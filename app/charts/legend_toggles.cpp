// What a chart's legend does with its series (legend_toggles.h): a click hides or shows a series
// and what is drawn with it, its entry kept, dimmed and struck out; the hidden ones read back.
#include "charts/legend_toggles.h"

#include <QAbstractBarSeries>
#include <QBarLegendMarker>
#include <QBarSet>
#include <QBrush>
#include <QFont>
#include <QLegend>
#include <QLegendMarker>
#include <QPen>

#include "charts/axis_marker.h"
#include "charts/error_bars.h"

namespace perflab::charts {

namespace {

void dim_marker(QLegendMarker* m, bool hidden) {
  QBrush b = m->labelBrush();
  QColor c = b.color();
  c.setAlphaF(hidden ? 0.4 : 1.0);
  b.setColor(c);
  m->setLabelBrush(b);
  QFont f = m->font();
  f.setStrikeOut(hidden);
  m->setFont(f);
}

// Shows or hides what is drawn for a series (by Series::name) besides its line or bars: its
// error bars, its spectrum curve and its axis markers.
void set_companions_visible(QChart& chart, const QString& series, bool visible) {
  for (auto* e : error_bar_items(chart))
    if (e->series() == series) e->setVisible(visible);
  for (auto* m : axis_markers(chart))
    if (!series.isEmpty() && m->series() == series) m->setVisible(visible);
  for (auto* s : chart.series())
    if (s->property("perflab_curve_of").toString() == series) s->setVisible(visible);
}

}  // namespace

void remember_brush(QBarSet* set) {
  set->setProperty("perflab_brush", set->brush());
  set->setProperty("perflab_pen", set->pen());
}

void set_barset_hidden(QBarSet* set, bool hidden) {
  if (hidden) {
    set->setBrush(Qt::NoBrush);
    set->setPen(Qt::NoPen);
  } else {
    set->setBrush(set->property("perflab_brush").value<QBrush>());
    set->setPen(set->property("perflab_pen").value<QPen>());
  }
  set->setProperty("perflab_hidden", hidden);
}

// Hidden series keep a dimmed, struck-out legend entry.
void dim_hidden_markers(QChart& chart) {
  for (auto* m : chart.legend()->markers()) {
    auto* s = m->series();
    if (!listed_in_legend(s)) continue;
    if (auto* bm = qobject_cast<QBarLegendMarker*>(m)) {
      if (bm->barset()->property("perflab_hidden").toBool()) dim_marker(m, true);
    } else if (s && !s->isVisible()) {
      m->setVisible(true);
      dim_marker(m, true);
    }
  }
}

bool listed_in_legend(const QAbstractSeries* s) {
  return !s ||
         (!s->property("perflab_curve_of").isValid() && !s->property("perflab_reference").toBool());
}

void enable_legend_toggles(QChart* chart) {
  for (auto* m : chart->legend()->markers()) {
    QObject::connect(m, &QLegendMarker::clicked, m, [m, chart] {
      if (auto* bm = qobject_cast<QBarLegendMarker*>(m)) {
        QBarSet* set = bm->barset();
        bool hidden = !set->property("perflab_hidden").toBool();
        set_barset_hidden(set, hidden);
        set_companions_visible(*chart, set->property("perflab_series").toString(), !hidden);
        dim_marker(m, hidden);
        return;
      }
      QAbstractSeries* s = m->series();
      if (!s) return;
      bool hidden = s->isVisible();
      s->setVisible(!hidden);
      set_companions_visible(*chart, s->property("perflab_series").toString(), !hidden);
      m->setVisible(true);  // hiding a series hides its marker: keep it to click again
      dim_marker(m, hidden);
    });
  }
}

std::set<std::string> hidden_series(const QChart* chart) {
  std::set<std::string> out;
  for (auto* s : chart->series()) {
    if (auto* bars = qobject_cast<QAbstractBarSeries*>(s)) {
      for (auto* set : bars->barSets())
        if (set->property("perflab_hidden").toBool())
          out.insert(set->property("perflab_series").toString().toStdString());
    } else if (!s->isVisible() && s->property("perflab_series").isValid()) {
      out.insert(s->property("perflab_series").toString().toStdString());
    }
  }
  return out;
}

}  // namespace perflab::charts
