// The presentation view on the offscreen platform, from what is painted: it keeps the window's
// scales and hidden series chart by chart, gives the plot most of a 1280×800 screen, shows the
// chart's own findings (none: the chart takes the whole width) and the run's note.
#include <cmath>

#include <QChartView>
#include <QCheckBox>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QValueAxis>
#include <QXYSeries>
#include <QtTest>

#include "chart_panel.h"
#include "fresh_window.h"
#include "history_page.h"
#include "main_window.h"
#include "presentation_view.h"
#include "sample_runs.h"

using namespace perflab;
using namespace perflab::gui;

namespace {

// As long as the IO-list experiment's own descriptions: ten lines in a narrow panel.
const std::string kLongDescription =
    "Wall time for every writer to append one batch to a new stream in one transaction "
    "(expected-version check + multi-row INSERT + COMMIT). pgbench: PostgreSQL's own load tool "
    "running the same transaction with the same statement text and events; its sample is "
    "pgbench's latency average, the per-transaction time with N clients running concurrently. "
    "Unlike Perflab, pgbench sends every parameter as text, and binds at most 255 parameters "
    "per statement, so its 100 events go as 4 INSERTs in one pipeline.";

// A finding about the chart `group` (empty: about none).
Finding about(const std::string& id, const std::string& group, const std::string& what) {
  return figure_finding({.id = id, .what = what, .unit = "%", .group = group}, 12);
}

// The sample IO-list run with a long description, a third chart without findings, a note, and
// findings about its charts: two about "append", one about "build", one about no chart.
Run presented_run() {
  Run run = test::sample_run();
  run.note = "Lecture 3, on battery";
  for (auto& g : run.groups)
    if (g.id == "append") g.description = kLongDescription;
  run.ensure_group({"keys", "Keys per node", "keys", "", false, false, "How keys spread."});
  for (const char* node : {"node 1", "node 2", "node 3"})
    run.add_point("keys", "modula", test::sample_point(node, {2500, 2500, 2500}));
  run.findings = {about("append_1.share", "append", "share of the first append"),
                  about("build.share", "build", "share of the build"),
                  about("append_100.share", "append", "share of the hundredth append"),
                  about("machine.steal", "", "steal time of the machine")};
  return run;
}

// The series of `chart` named `name` (Series::name), or null.
QAbstractSeries* series_named(QChart* chart, const QString& name) {
  for (auto* s : chart->series())
    if (s->property("perflab_series").toString() == name) return s;
  return nullptr;
}

// Where the plot is painted, in `to`'s coordinates.
QRect plot_rect(QChartView* view, QWidget* to) {
  const QRect in_view = view->mapFromScene(view->chart()->plotArea()).boundingRect();
  return QRect(view->viewport()->mapTo(to, in_view.topLeft()), in_view.size());
}

}  // namespace

