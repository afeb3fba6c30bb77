#include "models/value_text.h"

#include <cctype>
#include <cmath>

#include "common/figure_format.h"
#include "common/report.h"

namespace perflab::gui {

namespace {
bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}
}  // namespace

QString format_value(double v) {
  if (!std::isfinite(v)) return QString::number(v);
  double a = std::abs(v);
  if (a == 0) return "0";
  if (a >= 1e9 || a < 1e-3) return QString::number(v, 'g', 4);
  if (a >= 100) return QString::number(v, 'f', 1);
  if (a >= 1) return QString::number(v, 'f', 3);
  return QString::number(v, 'f', 4);
}

QString format_value(double v, std::string_view unit) {
  if (is_count_unit(unit)) return QString::fromStdString(format_figure(v, unit));
  return format_value(v);
}

QString point_tooltip(const Group& group, const std::string& series, const Point& point,
                      const MachineNoise* machine) {
  const Stats& s = point.stats;
  QString u = QString::fromStdString(unit_text(group.unit));
  QString t = QString(
                  "<b>%1</b> — %2<br>median: <b>%3 %4</b><br>p95: %5 %4<br>min: %6, max: %7 %4"
                  "<br>mean: %8 ± %9 (stddev)<br>samples: %10")
                  .arg(QString::fromStdString(series).toHtmlEscaped(),
                       QString::fromStdString(point.label).toHtmlEscaped(),
                       format_value(s.median, group.unit), u.toHtmlEscaped(),
                       format_value(s.p95, group.unit), format_value(s.min, group.unit),
                       format_value(s.max, group.unit), format_value(s.mean, group.unit),
                       format_value(s.stddev))
                  .arg(s.n);
  t +=
      QString("<br>median with its interval: %1")
          .arg(
              QString::fromStdString(format_estimate(point.median_ci, group.unit)).toHtmlEscaped());
  if (s.n >= 2) {
    t += QString("<br>CV: %1").arg(QString::fromStdString(format_percent(point.cv)));
    if (point.outliers.total() > 0)
      t += QString("<br>outliers (Tukey): %1 low, %2 high (%3 severe; all samples kept)")
               .arg(point.outliers.low())
               .arg(point.outliers.high())
               .arg(point.outliers.low_severe + point.outliers.high_severe);
  }
  if (point.precision)
    t += "<br>" + QString::fromStdString(precision_text(*point.precision)).toHtmlEscaped();
  for (const auto& [k, v] : point.extra)
    t += QString("<br>%1: %2").arg(QString::fromStdString(k).toHtmlEscaped(), format_value(v, k));
  if (auto w = point_noise_warning(point, machine))
    t += QString("<br><b>%1</b>").arg(QString::fromStdString(*w).toHtmlEscaped());
  return t;
}

QString format_duration(qint64 ms) {
  qint64 s = ms / 1000;
  if (s < 60) return QString("%1.%2 s").arg(s).arg((ms % 1000) / 100);
  if (s < 3600) return QString("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QChar('0'));
  return QString("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QChar('0'));
}

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      // Compare the runs of digits as numbers: skip leading zeros, then by length, then digits.
      std::size_t i0 = i, j0 = j;
      while (i0 < a.size() && a[i0] == '0') ++i0;
      while (j0 < b.size() && b[j0] == '0') ++j0;
      std::size_t i1 = i0, j1 = j0;
      while (i1 < a.size() && is_digit(a[i1])) ++i1;
      while (j1 < b.size() && is_digit(b[j1])) ++j1;
      if (i1 - i0 != j1 - j0) return i1 - i0 < j1 - j0;
      if (int c = a.substr(i0, i1 - i0).compare(b.substr(j0, j1 - j0)); c != 0) return c < 0;
      i = i1, j = j1;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i, ++j;
  }
  return a.size() - i < b.size() - j;
}

}  // namespace perflab::gui
