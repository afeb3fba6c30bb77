// Latency charts from what is painted: a percentile spectrum on HdrHistogram's 1/(1 - p) axis
// (ticks at 50%, 90%, 99%, 99.9%, 99.99% where they belong, the whole curve from the pooled
// recorders beside the points, the relative view per percentile), a hockey stick's knees as
// marked lines at their x, and both in the window, the presentation view, exports and the report.
#include <algorithm>
#include <cmath>

#include <QBuffer>
#include <QCategoryAxis>
#include <QChartView>
#include <QCheckBox>
#include <QElapsedTimer>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPainter>
#include <QProcess>
#include <QScatterSeries>
#include <QTemporaryDir>
#include <QtTest>

#include "chart_panel.h"
#include "charts/axis_marker.h"
#include "charts/chart_export.h"
#include "common/latency_curve.h"
#include "common/latency_hdr_text.h"
#include "common/run_io.h"
#include "presentation_view.h"
#include "report/report.h"
#include "spectrum_runs.h"

using namespace perflab;
using namespace perflab::charts;

namespace {

const QStringList kNines = {"50%", "90%", "99%", "99.9%", "99.99%"};

// A chart laid out at `size` in a scene of its own (which owns it), as an export lays it out.
struct LaidOut {
  QGraphicsScene scene;
  QChart* chart = nullptr;
  LaidOut(std::unique_ptr<QChart> c, QSizeF size) : chart(c.release()) {
    scene.addItem(chart);
    chart->setGeometry(QRectF(QPointF(0, 0), size));
    for (int i = 0; i < 2; ++i) chart->layout()->activate();
    QImage img(size.toSize(), QImage::Format_ARGB32_Premultiplied);
    QPainter p(&img);
    scene.render(&p, QRectF(QPointF(0, 0), size), QRectF(QPointF(0, 0), size));
  }
  // The centre of each painted text of the chart, by its text.
  std::map<QString, QPointF> texts() const {
    std::map<QString, QPointF> out;
    for (auto* item : scene.items())
      if (auto* t = dynamic_cast<QGraphicsTextItem*>(item); t && t->isVisible())
        out[t->toPlainText()] = t->sceneBoundingRect().center();
    return out;
  }
};

QCategoryAxis* x_axis(const QChart& chart) {
  return qobject_cast<QCategoryAxis*>(chart.axes(Qt::Horizontal).value(0));
}

QLineSeries* curve_of(const QChart& chart, const QString& series) {
  for (auto* s : chart.series())
    if (s->property("perflab_curve_of").toString() == series) return qobject_cast<QLineSeries*>(s);
  return nullptr;
}

bool near(QColor a, QColor b) {
  return std::abs(a.red() - b.red()) < 40 && std::abs(a.green() - b.green()) < 40 &&
         std::abs(a.blue() - b.blue()) < 40;
}

// Pixels of colour `c` in column x (±1) between y0 and y1.
int column_pixels(const QImage& img, double x, double y0, double y1, QColor c) {
  int n = 0;
  for (int y = static_cast<int>(y0); y < static_cast<int>(y1); ++y) {
    bool hit = false;
    for (int dx = -1; dx <= 1; ++dx) {
      const int px = static_cast<int>(std::lround(x)) + dx;
      if (px >= 0 && px < img.width() && y >= 0 && y < img.height() &&
          near(img.pixelColor(px, y), c))
        hit = true;
    }
    n += hit;
  }
  return n;
}

QString run_tool(const QString& tool, const QStringList& args) {
  QProcess p;
  p.start(tool, args);
  if (!p.waitForFinished(120000) || p.exitCode() != 0) return QString();
  return QString::fromUtf8(p.readAllStandardOutput());
}

struct Exit {
  int code = -1;
  QString err;
};
Exit cli(const QStringList& args) {
  QProcess p;
  p.start(PERFLAB_CLI, args);
  p.waitForFinished(120000);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
          QString::fromUtf8(p.readAllStandardError())};
}

QString slurp(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

}  // namespace

class SpectrumTest : public QObject {
  Q_OBJECT
  Run run_ = test::latency_run();

