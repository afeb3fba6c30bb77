#include "charts/chart_export.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <QBuffer>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QGuiApplication>
#include <QIODevice>
#include <QLegend>
#include <QLegendMarker>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QScreen>
#include <QSvgGenerator>

#include "common/run_io.h"

namespace perflab::charts {

namespace {

// Charts are laid out with the screen's font metrics; every paint device gets the same
// resolution so text keeps its size in PNG, SVG and PDF.
int layout_dpi() {
  if (auto* screen = QGuiApplication::primaryScreen())
    return static_cast<int>(std::lround(screen->logicalDotsPerInch()));
  return 96;
}

std::vector<std::string> groups_of(const Run& run, const ExportSpec& spec) {
  std::vector<std::string> groups = spec.groups.empty() ? chart_groups(run) : spec.groups;
  if (groups.empty()) throw ChartError("the run has no measured points to chart");
  for (const auto& g : groups)
    if (!run.group(g)) throw ChartError("the run has no group '" + g + "'");
  if (spec.size.width() < 100 || spec.size.height() < 100 || spec.size.width() > 20000 ||
      spec.size.height() > 20000)
    throw ChartError("chart size must be between 100 and 20000 pixels each way");
  return groups;
}

int grid_columns(std::size_t n) {
  return n > 1 ? 2 : 1;
}

QSize grid_size(std::size_t n, QSize cell) {
  int cols = grid_columns(n);
  int rows = static_cast<int>((n + cols - 1) / cols);
  return {cell.width() * cols, cell.height() * rows};
}

QRectF grid_cell(std::size_t i, std::size_t n, QSize cell) {
  int cols = grid_columns(n);
  int r = static_cast<int>(i) / cols, c = static_cast<int>(i) % cols;
  return QRectF(c * cell.width(), r * cell.height(), cell.width(), cell.height());
}

void paint_grid(QPainter& p, const Run& run, const std::vector<std::string>& groups,
                const ExportSpec& spec) {
  p.setRenderHint(QPainter::Antialiasing);
  p.setRenderHint(QPainter::TextAntialiasing);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    auto chart = build_chart(run, groups[i], spec.options);
    QRectF cell = grid_cell(i, groups.size(), spec.size);
    p.fillRect(cell, chart->backgroundBrush());
    paint_chart(p, *chart, cell);
  }
}

}  // namespace

ExportFormat format_from_path(const QString& path) {
  QString lower = path.toLower();
  if (lower.endsWith(".png")) return ExportFormat::Png;
  if (lower.endsWith(".svg")) return ExportFormat::Svg;
  if (lower.endsWith(".pdf")) return ExportFormat::Pdf;
  throw ChartError("cannot tell the format of '" + path.toStdString() +
                   "': use a .png, .svg or .pdf file name");
}

namespace {

// One entry of a painted legend: the series' colour and name (greyed and struck out when the
// series is hidden).
struct LegendEntry {
  QColor colour;
  QString label;
  bool hidden;
};

std::vector<LegendEntry> legend_entries(QChart& chart) {
  std::vector<LegendEntry> out;
  for (auto* m : chart.legend()->markers()) {
    if (m->label().isEmpty()) continue;
    const QColor c = m->brush().style() != Qt::NoBrush ? m->brush().color() : m->pen().color();
    out.push_back({c, m->label(), m->font().strikeOut()});
  }
  return out;
}

// Lays the entries out in rows across `width`, wrapping as a paragraph does (Qt's own legend
// cuts long names to "coalesced+n…" instead). Returns each entry's top-left, and the height.
double layout_legend(const std::vector<LegendEntry>& entries, const QFontMetricsF& fm, double width,
                     std::vector<QPointF>& at) {
  const double swatch = fm.height() * 0.8, gap = fm.height() * 0.4, space = fm.height() * 1.2;
  std::vector<std::vector<std::pair<std::size_t, double>>> rows(1);
  double x = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const double w = swatch + gap + fm.horizontalAdvance(entries[i].label);
    if (x > 0 && x + w > width) {
      rows.emplace_back();
      x = 0;
    }
    rows.back().push_back({i, w});
    x += w + space;
  }
  at.assign(entries.size(), {});
  double y = 0;
  for (const auto& row : rows) {
    double row_w = 0;
    for (const auto& [i, w] : row) row_w += w + space;
    double rx = std::max(0.0, (width - (row_w - space)) / 2);  // centred
    for (const auto& [i, w] : row) {
      at[i] = {rx, y};
      rx += w + space;
    }
    y += fm.height() * 1.3;
  }
  return entries.empty() ? 0 : y + fm.height() * 0.4;
}

