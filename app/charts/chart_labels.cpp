// Category labels that fit the room of their category (chart_labels.h).
#include "charts/chart_labels.h"

#include <algorithm>
#include <vector>

#include <QFont>
#include <QFontMetricsF>
#include <QRegularExpression>
#include <QTextDocumentFragment>

#include "charts/chart_axes.h"

namespace perflab::charts {

namespace {

// A label over lines of at most `width` (broken at spaces, greedily), or empty when a word is
// wider or it needs more than `max_lines`.
QStringList wrap_to(const QString& label, const QFontMetricsF& fm, double width, int max_lines) {
  const QStringList words = label.split(QLatin1Char(' '), Qt::SkipEmptyParts);
  QStringList lines;
  for (const auto& w : words) {
    if (fm.horizontalAdvance(w) > width) return {};
    if (!lines.isEmpty() && fm.horizontalAdvance(lines.back() + QLatin1Char(' ') + w) <= width)
      lines.back() += QLatin1Char(' ') + w;
    else
      lines << w;
  }
  if (lines.size() > max_lines) return {};
  return lines;
}

// A label over at most `max_lines` lines as even as greedy breaking allows: the narrowest width
// that still takes no more lines. Empty when even the widest word does not fit `room`.
QStringList wrap_evenly(const QString& label, const QFontMetricsF& fm, double room, int max_lines) {
  QStringList best = wrap_to(label, fm, room, max_lines);
  if (best.isEmpty()) return best;
  // Narrow the width in steps while the line count holds: "10 concurrent / writers" becomes
  // the same, "single writer, RTT / 1 ms" becomes "single writer, / RTT 1 ms".
  for (double w = room - 4; w > 0; w -= 4) {
    QStringList narrower = wrap_to(label, fm, w, static_cast<int>(best.size()));
    if (narrower.isEmpty()) break;
    best = narrower;
  }
  return best;
}

// One way to draw an axis's labels: the text of each, its font size, its angle.
struct LabelFit {
  QStringList texts;
  double points = 0;
  int angle = 0;
};

// The first way that fits, in order of preference, or the last resort.
LabelFit choose_fit(const QStringList& labels, const QFont& font, double along, double across,
                    bool bottom, double largest, double least) {
  LabelFit fit;
  for (double pt = largest; pt >= least - 1e-9; pt -= 0.5) {
    QFont f = font;
    f.setPointSizeF(pt);
    const QFontMetricsF fm(f);
    for (int lines = 1; lines <= 3; ++lines) {
      LabelFit wrapped{{}, pt, 0};
      double widest = 0;
      int most_lines = 1;
      for (const auto& label : labels) {
        const QStringList l =
            wrap_evenly(label, fm, bottom ? along : across, lines == 1 ? 1 : lines);
        if (l.isEmpty()) {
          wrapped.texts.clear();
          break;
        }
        for (const auto& line : l) widest = std::max(widest, fm.horizontalAdvance(line));
        most_lines = std::max(most_lines, static_cast<int>(l.size()));
        wrapped.texts << l.join(QStringLiteral("<br>"));
      }
      if (wrapped.texts.size() != labels.size()) continue;
      const double tall = most_lines * fm.lineSpacing();
      if (bottom ? tall <= across : tall <= along && widest <= across) return wrapped;
    }
    if (bottom) {  // upright: one line each, as wide as a line is tall
      double widest = 0;
      for (const auto& label : labels) widest = std::max(widest, fm.horizontalAdvance(label));
      if (fm.lineSpacing() <= along && widest <= across) return {labels, pt, -90};
    }
    fit = {labels, pt, bottom ? -90 : 0};
  }
  return fit;
}

}  // namespace

void fit_axis_title(QChart& chart, QAbstractAxis* axis) {
  static const QRegularExpression joint(QStringLiteral(", |<br>"));
  const QStringList parts = axis->titleText().split(joint, Qt::SkipEmptyParts);
  auto fit = [&chart, axis, parts] {
    const QRectF plot = chart.plotArea();
    if (plot.isEmpty() || parts.isEmpty()) return;
    const double along = (axis->orientation() == Qt::Vertical ? plot.height() : plot.width()) - 8;
    const QFontMetricsF fm(axis->titleFont());
    auto width = [&fm](const QString& html) {
      return fm.horizontalAdvance(QTextDocumentFragment::fromHtml(html).toPlainText());
    };
    // Parts joined on a line while they fit, each line ending in its comma; a part longer than
    // the axis over lines of its own, broken between words.
    QStringList lines;
    for (qsizetype i = 0; i < parts.size(); ++i) {
      const QString comma = i + 1 < parts.size() ? QStringLiteral(",") : QString();
      const QString part = parts[i] + comma;
      if (!lines.isEmpty() && width(lines.back() + QStringLiteral(" ") + part) <= along) {
        lines.back() += QStringLiteral(" ") + part;
        continue;
      }
      if (width(part) <= along) {
        lines << part;
        continue;
      }
      QString line;
      for (const QString& word : part.split(QChar(' '), Qt::SkipEmptyParts)) {
        if (!line.isEmpty() && width(line + QStringLiteral(" ") + word) > along) {
          lines << line;
          line.clear();
        }
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
      }
      lines << line;
    }
    const QString title = lines.join(QStringLiteral("<br>"));
    if (axis->titleText() != title) axis->setTitleText(title);
  };
  QObject::connect(&chart, &QChart::plotAreaChanged, axis, fit);
}

void fit_category_labels(QChart& chart, QBarCategoryAxis* axis, const ChartOptions& opts) {
  const QStringList labels = axis->categories();
  axis->setProperty("perflab_categories", labels);
  const double largest = axis_label_points(opts);
  // A room reads 20 pt; a window's chart may go down to 7 pt before a label is dropped. Many
  // stacks on their side may need the smaller size in a presentation too.
  const double least = opts.presentation ? largest * 0.6 : 7;
  auto fit = [&chart, axis, labels, largest, least] {
    const QRectF plot = chart.plotArea();
    if (plot.isEmpty() || labels.isEmpty()) return;
    const bool bottom = axis->orientation() == Qt::Horizontal;
    const double n = static_cast<double>(labels.size());
    const double gap = 6;  // between two labels
    // Along the axis: a category's share of the plot; across it: a third of the chart.
    const double along = (bottom ? plot.width() : plot.height()) / n - gap;
    const double across = (bottom ? chart.size().height() : chart.size().width()) / 3;
    const LabelFit f =
        choose_fit(labels, axis->labelsFont(), along, across, bottom, largest, least);
    QFont font = axis->labelsFont();
    const bool same = axis->categories() == f.texts && axis->labelsAngle() == f.angle &&
                      qFuzzyCompare(font.pointSizeF(), f.points);
    if (same) return;
    font.setPointSizeF(f.points);
    axis->setLabelsFont(font);
    axis->setLabelsAngle(f.angle);
    // The series keep their categories by index; category_text() gives the names as given.
    if (axis->categories() != f.texts) axis->setCategories(f.texts);
  };
  QObject::connect(&chart, &QChart::plotAreaChanged, axis, fit);
}

}  // namespace perflab::charts