 private slots:
  void ticksAreTheNinesEquallySpacedOnTheLogAxis() {
    LaidOut l(build_chart(run_, "spectrum", {}), {1200, 700});
    QCategoryAxis* x = x_axis(*l.chart);
    QVERIFY(x && x->property("perflab_percentile").toBool());
    const QStringList labels = x->categoriesLabels();
    QCOMPARE(labels.mid(0, 5), kNines);
    for (const QString& more : labels.mid(5))  // the curve may reach a further nine
      QVERIFY2(QRegularExpression("^99\\.999+%$").match(more).hasMatch(), qPrintable(more));
    QCOMPARE(x->titleText(), QStringLiteral("percentile"));
    // Where the labels are painted: each nine one width further (90% → 99% → 99.9% → 99.99%),
    // 50% → 90% log10(5) of it (1/(1 - p) goes 2, 10, 100 …).
    const auto texts = l.texts();
    std::vector<double> at;
    for (const QString& t : kNines) {
      QVERIFY2(texts.count(t), qPrintable(t + " is not painted"));
      at.push_back(texts.at(t).x());
    }
    const double nine = at[2] - at[1];
    QVERIFY2(nine > 100, qPrintable(QString::number(nine)));
    QVERIFY(std::abs((at[3] - at[2]) - nine) <= 2);
    QVERIFY(std::abs((at[4] - at[3]) - nine) <= 2);
    QVERIFY(std::abs((at[1] - at[0]) - nine * std::log10(5.0)) <= 2);
    // Nothing between them: no label reads 1e+04 or 95%.
    for (const auto& [t, pos] : texts) QVERIFY2(!t.contains("e+") && t != "95%", qPrintable(t));
    // Latency on a log y by default, linear when the person asks.
    QVERIFY(l.chart->axes(Qt::Vertical).front()->property("perflab_log").toBool());
    ChartOptions linear;
    linear.log_y = false;
    linear.log_x = false;  // ignored: the spectrum's axis is its own
    auto lin = build_chart(run_, "spectrum", linear);
    QVERIFY(!lin->axes(Qt::Vertical).front()->property("perflab_log").toBool());
    QCOMPARE(x_axis(*lin)->categoriesLabels().mid(0, 5), kNines);
  }

  void eachSeriesHasItsPointsIntervalsAndWholeCurve() {
    ChartFacts facts;
    auto chart = build_chart(run_, "spectrum", {}, &facts);
    QCOMPARE(facts.error_bars, 15);  // five percentiles of three series, each over five rounds
    for (const char* name : {"direct", "proxy", "cluster"}) {
      const Series* s = run_.find_series("spectrum", name);
      QLineSeries* curve = curve_of(*chart, name);
      QVERIFY2(curve, name);
      const auto expected = spectrum_curve(*s, "ms");
      QCOMPARE(curve->count(), static_cast<int>(expected.size()));
      // From 0% (drawn at log10(1) = 0) to the largest value of the pooled rounds.
      QCOMPARE(curve->at(0).x(), 0.0);
      QVERIFY(std::abs(curve->at(curve->count() - 1).y() - std::log10(expected.back().value)) <
              1e-9);
      // The axes show it whole.
      auto* y = qobject_cast<QValueAxis*>(chart->axes(Qt::Vertical).front());
      QVERIFY(y->max() >= curve->at(curve->count() - 1).y());
      QVERIFY(x_axis(*chart)->max() >= curve->at(curve->count() - 1).x());
      // In its series' colour; the points themselves are dots (no straight line between them).
      int points = 0;
      for (auto* dots : chart->series())
        if (dots->property("perflab_series").toString() == name) {
          auto* scatter = qobject_cast<QScatterSeries*>(dots);
          QVERIFY(scatter);
          QCOMPARE(scatter->count(), 5);
          QCOMPARE(curve->pen().color(), scatter->color());
          ++points;
        }
      QCOMPARE(points, 1);
      QVERIFY(!listed_in_legend(curve));
    }
    // The cluster's stalls (1% near 40 ms) lie between the labelled points: the curve shows them.
    const auto cluster = spectrum_curve(*run_.find_series("spectrum", "cluster"), "ms");
    QVERIFY(std::any_of(cluster.begin(), cluster.end(), [](const CurvePoint& c) {
      return c.percent > 99 && c.percent < 99.9 && c.value > 20;
    }));
    // Without recorders there is no curve, and the points keep their axis.
    Run bare = run_;
    for (auto& s : bare.series) s.latency.clear();
    auto plain = build_chart(bare, "spectrum", {});
    QVERIFY(!curve_of(*plain, "direct"));
    QCOMPARE(x_axis(*plain)->categoriesLabels(), kNines);
  }

