// app/charts' exports decoded back: the error bars in PNG and SVG pixels, a narrow export's legend
// whole, PNG bars and lines, the SVG's description, the PDF's title and pages, files written
// atomically, and the run's description.
#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QtTest>

#include "chart_probes.h"
#include "charts/chart_export.h"
#include "charts/run_chart.h"
#include "common/figure_format.h"
#include "sample_runs.h"
#include "waits.h"

using namespace perflab;
using namespace perflab::charts;
using namespace perflab::test;

class ChartExportsTest : public QObject {
  Q_OBJECT

 private slots:
  void errorBarsAreInTheExports() {
    // Decoded PNG and SVG: the error bars' colour appears where the bars alone have none of it.
    Run run = test::sample_run();
    ChartOptions off;
    off.error_bars = false;
    for (bool log : {false, true}) {
      ChartOptions on;
      on.log_y = off.log_y = log;
      QBuffer with, without;
      with.open(QIODevice::WriteOnly);
      without.open(QIODevice::WriteOnly);
      write_png(run, {{"append"}, on, {900, 500}}, with);
      write_png(run, {{"append"}, off, {900, 500}}, without);
      QImage a, b;
      QVERIFY(a.loadFromData(with.data(), "PNG") && b.loadFromData(without.data(), "PNG"));
      const int extra = pixels_like(a, error_bar_color()) - pixels_like(b, error_bar_color());
      QVERIFY2(extra > 40, qPrintable(QString("log %1: %2 more pixels").arg(log).arg(extra)));
    }
    off.log_y = false;
    auto svg_pixels = [&](const ChartOptions& o) {
      QBuffer buf;
      buf.open(QIODevice::WriteOnly);
      write_svg(run, {{"build"}, o, {800, 500}}, buf);
      QSvgRenderer svg(buf.data());
      QImage img(800, 500, QImage::Format_ARGB32);
      img.fill(Qt::white);
      QPainter p(&img);
      svg.render(&p);
      p.end();
      return pixels_like(img, error_bar_color());
    };
    QVERIFY(svg_pixels({}) > svg_pixels(off) + 40);
  }

  void exportsWrapTheLegendInsteadOfCuttingNames() {
    // A narrow export with long series names: every name whole (Qt's legend cut them to "…").
    Run run = test::sample_run();
    for (auto& s : run.series)
      if (s.group == "append") s.name += ", written per reply without TCP_NODELAY";
    QBuffer svg;
    svg.open(QIODevice::WriteOnly);
    write_svg(run, {{"append"}, {}, {500, 400}}, svg);
    const QString text = QString::fromUtf8(svg.data());
    QVERIFY(text.contains("iolist, written per reply without TCP_NODELAY"));
    QVERIFY(text.contains("interpolate, written per reply without TCP_NODELAY"));
    QVERIFY(!text.contains(QChar(0x2026)));  // no name cut short
    // The PNG still decodes, at its size.
    QBuffer png;
    png.open(QIODevice::WriteOnly);
    write_png(run, {{"append"}, {}, {500, 400}}, png);
    QImage img;
    QVERIFY(img.loadFromData(png.data(), "PNG"));
    QCOMPARE(img.size(), QSize(500, 400));
  }

  void pngRendersBarsAndLines() {
    Run run = test::sample_run();
    QImage img = render_image(run, {{"append"}, {}, {900, 500}});
    QCOMPARE(img.size(), QSize(900, 500));
    QColor bar = first_bar_colour(run, {});
    QVERIFY2(pixels_like(img, bar) > 2000, "the bars are drawn");
    ChartOptions log;
    log.log_y = true;
    QImage limg = render_image(run, {{"append"}, log, {900, 500}});
    QVERIFY2(pixels_like(limg, bar) > 100, "the points are drawn on a log axis");
    // All groups: a grid of two columns.
    QImage grid = render_image(run, {{}, {}, {400, 300}});
    QCOMPARE(grid.size(), QSize(800, 300));
    // Encoded and decoded.
    QBuffer buf;
    buf.open(QIODevice::WriteOnly);
    write_png(run, {{"build"}, {}, {640, 480}}, buf);
    QImage back;
    QVERIFY(back.loadFromData(buf.data(), "PNG"));
    QCOMPARE(back.size(), QSize(640, 480));
    QSet<QRgb> colours;
    for (int y = 0; y < back.height(); y += 4)
      for (int x = 0; x < back.width(); x += 4) colours.insert(back.pixel(x, y));
    QVERIFY2(colours.size() > 20, "not blank");
  }

