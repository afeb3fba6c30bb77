// The presentation view and the Compare page on the offscreen platform, from what is painted:
// the view keeps the window's scales and hidden series chart by chart, gives the plot most of a
// 1280×800 screen, shows the chart's own findings (none: the chart takes the whole width) and
// the run's note; Compare keeps its legend off the plot, its table shows rows, and a refused
// comparison leaves nothing of the one before.
#include <cmath>

#include <QAbstractItemModel>
#include <QChartView>
#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QRegularExpression>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QValueAxis>
#include <QXYSeries>
#include <QtTest>

#include "chart_panel.h"
#include "compare_page.h"
#include "fresh_window.h"
#include "history_page.h"
#include "main_window.h"
#include "models/comparison_model.h"
#include "muted_text.h"
#include "presentation_view.h"
#include "sample_runs.h"
#include "waits.h"

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

// Two IO-list-like runs with 11 series each (22 in the overlay) and a breakdown whose labels
// differ between the runs (each side's points only in one run).
Run wide_run(double scale, const std::string& tag) {
  Run run;
  run.experiment = "iolist";
  run.title = "IO lists";
  run.status = RunStatus::Finished;
  run.started_unix_ms = 1796000000000 + static_cast<std::int64_t>(scale * 1000);
  run.ensure_group({"append", "Append 100 events", "us/op", "", false, true, kLongDescription});
  run.ensure_group({"breakdown", "Where an append's time goes", "%", "", false, true, "Phases."});
  const char* builders[] = {"interpolate", "iolist", "prepared", "unnest", "copy"};
  int i = 0;
  for (const char* b : builders)
    for (const std::string suffix : {"", " pipelined"}) {
      ++i;
      for (const char* w : {"single writer", "10 writers", "100 writers"}) {
        const double v = 1000.0 * i * scale;
        run.add_point("append", b + suffix, test::sample_point(w, {v, v * 1.01, v * 0.99}));
      }
    }
  run.add_point("append", "pgbench", test::sample_point("single writer", {900, 910, 890}));
  for (const char* phase : {"BEGIN", "INSERT", "COMMIT", "build"})
    for (const char* b : builders)
      run.add_point("breakdown", phase,
                    test::sample_point(std::string(b) + ", " + tag, {1, 1.1, 0.9}));
  return run;
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
    if (!QTest::qWaitForWindowExposed(view.get(), test::kWaitMs)) return nullptr;
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
    QTRY_VERIFY_WITH_TIMEOUT(view->isVisible(), test::kWaitMs);
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
    QTRY_VERIFY_WITH_TIMEOUT(!view->isVisible(), test::kWaitMs);
  }

  void thePlotTakesMostOfTheScreen() {
    Run run = wide_run(1.0, "old");  // eleven series: a legend of three lines
    run.note = "Lecture 3";
    for (QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
      auto view = viewAt(size, run, "append");
      QVERIFY(view);
      // The plot, not the chart with its axes: at least 55% of the height.
      const QRect plot = plot_rect(view->chartView(), view.get());
      QVERIFY2(plot.height() >= 0.55 * size.height(),
               qPrintable(QString("plot %1 px of %2").arg(plot.height()).arg(size.height())));
      QVERIFY(plot.width() >= 0.5 * size.width());
      // The description in two lines of whole words, each within the label (main cut it after
      // one), the rest a key away (which the footer says).
      QLabel* description = view->descriptionLabel();
      const int line = description->fontMetrics().lineSpacing();
      QVERIFY(description->height() < 3 * line);
      const QStringList lines = description->text().split('\n');
      QCOMPARE(lines.size(), 2);
      QVERIFY(QString::fromStdString(kLongDescription).startsWith(lines[0] + ' '));
      for (const QString& l : lines)
        QVERIFY2(description->fontMetrics().horizontalAdvance(l) <= description->width(),
                 qPrintable(l));
      QVERIFY(lines[1].endsWith(QChar(0x2026)));
      QVERIFY(view->footerLabel()->text().contains("D for the whole description"));
      QTest::keyClick(view.get(), Qt::Key_D);
      QTRY_VERIFY_WITH_TIMEOUT(description->height() >= 3 * line, test::kWaitMs);
      QCOMPARE(description->text(), QString::fromStdString(kLongDescription));
      QTest::keyClick(view.get(), Qt::Key_D);
      QTRY_VERIFY_WITH_TIMEOUT(description->height() < 3 * line, test::kWaitMs);
    }
  }

  // The navigation hint (main painted it grey on grey, about 1.7:1) and the note beside the title
  // read at WCAG's 4.5:1: the darkest painted text pixel against the label's background.
  void secondaryTextReadsAtRoomContrast() {
    auto view = viewAt({1280, 800}, presented_run(), "append");
    QVERIFY(view);
    for (QLabel* label : {view->footerLabel(), view->titleLabel()}) {
      const QImage img = label->grab().toImage();
      QVERIFY(!img.isNull());
      // The background: the most common colour; the text: the pixel farthest from it.
      QHash<QRgb, int> counts;
      for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) ++counts[img.pixel(x, y)];
      QRgb back = 0;
      int most = 0;
      for (auto it = counts.begin(); it != counts.end(); ++it)
        if (it.value() > most) most = it.value(), back = it.key();
      double best = 1;
      for (auto it = counts.begin(); it != counts.end(); ++it)
        best = std::max(best, contrast_ratio(QColor(it.key()), QColor(back)));
      QVERIFY2(best >= kMinTextContrast,
               qPrintable(label->objectName() + QString(": %1:1").arg(best)));
    }
    // The note's own colour (it is the title's second part, painted in a span of its own).
    const QColor note = muted_text(view->titleLabel()->palette());
    QVERIFY(view->titleLabel()->text().contains(note.name()));
    QVERIFY(contrast_ratio(note, view->titleLabel()->palette().color(QPalette::Window)) >=
            kMinTextContrast);
    // And in a dark palette too.
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2d, 0x2d, 0x2d));
    dark.setColor(QPalette::WindowText, QColor(0xee, 0xee, 0xee));
    QVERIFY(contrast_ratio(muted_text(dark), dark.color(QPalette::Window)) >= kMinTextContrast);
    QVERIFY(contrast_ratio(muted_text(dark), dark.color(QPalette::WindowText)) > 1.2);  // muted
  }

  // Ten long findings about one chart: what is shown is in view without scrolling (main cut the
  // last at the panel's bottom), no smaller than 12 pt, and the rest is counted.
  void theFindingsBesideTheChartFitTheScreen() {
    Run run = presented_run();
    for (int i = 0; i < 8; ++i)
      run.findings.push_back(about("many." + std::to_string(i), "append",
                                   "GET at 1000 req/s on 10 connections, Redis paused 200 ms "
                                   "every 1.5 s, the share of one measurement the server paused"));
    auto view = viewAt({1280, 800}, run, "append");
    QVERIFY(view);
    QTextBrowser* panel = view->findChild<QTextBrowser*>("presentationFindings");
    QVERIFY(panel && panel->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(panel->document()->size().height() <= panel->viewport()->height() ||
                                 panel->document()->defaultFont().pointSizeF() <= 12,
                             test::kWaitMs);
    QVERIFY2(panel->document()->size().height() <= panel->viewport()->height(),
             qPrintable(QString("%1 of %2 px at %3 pt")
                            .arg(panel->document()->size().height())
                            .arg(panel->viewport()->height())
                            .arg(panel->document()->defaultFont().pointSizeF())));
    QVERIFY(panel->document()->defaultFont().pointSizeF() >= 12);
    QVERIFY(panel->toPlainText().contains("the share of one measurement"));
    // Those that did not fit are counted, not cut.
    const QString text = panel->toPlainText();
    const QRegularExpression more("(\\d+) more findings? about this chart");
    const auto m = more.match(text);
    QVERIFY2(m.hasMatch(), qPrintable(text.right(200)));
    QVERIFY(m.captured(1).toInt() >= 1 && m.captured(1).toInt() < 10);
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
    QTRY_VERIFY_WITH_TIMEOUT(!findings->isVisible(), test::kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(view->chartView()->width() >= 0.9 * view->width(), test::kWaitMs);
    // A run file from before findings named their charts: all of them beside every chart.
    Run old = presented_run();
    for (auto& f : old.findings) f.group.clear();
    view->setRun(old, "keys");
    QCOMPARE(view->findingIds().size(), old.findings.size());
    QTRY_VERIFY_WITH_TIMEOUT(findings->isVisible(), test::kWaitMs);
  }

  void compareKeepsItsLegendOffThePlotAndItsTableFull() {
    auto w = test::fresh_window(dir_.path(), ++windows_);
    QVERIFY(w);
    const QString old_path = w->history().save(wide_run(1.0, "old"));
    const QString new_path = w->history().save(wide_run(1.1, "new"));
    w->historyPage()->refresh();
    ComparePage* cmp = w->comparePage();
    w->findChild<QTabWidget*>()->setCurrentWidget(cmp);
    QVERIFY(cmp->compareFiles(old_path, new_path));
    QVERIFY2(cmp->error().isEmpty(), qPrintable(cmp->error()));
    QApplication::processEvents();
    // The table shows at least 8 of its rows.
    QTableView* table = cmp->table();
    QTRY_VERIFY_WITH_TIMEOUT(table->isVisible(), test::kWaitMs);
    QVERIFY(table->model()->rowCount() >= 11);
    const int shown = table->viewport()->height() / table->rowHeight(0);
    QVERIFY2(shown >= 8, qPrintable(QString("%1 rows shown").arg(shown)));
    // The verdict whole in view (main cut it at the right edge); long names elided instead.
    QTRY_VERIFY_WITH_TIMEOUT(
        table->horizontalHeader()->sectionViewportPosition(ComparisonModel::VerdictColumn) >= 0 &&
            table->horizontalHeader()->sectionViewportPosition(ComparisonModel::VerdictColumn) +
                    table->horizontalHeader()->sectionSize(ComparisonModel::VerdictColumn) <=
                table->viewport()->width(),
        test::kWaitMs);
    // The chart: 22 series, the legend below the plot, never over it.
    QTabBar* tabs = cmp->views()->tabBar();
    int chart_tab = -1;
    for (int i = 0; i < tabs->count(); ++i)
      if (tabs->tabText(i).contains("Chart")) chart_tab = i;
    QVERIFY(chart_tab >= 0);
    QTest::mouseClick(tabs, Qt::LeftButton, {}, tabs->tabRect(chart_tab).center());
    ChartPanel* panel = cmp->chartPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->isVisible(), test::kWaitMs);
    panel->setGroup("append");
    QApplication::processEvents();
    QCOMPARE(panel->chart()->legend()->markers().size(), 22);
    QLabel* legend = panel->legendLabel();
    QVERIFY(legend->isVisible() && legend->text().contains("new: copy pipelined"));
    const QRect legend_rect(legend->mapTo(w.get(), QPoint(0, 0)), legend->size());
    const QRect plot = plot_rect(panel->chartView(), w.get());
    QVERIFY(plot.height() > 100);
    QVERIFY2(!legend_rect.intersects(plot), qPrintable(QString("legend y %1..%2, plot y %3..%4")
                                                           .arg(legend_rect.top())
                                                           .arg(legend_rect.bottom())
                                                           .arg(plot.top())
                                                           .arg(plot.bottom())));
    // A refused comparison leaves nothing of the one before.
    Run other = test::sample_run();
    other.experiment = "caching";
    QVERIFY(!cmp->compare(wide_run(1.0, "old"), other));
    QVERIFY(cmp->error().contains("different experiments"));
    QCOMPARE(table->model()->rowCount(), 0);
    QVERIFY(!panel->hasRun());
    QVERIFY(panel->chart()->series().isEmpty());
    QVERIFY(panel->legendLabel()->text().isEmpty());
    QVERIFY(cmp->comparisonText().isEmpty() || !cmp->comparisonText().contains("append"));
  }
};

QTEST_MAIN(PresentationTest)
#include "test_presentation.moc"