void paint_legend(QPainter& p, const std::vector<LegendEntry>& entries, const QFont& font,
                  const std::vector<QPointF>& at, const QPointF& origin, const QColor& text) {
  p.save();
  p.setFont(font);
  const QFontMetricsF fm(font);
  const double swatch = fm.height() * 0.8, gap = fm.height() * 0.4;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const QPointF o = origin + at[i];
    QColor c = entries[i].colour;
    if (entries[i].hidden) c.setAlphaF(0.3);
    p.fillRect(QRectF(o.x(), o.y() + (fm.height() - swatch) / 2, swatch, swatch), c);
    QFont f = font;
    f.setStrikeOut(entries[i].hidden);
    p.setFont(f);
    p.setPen(entries[i].hidden ? QColor(Qt::gray) : text);
    p.drawText(QPointF(o.x() + swatch + gap, o.y() + fm.ascent()), entries[i].label);
  }
  p.restore();
}

// Every font-family of an SVG document ending in a generic family: the screen's "Sans Serif"
// (a fontconfig alias) is no family a browser knows, and it would fall back to serif.
QByteArray with_generic_families(const QByteArray& svg) {
  static const QRegularExpression family(QStringLiteral("font-family=\"([^\"]*)\""));
  static const QRegularExpression generic(
      QStringLiteral("(^|,)\\s*'?(sans-serif|serif|monospace)'?\\s*$"));
  QString text = QString::fromUtf8(svg);
  QString out;
  qsizetype from = 0;
  for (auto it = family.globalMatch(text); it.hasNext();) {
    const auto m = it.next();
    QString families = m.captured(1).trimmed();
    if (!generic.match(families).hasMatch())
      families +=
          families.isEmpty() ? QStringLiteral("sans-serif") : QStringLiteral(", sans-serif");
    out += QStringView(text).mid(from, m.capturedStart(1) - from);
    out += families;
    from = m.capturedEnd(1);
  }
  out += QStringView(text).mid(from);
  return out.toUtf8();
}

}  // namespace

void paint_chart(QPainter& painter, QChart& chart, const QRectF& target) {
  // The legend is painted below the chart, wrapped over as many rows as it needs.
  const auto entries = legend_entries(chart);
  const QFont font = chart.legend()->font();
  const QColor text = chart.legend()->labelColor();
  chart.legend()->hide();
  std::vector<QPointF> at;
  const double margin = QFontMetricsF(font).height();
  const double legend_h =
      std::min(target.height() / 2,
               layout_legend(entries, QFontMetricsF(font), target.width() - 2 * margin, at));
  QGraphicsScene scene;
  scene.addItem(&chart);
  const QSizeF size(target.width(), target.height() - legend_h);
  QRectF local(QPointF(0, 0), size);
  chart.setGeometry(local);
  // Twice: the first layout may change what the second lays out (slanted category labels).
  for (int i = 0; i < 2; ++i)
    if (chart.layout()) chart.layout()->activate();
  scene.setSceneRect(local);
  scene.render(&painter, QRectF(target.topLeft(), size), local);
  scene.removeItem(&chart);
  paint_legend(painter, entries, font, at,
               QPointF(target.left() + margin, target.top() + size.height()), text);
}

