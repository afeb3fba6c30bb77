#pragma once
// What a chart's tests read off a chart and its exports: its series of a type, its error bars'
// I-beams, legend markers, log axes, pixels of a colour in a decoded image, text and pages of a
// PDF as Qt writes it.
#include <QAbstractAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QImage>
#include <QLegend>
#include <QLegendMarker>

#include <cstdlib>

#include "charts/error_bars.h"
#include "charts/run_chart.h"

namespace perflab::test {

using charts::ChartOptions;
using charts::ErrorBar;
using charts::ErrorBars;

template <class T>
QList<T*> series_of_type(QChart& chart) {
  QList<T*> out;
  for (auto* s : chart.series())
    if (auto* t = qobject_cast<T*>(s)) out << t;
  return out;
}

// The I-beams of a chart, each with the item that draws it.
struct Beam {
  ErrorBars* item;
  ErrorBar bar;
};
inline QList<Beam> beams(QChart& chart) {
  QList<Beam> out;
  for (auto* e : charts::error_bar_items(chart))
    for (const auto& b : e->bars()) out << Beam{e, b};
  return out;
}

// Legend entries (error bars have none).
inline int visible_markers(QChart& chart) {
  return static_cast<int>(chart.legend()->markers().size());
}

inline bool is_log(QAbstractAxis* a) {
  return a && a->property("perflab_log").toBool();
}

inline QAbstractAxis* axis(QChart& chart, Qt::Orientation o) {
  auto axes = chart.axes(o);
  return axes.isEmpty() ? nullptr : axes.front();
}

// Pixels close to `c` (each channel within 40).
inline int pixels_like(const QImage& img, QColor c) {
  int n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) {
      QColor p = img.pixelColor(x, y);
      if (std::abs(p.red() - c.red()) < 40 && std::abs(p.green() - c.green()) < 40 &&
          std::abs(p.blue() - c.blue()) < 40)
        ++n;
    }
  return n;
}

inline QColor first_bar_colour(const Run& run, const ChartOptions& o) {
  auto chart = charts::build_chart(run, "append", o);
  return series_of_type<QBarSeries>(*chart).front()->barSets().front()->color();
}

// Text in a PDF as Qt writes its strings (UTF-16BE), or as plain bytes.
inline bool pdf_has_text(const QByteArray& pdf, const QString& text) {
  QByteArray utf16;
  for (QChar ch : text) {
    utf16.append(char(ch.unicode() >> 8));
    utf16.append(char(ch.unicode() & 0xff));
  }
  return pdf.contains(utf16) || pdf.contains(text.toLatin1());
}

inline int pdf_pages(const QByteArray& pdf) {
  int n = 0, at = 0;
  while ((at = pdf.indexOf("/Type /Page", at)) >= 0) {
    at += 11;
    if (at < pdf.size() && pdf[at] != 's') ++n;
  }
  return n;
}

}  // namespace perflab::test
