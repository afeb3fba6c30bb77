#include "report/report.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include <QAbstractBarSeries>
#include <QBarSet>
#include <QBuffer>
#include <QDateTime>
#include <QGuiApplication>
#include <QPageSize>
#include <QPdfWriter>
#include <QSaveFile>
#include <QScreen>
#include <QTextDocument>
#include <QUrl>
#include <QXYSeries>

#include "charts/chart_export.h"
#include "common/run_io.h"
#include "qt_text/qt_text.h"
#include "registry/registry.h"
#include "report/pagination.h"
#include "report/resources.h"
#include "report/teaching.h"

namespace perflab::gui {

namespace {

QString row(const QString& k, const QString& v) {
  return "<tr><td><b>" + esc(k) + "</b></td><td>" + esc(v) + "</td></tr>";
}

QString when(std::int64_t unix_ms) {
  return unix_ms > 0 ? QDateTime::fromMSecsSinceEpoch(unix_ms, Qt::UTC)
                           .toString("yyyy-MM-dd HH:mm:ss 'UTC'")
                     : QString("—");
}

QByteArray png(const QImage& image) {
  QByteArray bytes;
  QBuffer buf(&bytes);
  buf.open(QIODevice::WriteOnly);
  image.save(&buf, "PNG");
  return bytes;
}

// The report's title: the run's, else the experiment's (its teaching text's title, else its id).
QString title_of(const Run& run) {
  if (!run.title.empty()) return q(run.title);
  perflab_init_gui_resources();
  const auto teaching = load_teaching(q(run.experiment));
  return teaching && !teaching->title.isEmpty() ? teaching->title : q(run.experiment);
}

// The smallest font of a chart in pixels of the picture it is painted into (`dpi`): its title,
// legend, axis labels and titles, and point or bar labels where shown.
double font_px(const QFont& f, double dpi) {
  return f.pointSizeF() > 0 ? f.pointSizeF() * dpi / 72 : f.pixelSize();
}
double smallest_text_px(const QChart& chart, double dpi) {
  double px = font_px(chart.legend()->font(), dpi);
  const auto keep = [&](const QFont& f) { px = std::min(px, font_px(f, dpi)); };
  if (!chart.title().isEmpty()) keep(chart.titleFont());
  for (const QAbstractAxis* axis : chart.axes()) {
    if (!axis->isVisible()) continue;
    if (axis->labelsVisible()) keep(axis->labelsFont());
    if (axis->isTitleVisible() && !axis->titleText().isEmpty()) keep(axis->titleFont());
  }
  for (QAbstractSeries* s : chart.series()) {
    if (const auto* xy = qobject_cast<const QXYSeries*>(s); xy && xy->pointLabelsVisible())
      keep(xy->pointLabelsFont());
    if (const auto* bars = qobject_cast<const QAbstractBarSeries*>(s);
        bars && bars->isLabelsVisible())
      for (const QBarSet* set : bars->barSets()) keep(set->labelFont());
  }
  return px;
}

// The resolution charts are laid out and painted at (the screen's, as chart_export does).
double chart_dpi() {
  const auto* screen = QGuiApplication::primaryScreen();
  return screen ? std::round(screen->logicalDotsPerInch()) : 96;
}

// A chart's picture: its height over its width (a chart, its heading and its description fill
// about one A4 page).
constexpr double kChartAspect = 0.95;

charts::ExportSpec chart_spec(const Run& run, const std::string& group) {
  charts::ExportSpec spec;
  spec.groups = {group};
  spec.options.presentation = true;  // the larger fonts and thicker lines
  const auto chart = charts::build_chart(run, group, spec.options);
  const double text_px = smallest_text_px(*chart, chart_dpi());
  // Shown page_width points wide, a picture w pixels wide shows text_px at
  // text_px * page_width / w points: w is the widest that keeps it at kMinChartTextPt.
  const double page_width = report_page_layout().paintRectPoints().width();
  const int width = static_cast<int>(std::floor(text_px * page_width / kMinChartTextPt));
  spec.size = QSize(width, static_cast<int>(std::lround(width * kChartAspect)));
  return spec;
}

}  // namespace

QPageLayout report_page_layout() {
  return QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(15, 15, 15, 15),
                     QPageLayout::Millimeter);
}

ReportChartSize report_chart_size(const Run& run, const std::string& group) {
  const charts::ExportSpec spec = chart_spec(run, group);
  const auto chart = charts::build_chart(run, group, spec.options);
  const double page_width = report_page_layout().paintRectPoints().width();
  return {spec.size, smallest_text_px(*chart, chart_dpi()) * page_width / spec.size.width()};
}