QString export_title(const Run& run, const ExportSpec& spec) {
  QString t = QString::fromStdString(run.title.empty() ? run.experiment : run.title);
  if (spec.groups.size() == 1)
    if (const Group* g = run.group(spec.groups.front()))
      t += QStringLiteral(" — ") + QString::fromStdString(g->title);
  return QStringLiteral("Perflab: ") + t;
}

QImage render_image(const Run& run, const ExportSpec& spec) {
  auto groups = groups_of(run, spec);
  QImage img(grid_size(groups.size(), spec.size), QImage::Format_ARGB32_Premultiplied);
  int dpm = static_cast<int>(std::lround(layout_dpi() / 0.0254));
  img.setDotsPerMeterX(dpm);
  img.setDotsPerMeterY(dpm);
  img.fill(Qt::white);
  QPainter p(&img);
  paint_grid(p, run, groups, spec);
  p.end();
  return img;
}

void write_png(const Run& run, const ExportSpec& spec, QIODevice& out) {
  QImage img = render_image(run, spec);
  if (!img.save(&out, "PNG")) throw ChartError("could not encode the PNG image");
}

void write_svg(const Run& run, const ExportSpec& spec, QIODevice& out) {
  auto groups = groups_of(run, spec);
  QSize total = grid_size(groups.size(), spec.size);
  QBuffer svg;  // written whole, then its font families made ones a browser knows
  svg.open(QIODevice::WriteOnly);
  QSvgGenerator gen;
  gen.setOutputDevice(&svg);
  gen.setSize(total);
  gen.setViewBox(QRect(QPoint(0, 0), total));
  gen.setResolution(layout_dpi());
  // QSvgGenerator writes both as they are: escape them for XML.
  gen.setTitle(export_title(run, spec).toHtmlEscaped());
  gen.setDescription(run_description(run).toHtmlEscaped());
  QPainter p;
  if (!p.begin(&gen)) throw ChartError("could not start the SVG document");
  paint_grid(p, run, groups, spec);
  p.end();
  const QByteArray text = with_generic_families(svg.data());
  if (out.write(text) != text.size()) throw ChartError("could not write the SVG document");
}

void write_pdf(const Run& run, const ExportSpec& spec, QIODevice& out) {
  auto groups = groups_of(run, spec);
  const int dpi = layout_dpi();
  QPdfWriter pdf(&out);
  pdf.setTitle(run_description(run));
  pdf.setCreator(QStringLiteral("Perflab"));
  pdf.setResolution(dpi);
  QSizeF points(spec.size.width() * 72.0 / dpi, spec.size.height() * 72.0 / dpi);
  pdf.setPageSize(QPageSize(points, QPageSize::Point, QString(), QPageSize::ExactMatch));
  pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
  QPainter p;
  if (!p.begin(&pdf)) throw ChartError("could not start the PDF document");
  p.setRenderHint(QPainter::Antialiasing);
  p.setRenderHint(QPainter::TextAntialiasing);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (i > 0) pdf.newPage();
    QRectF page(QPointF(0, 0), QSizeF(spec.size));
    auto chart = build_chart(run, groups[i], spec.options);
    p.fillRect(page, chart->backgroundBrush());
    paint_chart(p, *chart, page);
  }
  p.end();
}

void export_charts(const Run& run, const ExportSpec& spec, ExportFormat format,
                   const QString& path) {
  groups_of(run, spec);  // validate before touching the file system
  try {                  // a folder, device or FIFO is refused, never replaced
    check_output_path(path.toStdString());
  } catch (const std::runtime_error& e) {
    throw ChartError(e.what());
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    throw ChartError("cannot write '" + path.toStdString() +
                     "': " + file.errorString().toStdString());
  switch (format) {
    case ExportFormat::Png:
      write_png(run, spec, file);
      break;
    case ExportFormat::Svg:
      write_svg(run, spec, file);
      break;
    case ExportFormat::Pdf:
      write_pdf(run, spec, file);
      break;
  }
  if (!file.commit())
    throw ChartError("cannot write '" + path.toStdString() +
                     "': " + file.errorString().toStdString());
}

}  // namespace perflab::charts