  void svgCarriesTheRunDescription() {
    Run run = test::sample_run();
    run.params["note"] = "a<b & c";
    QBuffer buf;
    buf.open(QIODevice::WriteOnly);
    write_svg(run, {{"append"}, {}, {800, 500}}, buf);
    QSvgRenderer svg(buf.data());
    QVERIFY(svg.isValid());
    QCOMPARE(svg.viewBoxF(), QRectF(0, 0, 800, 500));
    QString text = QString::fromUtf8(buf.data());
    QVERIFY(text.contains("<desc>"));
    QVERIFY(text.contains("note=a&lt;b &amp; c"));
    QVERIFY(text.contains("events=100"));
    QVERIFY(text.contains("Perflab iolist"));
    QVERIFY(text.contains("Append 100 events"));  // the title, as text
    QVERIFY(text.contains("10 writers"));         // a category label
    // The rendered SVG shows the bars.
    QImage img(800, 500, QImage::Format_ARGB32);
    img.fill(Qt::white);
    QPainter p(&img);
    svg.render(&p);
    p.end();
    QVERIFY(pixels_like(img, first_bar_colour(run, {})) > 2000);
  }

  void pdfHasTitleCreatorAndOnePagePerChart() {
    Run run = test::sample_run();
    QBuffer buf;
    buf.open(QIODevice::WriteOnly);
    write_pdf(run, {{}, {}, {800, 500}}, buf);
    QByteArray pdf = buf.data();
    QVERIFY(pdf.startsWith("%PDF-"));
    QVERIFY(pdf_has_text(pdf, "Perflab iolist"));
    QVERIFY(pdf_has_text(pdf, "events=100"));
    QVERIFY(pdf_has_text(pdf, "Perflab"));
    QCOMPARE(pdf_pages(pdf), 2);
  }

  void exportFilesAtomically() {
    QTemporaryDir dir;
    Run run = test::sample_run();
    QString png = dir.filePath("c.png"), svg = dir.filePath("c.svg"), pdf = dir.filePath("c.pdf");
    export_charts(run, {{"append"}, {}, {600, 400}}, format_from_path(png), png);
    export_charts(run, {{"append"}, {}, {600, 400}}, format_from_path(svg), svg);
    export_charts(run, {{"append"}, {}, {600, 400}}, format_from_path(pdf), pdf);
    QCOMPARE(QImage(png).size(), QSize(600, 400));
    QVERIFY(QSvgRenderer(svg).isValid());
    QFile f(pdf);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.read(5) == "%PDF-");
    f.close();
    // A bad request leaves the existing file as it was, and no temporary behind.
    QByteArray before;
    {
      QFile pf(png);
      QVERIFY(pf.open(QIODevice::ReadOnly));
      before = pf.readAll();
    }
    QVERIFY_THROWS_EXCEPTION(
        ChartError, export_charts(run, {{"nope"}, {}, {600, 400}}, ExportFormat::Png, png));
    QVERIFY_THROWS_EXCEPTION(
        ChartError, export_charts(run, {{"append"}, {}, {10, 400}}, ExportFormat::Png, png));
    {
      QFile pf(png);
      QVERIFY(pf.open(QIODevice::ReadOnly));
      QCOMPARE(pf.readAll(), before);
    }
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 3);
    QVERIFY_THROWS_EXCEPTION(ChartError,
                             export_charts(run, {{"append"}, {}, {600, 400}}, ExportFormat::Png,
                                           dir.filePath("missing/dir/c.png")));
    QVERIFY_THROWS_EXCEPTION(ChartError, format_from_path("chart.jpg"));
    QCOMPARE(format_from_path("A.PDF"), ExportFormat::Pdf);
  }

  void descriptionNamesExperimentAndParameters() {
    Run run = test::sample_run();
    QString d = run_description(run);
    QVERIFY(d.startsWith("Perflab iolist"));
    QVERIFY(d.contains("builders=iolist,interpolate"));
    QVERIFY(d.contains("finished"));
  }
};

QTEST_MAIN(ChartExportsTest)
#include "test_chart_exports.moc"