QString report_html(const Run& run, std::vector<ReportImage>* images, int chart_width) {
  perflab_init_gui_resources();  // the teaching texts
  const auto exp = make_experiment(run.experiment);
  const Article article = exp ? exp->article() : Article{};
  QString h;
  h += "<h1>" + esc(title_of(run)) + "</h1>";
  if (!run.note.empty()) h += "<p><i>" + esc(q(run.note)) + "</i></p>";
  h += "<p>" + esc(charts::run_description(run)) + "</p>";
  if (!run.message.empty() && run.status != RunStatus::Finished)
    h += "<p><i>" + esc(q(run.message)) + "</i></p>";
  // The teaching text, the article beside this run (one block per finding), the article's
  // tables; the title is the report's own.
  h += teaching_html(load_teaching(q(run.experiment)), article, q(run.title),
                     exp ? q(exp->purpose()) : QString(), &run, FindingsLayout::Blocks,
                     /*with_title=*/false);

  // One chart a page: its heading, its description and the chart.
  bool first = true;
  for (const auto& id : charts::chart_groups(run)) {
    const Group* g = run.group(id);
    const charts::ExportSpec spec = chart_spec(run, id);
    const QString name = "chart-" + q(id) + ".png";
    images->push_back({name, charts::render_image(run, spec)});
    h += first ? "<h2 style='page-break-before: always'>The charts</h2><h3>"
               : "<h3 style='page-break-before: always'>";
    first = false;
    h += esc(q(g->title)) + "</h3>";
    if (!g->description.empty()) h += "<p>" + esc(q(g->description)) + "</p>";
    h += QString("<p><img src='%1' width='%2'></p>").arg(esc(name)).arg(chart_width);
  }
  h += "<h2>Parameters</h2><table border='1' cellspacing='0' cellpadding='4'>";
  for (const auto& [k, v] : run.params) h += row(q(k), q(v));
  h += "</table>";
  h += "<h2>Where it ran</h2><table border='1' cellspacing='0' cellpadding='4'>";
  h += row("started", when(run.started_unix_ms));
  h += row("ended", when(run.ended_unix_ms));
  h += row("status", QString::fromLatin1(to_string(run.status)));
  h += row("CPU", q(run.host.cpu_model) + QString(" (%1 cores)").arg(run.host.cores));
  h += row("kernel", q(run.host.kernel));
  h += row("host", q(run.host.hostname));
  h += row("Perflab", q(run.host.perflab_version) + " " + q(run.host.build_type));
  for (const auto& t : run.targets)
    h += row(q(t.kind), q(t.address) + (t.managed ? " (managed)" : "") +
                            (t.version.empty() ? QString() : ", version " + q(t.version)));
  h += "</table>";
  return h;
}

QByteArray report_html_page(const Run& run) {
  std::vector<ReportImage> images;
  QString body = report_html(run, &images);
  for (const auto& im : images)
    body.replace(
        "src='" + esc(im.name) + "'",
        "src='data:image/png;base64," + QString::fromLatin1(png(im.image).toBase64()) + "'");
  const QString page =
      "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>" + esc(title_of(run)) +
      " — Perflab report</title>" +
      "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;line-height:1.4}"
      "table{border-collapse:collapse;break-inside:avoid;page-break-inside:avoid}"
      "h1,h2,h3,h4{break-after:avoid;page-break-after:avoid}"
      "img{max-width:100%;height:auto}</style></head><body>" +
      body + "</body></html>\n";
  return page.toUtf8();
}

namespace {

// A document whose pictures are the report's charts.
class ReportDocument : public QTextDocument {
 public:
  explicit ReportDocument(std::vector<ReportImage> images) : images_(std::move(images)) {}

 protected:
  QVariant loadResource(int type, const QUrl& name) override {
    if (type == QTextDocument::ImageResource)
      for (const auto& im : images_)
        if (im.name == name.toString()) return im.image;
    return QTextDocument::loadResource(type, name);
  }

 private:
  std::vector<ReportImage> images_;
};

}  // namespace

QByteArray report_pdf(const Run& run) {
  QByteArray bytes;
  QBuffer buf(&bytes);
  buf.open(QIODevice::WriteOnly);
  QPdfWriter pdf(&buf);
  pdf.setPageLayout(report_page_layout());
  // The document laid out on the page's text area, in points, and each chart as wide as that
  // area (a wider picture is cut at the margin, whatever the screen's resolution).
  const QSizeF area = pdf.pageLayout().paintRectPoints().size();
  std::vector<ReportImage> images;
  const QString html = report_html(run, &images, static_cast<int>(area.width()));
  ReportDocument doc(std::move(images));
  doc.setPageSize(area);
  doc.setHtml(html);
  keep_blocks_whole(doc);  // no finding split across pages, no heading without what it heads
  pdf.setTitle(charts::run_description(run));
  pdf.setCreator("Perflab");
  doc.print(&pdf);
  return bytes;
}

void write_report(const Run& run, const QString& pdf_path, const QString& html_path) {
  if (run.groups.empty()) throw std::runtime_error("the run has no results to report");
  // Before the pages are made: a folder, device or FIFO named is refused, never replaced.
  for (const QString& path : {pdf_path, html_path})
    if (!path.isEmpty()) check_output_path(path.toStdString());
  std::vector<std::pair<QString, QByteArray>> out;
  if (!pdf_path.isEmpty()) out.emplace_back(pdf_path, report_pdf(run));
  if (!html_path.isEmpty()) out.emplace_back(html_path, report_html_page(run));
  // Every temporary filled first; renamed only when all are complete.
  std::vector<std::unique_ptr<QSaveFile>> files;
  for (const auto& [path, bytes] : out) {
    auto f = std::make_unique<QSaveFile>(path);
    if (!f->open(QIODevice::WriteOnly) || f->write(bytes) != bytes.size())
      throw std::runtime_error("cannot write '" + path.toStdString() +
                               "': " + f->errorString().toStdString());
    files.push_back(std::move(f));
  }
  for (auto& f : files)
    if (!f->commit())
      throw std::runtime_error("cannot write '" + f->fileName().toStdString() +
                               "': " + f->errorString().toStdString());
}

}  // namespace perflab::gui