class PresentationTest : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  int windows_ = 0;

  // A view on its own at a screen's size (the offscreen platform's screen is smaller).
  std::unique_ptr<PresentationView> viewAt(QSize size, const Run& run, const std::string& group) {
    auto view = std::make_unique<PresentationView>();
    view->setRun(run, group);
    view->resize(size);
    view->show();
    if (!QTest::qWaitForWindowExposed(view.get())) return nullptr;
    QApplication::processEvents();
    return view;
  }

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void keepsEachChartsScalesAndHiddenSeries() {
    auto w = test::fresh_window(dir_.path(), ++windows_);
    QVERIFY(w);
    const QString path = w->history().save(presented_run());
    QVERIFY(w->openRun(path));
    ChartPanel* panel = w->resultsPanel();
    // The window: "append" on log y with interpolate hidden; "build" left linear.
    panel->setGroup("append");
    QTest::mouseClick(panel->logYBox(), Qt::LeftButton);
    QVERIFY(panel->logY());
    const auto markers = panel->chart()->legend()->markers();
    int interpolate = -1;
    for (int i = 0; i < markers.size(); ++i)
      if (markers[i]->label() == "interpolate") interpolate = i;
    QVERIFY(interpolate >= 0);
    emit panel->legendLabel()->linkActivated(QString::number(interpolate));
    QCOMPARE(panel->options().hidden_series, std::set<std::string>{"interpolate"});
    QTest::keyClick(w.get(), Qt::Key_F11);
    PresentationView* view = w->presentationView();
    QVERIFY(view);
    QTRY_VERIFY(view->isVisible());
    QCOMPARE(view->group(), std::string("append"));

    // Log y as in the window (values drawn at log10 of their medians): 1 writer and 100 writers
    // of iolist, medians about 93 times apart, are painted log10 of their ratio in decades
    // apart, at the axis' pixels per decade.
    const Run shown = presented_run();
    const double ratio = shown.find_point("append", "iolist", "100 writers")->stats.median /
                         shown.find_point("append", "iolist", "1 writer")->stats.median;
    QVERIFY(ratio > 50);
    auto check_log = [&] {
      QChart* chart = view->chartView()->chart();
      const auto vertical = chart->axes(Qt::Vertical);
      QCOMPARE(vertical.size(), 1);
      auto* axis = qobject_cast<QValueAxis*>(vertical.front());
      QVERIFY2(axis && axis->property("perflab_log").toBool(), "the y axis is not logarithmic");
      auto* iolist = qobject_cast<QXYSeries*>(series_named(chart, "iolist"));
      QVERIFY(iolist && iolist->count() == 3);
      const double painted = chart->mapToPosition(iolist->at(0), iolist).y() -
                             chart->mapToPosition(iolist->at(2), iolist).y();
      const double per_decade = chart->plotArea().height() / (axis->max() - axis->min());
      QVERIFY2(std::abs(painted - per_decade * std::log10(ratio)) < 2,
               qPrintable(QString("painted %1 px, %2 px per decade").arg(painted).arg(per_decade)));
      // Interpolate stays hidden, in the chart and in its legend.
      QAbstractSeries* hidden = series_named(chart, "interpolate");
      QVERIFY(hidden && !hidden->isVisible());
      QVERIFY(!view->legendLabel()->text().contains("interpolate"));
      QVERIFY(view->legendLabel()->text().contains("iolist"));
    };
    check_log();
    if (QTest::currentTestFailed()) return;
    // The next chart with its own scale (linear, as the window left it), interpolate hidden.
    QTest::keyClick(view, Qt::Key_PageDown);
    QCOMPARE(view->group(), std::string("build"));
    QChart* build = view->chartView()->chart();
    QVERIFY(!build->axes(Qt::Vertical).front()->property("perflab_log").toBool());
    QVERIFY(!series_named(build, "interpolate")->isVisible());
    QVERIFY(series_named(build, "iolist")->isVisible());
    // And back: log again.
    QTest::keyClick(view, Qt::Key_PageUp);
    QCOMPARE(view->group(), std::string("append"));
    check_log();
    QTest::keyClick(view, Qt::Key_Escape);
    QTRY_VERIFY(!view->isVisible());
  }

  void thePlotTakesMostOfTheScreen() {
    const Run run = presented_run();
    for (QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
      auto view = viewAt(size, run, "append");
      QVERIFY(view);
      // The plot, not the chart with its axes: at least 55% of the height.
      const QRect plot = plot_rect(view->chartView(), view.get());
      QVERIFY2(plot.height() >= 0.55 * size.height(),
               qPrintable(QString("plot %1 px of %2").arg(plot.height()).arg(size.height())));
      QVERIFY(plot.width() >= 0.5 * size.width());
      // The description in one line, the rest a key away (which the footer says).
      QLabel* description = view->descriptionLabel();
      const int line = description->fontMetrics().lineSpacing();
      QVERIFY(description->height() < 2 * line);
      QVERIFY(description->text().endsWith(QChar(0x2026)));
      QVERIFY(view->footerLabel()->text().contains("D for the whole description"));
      QTest::keyClick(view.get(), Qt::Key_D);
      QTRY_VERIFY(description->height() >= 3 * line);
      QCOMPARE(description->text(), QString::fromStdString(kLongDescription));
      QTest::keyClick(view.get(), Qt::Key_D);
      QTRY_VERIFY(description->height() < 2 * line);
    }
  }

  void showsTheChartsOwnFindingsAndTheNote() {
    auto view = viewAt({1280, 800}, presented_run(), "append");
    QVERIFY(view);
    // The run's note in the title and the window's title.
    QVERIFY2(view->titleLabel()->text().contains("Lecture 3, on battery"),
             qPrintable(view->titleLabel()->text()));
    QVERIFY(view->windowTitle().contains("Lecture 3, on battery"));
    QTextBrowser* findings = view->findingsView();
    QCOMPARE(view->findingIds(), (std::vector<std::string>{"append_1.share", "append_100.share"}));
    QVERIFY(findings->isVisible());
    QVERIFY(findings->toPlainText().contains("share of the first append"));
    QVERIFY(findings->toPlainText().contains("share of the hundredth append"));
    QVERIFY(!findings->toPlainText().contains("share of the build"));
    QVERIFY(!findings->toPlainText().contains("steal time"));
    QVERIFY(view->chartView()->width() < 0.8 * view->width());
    QTest::keyClick(view.get(), Qt::Key_Right);
    QCOMPARE(view->group(), std::string("build"));
    QCOMPARE(view->findingIds(), std::vector<std::string>{"build.share"});
    QVERIFY(findings->toPlainText().contains("share of the build"));
    QVERIFY(!findings->toPlainText().contains("append"));
    // A chart without findings: no panel, the chart takes the whole width.
    QTest::keyClick(view.get(), Qt::Key_Right);
    QCOMPARE(view->group(), std::string("keys"));
    QVERIFY(view->findingIds().empty());
    QTRY_VERIFY(!findings->isVisible());
    QTRY_VERIFY(view->chartView()->width() >= 0.9 * view->width());
  }
};

QTEST_MAIN(PresentationTest)
#include "test_presentation.moc"
