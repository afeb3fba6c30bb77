#pragma once
// Rendering charts without a display (QT_QPA_PLATFORM=offscreen works) and exporting them to
// PNG, SVG and PDF. Every function builds fresh charts from the Run, so an export never
// disturbs a chart shown in a window. A QApplication must exist (Qt Charts are widgets).
#include <string>
#include <vector>

#include <QByteArray>
#include <QImage>
#include <QSize>
#include <QString>

#include "charts/run_chart.h"

class QPainter;
class QIODevice;

namespace perflab::charts {

enum class ExportFormat { Png, Svg, Pdf };

// From a file name's extension (.png, .svg, .pdf, any case); throws ChartError otherwise.
ExportFormat format_from_path(const QString& path);

// What to draw: the groups of a run (all of them when empty), each as one chart of `size`.
// PNG and SVG lay several charts out in a grid (two columns); PDF puts one chart per page.
struct ExportSpec {
  std::vector<std::string> groups;
  ChartOptions options;
  QSize size{1000, 600};
};

// Paints one chart into `target` on any painter (image, SVG generator, PDF, printer).
void paint_chart(QPainter& painter, QChart& chart, const QRectF& target);

// The charts of `spec` as one image (grid). Throws ChartError for an unknown group or an
// invalid size.
QImage render_image(const Run& run, const ExportSpec& spec);

// Writes to a device (for files use export_charts).
void write_png(const Run& run, const ExportSpec& spec, QIODevice& out);
void write_svg(const Run& run, const ExportSpec& spec, QIODevice& out);
void write_pdf(const Run& run, const ExportSpec& spec, QIODevice& out);

// Writes the file atomically (QSaveFile: a temporary beside it, renamed when complete): a
// failure leaves any existing file untouched. Throws ChartError with the path and the reason.
void export_charts(const Run& run, const ExportSpec& spec, ExportFormat format,
                   const QString& path);

// The title written into SVG/PDF metadata: the run's title and the charted groups.
QString export_title(const Run& run, const ExportSpec& spec);

}  // namespace perflab::charts