  void aLegendClickHidesTheSeriesWithItsCurve() {
    auto chart = build_chart(run_, "spectrum", {});
    enable_legend_toggles(chart.get());
    QLegendMarker* direct = nullptr;
    int listed = 0;
    for (auto* m : chart->legend()->markers())
      if (listed_in_legend(m->series())) {
        ++listed;
        if (m->label() == "direct") direct = m;
      }
    QCOMPARE(listed, 3);
    QVERIFY(direct);
    emit direct->clicked();
    QVERIFY(!curve_of(*chart, "direct")->isVisible());
    QVERIFY(curve_of(*chart, "proxy")->isVisible());
    QCOMPARE(hidden_series(chart.get()), std::set<std::string>{"direct"});
    ChartOptions hidden;
    hidden.hidden_series = {"proxy"};
    QVERIFY(!curve_of(*build_chart(run_, "spectrum", hidden), "proxy")->isVisible());
  }

  void theRelativeViewIsARatioPerPercentile() {
    ChartOptions o;
    o.relative_to = "direct";
    auto chart = build_chart(run_, "spectrum", o);
    QCOMPARE(x_axis(*chart)->categoriesLabels(), kNines);
    QVERIFY(!curve_of(*chart, "proxy"));  // a curve of values is no ratio
    auto* proxy = qobject_cast<QLineSeries*>(chart->series().at(1));
    QCOMPARE(proxy->property("perflab_series").toString(), QStringLiteral("proxy"));
    QCOMPARE(proxy->count(), 5);
  }

  void markersPaintALabelledLineAtTheirX() {
    auto built = build_chart(run_, "hockey", {});
    QChart* chart = built.get();
    const auto markers = axis_markers(*chart);
    QCOMPARE(markers.size(), 2);
    QImage img(1000, 640, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::white);
    {
      QPainter p(&img);
      paint_chart(p, *chart, QRectF(0, 0, 1000, 640));
    }
    const QRectF area = chart->plotArea();
    auto* x = qobject_cast<QValueAxis*>(chart->axes(Qt::Horizontal).front());
    const Group& g = *run_.group("hockey");
    for (int i = 0; i < 2; ++i) {
      AxisMarker* m = markers[i];
      const double want =
          area.left() + (g.markers[i].x - x->min()) / (x->max() - x->min()) * area.width();
      QVERIFY2(std::abs(m->lineX() - want) < 1, qPrintable(QString::number(m->lineX())));
      QCOMPARE(m->label(), QString::fromStdString(g.markers[i].label));
      // In its series' colour, over at least a third of the plot's height (dashed).
      for (auto* s : chart->series())
        if (s->property("perflab_series").toString() == QString::fromStdString(g.markers[i].series))
          QCOMPARE(m->color(), qobject_cast<QLineSeries*>(s)->pen().color());
      const int painted = column_pixels(img, want, area.top(), area.bottom(), m->color());
      QVERIFY2(painted > area.height() / 3, qPrintable(QString::number(painted)));
      QVERIFY(area.contains(m->labelRect()));
    }
    QVERIFY(!markers[0]->labelRect().intersects(markers[1]->labelRect()));
    // Not in the window's legend, hidden with its series.
    enable_legend_toggles(chart);
    for (auto* lm : chart->legend()->markers())
      if (lm->label() == "proxy p99") emit lm->clicked();
    QVERIFY(markers[0]->isVisible());
    QVERIFY(!markers[1]->isVisible());
  }

