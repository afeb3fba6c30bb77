#pragma once
// A run's report, something a teacher hands out after class: every chart of the run, the
// teaching text with the article-vs-this-run table, the parameters, the host and the targets.
// Written as a PDF (A4 pages) and as one self-contained HTML page (charts embedded as PNG data),
// by File → Export report… and by `perflab-cli report RUN.json --pdf F --html F`.
// A QApplication must exist (charts are drawn with Qt Charts).
#include <QByteArray>
#include <QImage>
#include <QPageLayout>
#include <QSize>
#include <QString>
#include <string>
#include <vector>

#include "common/run.h"

namespace perflab::gui {

struct ReportImage {
  QString name;  // "chart-<group>.png"
  QImage image;
};

// The PDF's page: A4, portrait, 15 mm margins; a chart is as wide as its text area.
QPageLayout report_page_layout();

// The smallest text of a chart on the printed page, in points.
constexpr double kMinChartTextPt = 9;

// How a chart of the report is drawn: its picture's size in pixels, and the size on the PDF's
// page (the picture as wide as the text area) of its smallest text, from the chart's fonts and
// that scale: at least kMinChartTextPt.
struct ReportChartSize {
  QSize pixels;
  double smallest_text_pt = 0;
};
ReportChartSize report_chart_size(const Run& run, const std::string& group);

// The report as HTML whose <img> sources are the images' names; the images are returned in
// `images` (every chart of the run, in its order), each shown `chart_width` wide. Under the title,
// the run's note when it has one; each chart starts a page of its own (when printed).
QString report_html(const Run& run, std::vector<ReportImage>* images, int chart_width = 800);

// The self-contained HTML page (images inlined as data: URLs) and the PDF document.
QByteArray report_html_page(const Run& run);
QByteArray report_pdf(const Run& run);

// Writes the requested files (an empty path: not that one), every one or none, atomically.
// Throws std::runtime_error naming the file and the reason.
void write_report(const Run& run, const QString& pdf_path, const QString& html_path);

}  // namespace perflab::gui