  // The most markers a chart holds (64), every one labelled: each label is placed once, in
  // order, beside the labels before it (placing each one's predecessors again for every label
  // took time exponential in the markers: 20 labels, a million placements).
  void theMostMarkersAChartHoldsArePlacedInTime() {
    Run run = run_;
    for (auto& g : run.groups)
      for (int i = 2; g.id == "hockey" && i < 64; ++i)
        g.markers.push_back({"direct p99", 30000.0 + 1000 * i, "knee " + std::to_string(i)});
    auto chart = build_chart(run, "hockey", {});
    QElapsedTimer took;
    took.start();
    QImage img(1000, 640, QImage::Format_ARGB32_Premultiplied);
    {
      QPainter p(&img);
      paint_chart(p, *chart, QRectF(0, 0, 1000, 640));
    }
    const auto markers = axis_markers(*chart);
    QCOMPARE(markers.size(), 64);
    // Each label still keeps clear of those before it while there is room.
    QVERIFY(!markers[0]->labelRect().intersects(markers[1]->labelRect()));
    QVERIFY(!markers[1]->labelRect().intersects(markers[2]->labelRect()));
    QVERIFY2(took.elapsed() < 60'000, "it returns");
  }

  void exportsCarryTheTicksAndTheKnees() {
    QBuffer svg;
    svg.open(QIODevice::WriteOnly);
    write_svg(run_, {{"spectrum", "hockey"}, {}, {900, 560}}, svg);
    const QString text = QString::fromUtf8(svg.data());
    for (const QString& t : kNines + QStringList{"knee: 70,000 req/s", "percentile"})
      QVERIFY2(text.contains(">" + t + "<"), qPrintable(t + " is not in the SVG"));
    QBuffer png;
    png.open(QIODevice::WriteOnly);
    write_png(run_, {{"hockey"}, {}, {900, 560}}, png);
    const QImage img = QImage::fromData(png.data(), "PNG");
    QCOMPARE(img.size(), QSize(900, 560));
    // The chart as laid out for that export: the knee's line where its marker is.
    auto chart = build_chart(run_, "hockey", {});
    QImage again(900, 560, QImage::Format_ARGB32_Premultiplied);
    again.fill(Qt::white);
    QPainter p(&again);
    paint_chart(p, *chart, QRectF(0, 0, 900, 560));
    const AxisMarker* knee = axis_markers(*chart).front();
    QVERIFY(column_pixels(img, knee->lineX(), chart->plotArea().top(), chart->plotArea().bottom(),
                          knee->color()) > chart->plotArea().height() / 3);
  }

  void theWindowAndThePresentationDrawThem() {
    gui::ChartPanel panel;
    panel.resize(1200, 760);
    panel.setRun(run_);
    panel.setGroup("spectrum");
    QVERIFY(!panel.logXBox()->isEnabled());
    QVERIFY(panel.logXBox()->isChecked());
    QVERIFY(panel.logYBox()->isChecked());
    QCOMPARE(panel.legendLabel()->text().count(QStringLiteral("■")), 3);
    QCOMPARE(x_axis(*panel.chart())->categoriesLabels().mid(0, 5), kNines);
    QVERIFY(curve_of(*panel.chart(), "cluster"));
    gui::PresentationView view;
    view.resize(1280, 800);
    view.setRun(run_, "hockey");
    const auto markers = axis_markers(*view.chartView()->chart());
    QCOMPARE(markers.size(), 2);
    QCOMPARE(view.legendLabel()->text().count(QStringLiteral("■")), 4);
    view.setRun(run_, "spectrum");
    QCOMPARE(x_axis(*view.chartView()->chart())->categoriesLabels().mid(0, 5), kNines);
  }

  void theReportHasBothCharts() {
    std::vector<gui::ReportImage> images;
    const QString html = gui::report_html(run_, &images);
    QCOMPARE(images.size(), std::size_t{2});
    QCOMPARE(images[0].name, QStringLiteral("chart-spectrum.png"));
    QCOMPARE(images[1].name, QStringLiteral("chart-hockey.png"));
    QVERIFY(html.contains("Latency at 20,000 req/s"));
    QTemporaryDir dir;
    const QString pdf = dir.filePath("report.pdf");
    gui::write_report(run_, pdf, QString());
    const QString list = run_tool(PERFLAB_PDFIMAGES, {"-list", pdf});
    QCOMPARE(list.count(QRegularExpression("\\bimage\\b")), 2);
    QVERIFY(run_tool(PERFLAB_PDFTOTEXT, {pdf, "-"}).contains("Latency against throughput"));
  }

  void theCliWritesASeriesForHdrHistogramsPlotter() {
    QTemporaryDir dir;
    const QString file = dir.filePath("run.json");
    save_run(run_, file.toStdString());
    const QString hgrm = dir.filePath("cluster.hgrm");
    Exit e = cli({"export", file, "--hdr", hgrm, "--series", "cluster"});
    QVERIFY2(e.code == 0, qPrintable(e.err));
    const std::string want =
        hdr_percentile_distribution(pooled_latency(*run_.find_series("spectrum", "cluster")));
    QCOMPARE(slurp(hgrm), QString::fromStdString(want));
    QVERIFY(slurp(hgrm).contains("#[Max     =       "));
    // A series without recorders, a name no series has, --hdr alone: nothing written.
    const QString none = dir.filePath("none.hgrm");
    for (const QStringList& args :
         {QStringList{"--hdr", none, "--series", "direct p99"},
          QStringList{"--hdr", none, "--series", "cluster", "--group", "hockey"}}) {
      e = cli(QStringList{"export", file} + args);
      QCOMPARE(e.code, 1);
      QCOMPARE(e.err.count('\n'), 1);
      QVERIFY2(e.err.contains("these do: spectrum/direct, spectrum/proxy, spectrum/cluster"),
               qPrintable(e.err));
    }
    QCOMPARE(cli({"export", file, "--hdr", none}).code, 2);
    QVERIFY(!QFile::exists(none));
  }
};

QTEST_MAIN(SpectrumTest)
#include "test_spectrum.moc"
