// The perflab window with saved runs (no server needed), on the offscreen platform: first-start
// layout, title, choosing another experiment, the presentation view, the parameter form,
// `perflab RUN.json` (History and Compare from it: test_history.cpp).
#include <functional>

#include <QBarSeries>
#include <QBarSet>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QHelpEvent>
#include <QLabel>
#include <QLineSeries>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTimer>
#include <QToolTip>
#include <QtTest>

#include "chart_panel.h"
#include "common/run_io.h"
#include "compare_page.h"
#include "fresh_window.h"
#include "history_page.h"
#include "main_window.h"
#include "models/history_model.h"
#include "models/value_text.h"
#include "muted_text.h"
#include "param_form.h"
#include "presentation_view.h"
#include "report/report.h"
#include "report/teaching.h"
#include "sample_runs.h"
#include "waits.h"

using namespace perflab;
using namespace perflab::gui;

namespace {

// A sharding-like run: a numeric pipeline sweep whose series names differ only at their ends
// (what a truncating legend cuts), and a categorical chart.
Run sweep_run() {
  Run run;
  run.experiment = "sharding";
  run.title = "Sharding";
  run.status = RunStatus::Finished;
  run.started_unix_ms = 1796000000000;
  run.ended_unix_ms = 1796000083000;
  run.params = {{"clients", "10"}, {"depths", "1,2,4,8,16"}};
  run.ensure_group({"sweep_set", "SET through the proxy, by pipeline depth", "req/s",
                    "pipeline depth (-P)", true, false, "Requests per second."});
  run.ensure_group({"keys", "Keys per node", "keys", "", false, false, "How keys spread."});
  run.groups[0].log_x = run.groups[0].log_y = true;  // as the sharding experiment declares
  run.groups[0].headline = true;
  const char* names[] = {"direct redis",      "coalesced+nodelay",     "coalesced",
                         "per-reply+nodelay", "per-reply, no nodelay", "twemproxy"};
  int i = 0;
  for (const char* n : names) {
    ++i;
    for (double d : {1.0, 2.0, 4.0, 8.0, 16.0}) {
      const double v = 10000.0 * i * d;
      run.add_point("sweep_set", n,
                    test::sample_point(std::to_string(int(d)), {v, v * 1.01, v * 0.99}, d));
    }
  }
  for (const char* node : {"node 1", "node 2", "node 3", "node 4"})
    run.add_point("keys", "modula", test::sample_point(node, {2500, 2500, 2500}));
  Finding collapse = figure_finding(
      {.id = "collapse_p2.set", .what = "SET at -P 2: per-reply / coalesced", .group = "sweep_set"},
      0.0081);
  collapse.claim = claim_below(0.0075, 1.0 / 30);
  generate_text(collapse);
  run.findings.push_back(collapse);
  return run;
}

// Calls `painted(size)` with a widget's size at each of its paints, while it lives.
class PaintSizes : public QObject {
 public:
  PaintSizes(QWidget* widget, std::function<void(QSize)> painted)
      : widget_(widget), painted_(std::move(painted)) {
    widget_->installEventFilter(this);
  }
  ~PaintSizes() override { widget_->removeEventFilter(this); }
  bool eventFilter(QObject* watched, QEvent* e) override {
    if (watched == widget_ && e->type() == QEvent::Paint) painted_(widget_->size());
    return false;
  }

 private:
  QWidget* widget_;
  std::function<void(QSize)> painted_;
};

}  // namespace

class WindowTest : public QObject, test::SavedRunsWindows {
  Q_OBJECT

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void firstStartGivesTheSidePanelAShareOfTheWidth() {
    for (QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
      auto w = freshWindow(size);
      QVERIFY(w);
      auto* dock = w->findChild<QDockWidget*>("teachingDock");
      QVERIFY(dock && dock->isVisible());
      QTRY_VERIFY_WITH_TIMEOUT(dock->width() >= w->width() / 5,
                               test::kWaitMs);   // not a column of single letters
      QVERIFY(dock->width() <= w->width() / 2);  // and the chart keeps the most
      QVERIFY(w->resultsPanel()->chartView()->width() >= w->width() * 2 / 5);
    }
  }

  void aRunFileOpensWithoutBlockingTheWindow() {
    // Read on a worker thread: the window's event loop keeps turning while a large run is read,
    // then the run is on show; a file that is not a run leaves the shown run alone and says why.
    auto w = freshWindow();
    QVERIFY(w);
    Run big = test::sample_run();
    for (int i = 0; i < 3000; ++i) {
      Point p;
      p.label = "extra " + std::to_string(i);
      p.samples = {1.0 + i, 1.1 + i, 0.9 + i};
      big.add_point("append", "bulk", std::move(p));
    }
    const QString path = dir_.filePath("big-open.json");
    save_run(big, path.toStdString());
    int ticks = 0;
    QTimer tick;
    QObject::connect(&tick, &QTimer::timeout, [&] { ++ticks; });
    tick.start(1);
    QSignalSpy opened(w.get(), &MainWindow::runOpened);
    w->openRunInBackground(path);
    QVERIFY(w->opening());
    QVERIFY(w->statusText().contains("opening big-open.json"));
    QVERIFY(opened.wait(120000));
    QCOMPARE(opened.front().at(0).toBool(), true);
    QVERIFY(ticks > 0);  // the loop ran while the file was read
    QVERIFY(!w->opening());
    QCOMPARE(w->currentRunPath(), path);
    QVERIFY(w->currentRun().find_point("append", "bulk", "extra 2999"));
    QVERIFY(w->windowTitle().startsWith("big-open — "));

    const QString junk = dir_.filePath("not-a-run.json");
    write_file_atomically(junk.toStdString(), "{\"experiment\": 3}");
    opened.clear();
    w->openRunInBackground(junk);
    QVERIFY(opened.wait(60000));
    QCOMPARE(opened.front().at(0).toBool(), false);
    QVERIFY(opened.front().at(1).toString().contains("not-a-run.json"));
    QVERIFY(w->bannerText().contains("Cannot open not-a-run.json"));
    QCOMPARE(w->currentRunPath(), path);  // the run on show stays
    // Two requests in a row: the last one asked for is shown.
    const QString small = saveRun(*w, test::sample_run(0.5));
    opened.clear();
    w->openRunInBackground(path);
    w->openRunInBackground(small);
    QTRY_COMPARE_WITH_TIMEOUT(w->currentRunPath(), small, 120000);
    QCOMPARE(opened.size(), 1);
  }

  void aLargeRunGoesOnShowInTurnsOfTheEventLoop() {
    // 20,000 points: the headline chart first (the table and the side panel's figures say they
    // are loading), then the side panel, then the table, with the event loop turning between;
    // in the end every point is in the chart and the table.
    auto w = freshWindow();
    QVERIFY(w);
    Run big;
    big.experiment = "iolist";
    big.title = "IO lists";
    big.status = RunStatus::Finished;
    big.ensure_group({"sweep", "A long sweep", "us/op", "events", true, true, "Synthetic."});
    for (const char* n : {"interpolate", "iolist", "prepared", "copy"})
      for (int i = 1; i <= 5000; ++i) {
        const double v = 10.0 * i;
        big.add_point("sweep", n,
                      test::sample_point(std::to_string(i), {v, v * 1.01, v * 0.99}, i));
      }
    const QString path = dir_.filePath("twenty-thousand.json");
    save_run(big, path.toStdString());
    int ticks = 0, ticks_at_chart = -1;
    QTimer tick;
    QObject::connect(&tick, &QTimer::timeout, [&] { ++ticks; });
    tick.start(1);
    bool loading_at_chart = false;
    QString loading_text;
    auto* panel = w->resultsPanel();
    QObject::connect(w.get(), &MainWindow::runOpened, [&](bool ok) {
      if (!ok) return;
      ticks_at_chart = ticks;
      loading_at_chart =
          panel->tableLoading() && panel->table()->isHidden() && w->teachingPanel()->runLoading();
      loading_text = panel->findChild<QLabel*>("tableLoading")->text();
    });
    // The chart's first paint is at the size it keeps once the table is on show: the table
    // taking the loading line's place resizes nothing (a resized chart is laid out and painted
    // again, its 20,000 error bars too).
    QSize first_paint;
    PaintSizes sizes(panel->chartView()->viewport(), [&](QSize at) {
      if (ticks_at_chart >= 0 && first_paint.isEmpty()) first_paint = at;
    });
    QSignalSpy shown(w.get(), &MainWindow::runShown);
    w->openRunInBackground(path);
    QVERIFY(shown.wait(120000));  // a bound that proves "does not hang", not a speed
    QVERIFY(ticks_at_chart >= 0);
    QVERIFY(!first_paint.isEmpty());
    QApplication::sendPostedEvents();  // the layouts the table's showing asked for
    QCOMPARE(panel->chartView()->viewport()->size(), first_paint);
    QVERIFY(loading_at_chart);
    QCOMPARE(loading_text, QString("Loading the table of 20,000 points…"));
    QVERIFY(ticks > ticks_at_chart);  // the timer fired between the chart and the rest
    // Complete: the chart's four lines run from the first point to the last (drawn with what
    // the plot's pixel columns show), the table holds every row.
    int lines = 0;
    for (auto* s : panel->chart()->series())
      if (auto* line = qobject_cast<QLineSeries*>(s)) {
        ++lines;
        const QStringList labels = line->property("perflab_labels").toStringList();
        QCOMPARE(labels.size(), line->count());
        QCOMPARE(labels.front(), QString("1"));
        QCOMPARE(labels.back(), QString("5000"));
      }
    QCOMPARE(lines, 4);
    QVERIFY(!panel->tableLoading());
    QVERIFY(panel->table()->isVisible());
    QCOMPARE(panel->table()->model()->rowCount(), 20000);
    QCOMPARE(&panel->run(), &w->currentRun());  // shared as it was read, not copied
    QVERIFY(!w->teachingPanel()->runLoading());
    QVERIFY(!w->teachingPanel()->toPlainText().contains("Loading this run"));
    QVERIFY(panel->chartView()->updatesEnabled());  // its paint waited a turn, no longer

    // Another run put on show before the slices ran: they are dropped (the last one wins).
    const QString small = saveRun(*w, test::sample_run(0.5));
    shown.clear();
    bool switched = false;
    auto c = QObject::connect(w.get(), &MainWindow::runOpened, [&](bool ok) {
      if (ok && !switched) {
        switched = true;
        QVERIFY(w->openRun(small));  // before the big run's remaining turns
      }
    });
    w->openRunInBackground(path);
    QTRY_VERIFY_WITH_TIMEOUT(switched, 120000);
    QTest::qWait(300);
    QObject::disconnect(c);
    QCOMPARE(shown.size(), 0);  // the big run's rest never came
    QCOMPARE(w->currentRunPath(), small);
    QVERIFY(!panel->tableLoading());
    QVERIFY(!w->teachingPanel()->runLoading());
    int rows = 0;  // the small run's points of the chart on show
    for (const auto& s : test::sample_run(0.5).series)
      if (s.group == panel->group()) rows += int(s.points.size());
    QVERIFY(rows > 0);
    QCOMPARE(panel->table()->model()->rowCount(), rows);
    QVERIFY(panel->table()->isVisible());
    QVERIFY(panel->chartView()->updatesEnabled());
  }

  void titleNamesTheRunAndAnotherExperimentClearsIt() {
    auto w = freshWindow();
    QVERIFY(w);
    QCOMPARE(w->windowTitle(), QString("Perflab"));
    const QString path = saveRun(*w, test::sample_run());
    QVERIFY(w->openRun(path));
    QVERIFY(w->windowTitle().startsWith(QFileInfo(path).completeBaseName() + " — "));
    QVERIFY(w->windowTitle().endsWith("Perflab"));
    QVERIFY(w->resultsPanel()->hasRun());
    QVERIFY(!w->statusText().isEmpty());
    // Another experiment: the previous run's chart, banner, progress and time go.
    QVERIFY(w->selectExperiment("sharding"));
    QVERIFY(!w->resultsPanel()->hasRun());
    QVERIFY(w->bannerText().isEmpty());
    QCOMPARE(w->statusText(), QString("Ready."));
    QCOMPARE(w->progressBar()->value(), 0);
    QCOMPARE(w->windowTitle(), QString("Perflab"));
  }

  void presentationViewFillsTheScreenAndStepsThroughTheCharts() {
    auto w = freshWindow();
    QVERIFY(w);
    const QString path = saveRun(*w, sweep_run());
    QVERIFY(w->openRun(path));
    w->resultsPanel()->setGroup("sweep_set");
    QTest::keyClick(w.get(), Qt::Key_F11);
    PresentationView* view = w->presentationView();
    QVERIFY(view);
    QTRY_VERIFY_WITH_TIMEOUT(view->isVisible(), test::kWaitMs);
    QVERIFY(w->presentation());
    QVERIFY(view->isFullScreen());
    QCOMPARE(view->group(), std::string("sweep_set"));
    // The title and the legend wrap outside the chart: every series' whole name is there.
    QVERIFY(view->titleLabel()->text().contains("by pipeline depth"));
    QVERIFY(view->titleLabel()->wordWrap() && view->legendLabel()->wordWrap());
    for (const char* n : {"coalesced+nodelay", "per-reply+nodelay", "per-reply, no nodelay"})
      QVERIFY2(view->legendLabel()->text().contains(QString(n).toHtmlEscaped()), n);
    QVERIFY(!view->chartView()->chart()->legend()->isVisible());
    QVERIFY(view->findingsView()->toPlainText().contains("per-reply / coalesced"));
    // Fonts for the back row, and the chart takes most of the screen.
    QVERIFY(view->titleLabel()->font().pointSizeF() >= 24);
    QVERIFY(view->chartView()->width() > view->width() / 2);
    // A clicker's PageDown / arrow keys step; the window's chart follows.
    QTest::keyClick(view, Qt::Key_PageDown);
    QCOMPARE(view->group(), std::string("keys"));
    QCOMPARE(w->resultsPanel()->group(), std::string("keys"));
    QTest::keyClick(view, Qt::Key_Right);  // at the end: stays
    QCOMPARE(view->group(), std::string("keys"));
    QTest::keyClick(view, Qt::Key_Left);
    QCOMPARE(view->group(), std::string("sweep_set"));
    QTest::keyClick(view, Qt::Key_Escape);
    QTRY_VERIFY_WITH_TIMEOUT(!view->isVisible(), test::kWaitMs);
    QVERIFY(!w->presentation());
  }

  void parameterFormReadsAsWordsAndFitsNarrowWindows() {
    auto w = freshWindow({1024, 700});
    QVERIFY(w);
    for (const char* id : {"iolist", "sharding", "caching"}) {
      QVERIFY(w->selectExperiment(id));
      QApplication::processEvents();
      auto* scroll = w->findChild<QScrollArea*>();
      for (auto* s : w->findChildren<QScrollArea*>())
        if (s->widget() == w->paramForm()) scroll = s;
      QVERIFY(scroll->widget() == w->paramForm());
      QTRY_COMPARE_WITH_TIMEOUT(scroll->horizontalScrollBar()->maximum(), 0,
                                test::kWaitMs);  // nothing cut on the right
    }
    QVERIFY(w->selectExperiment("iolist"));
    auto* label = w->paramForm()->findChild<QLabel*>("label_build_sample_ms");
    QVERIFY(label);
    QCOMPARE(label->text(), QString("Build sample:"));
    QVERIFY(label->toolTip().contains("build_sample_ms"));  // the id, for perflab-cli --param
    auto* spin = qobject_cast<QSpinBox*>(w->paramForm()->field("build_sample_ms"));
    QVERIFY(spin);
    QCOMPARE(spin->suffix(), QString(" ms"));  // the unit once, beside the value
    QVERIFY(w->selectExperiment("caching"));
    for (auto* l : w->paramForm()->findChildren<QLabel*>())
      QVERIFY2(!l->text().contains("e+15"), qPrintable(l->text()));
  }

  void runOpensOnItsHeadlineChartAndHoverShowsTheExactFigures() {
    auto w = freshWindow();
    QVERIFY(w);
    Run run = sweep_run();
    std::swap(run.groups[0], run.groups[1]);  // the headline is not the first chart
    const QString path = saveRun(*w, run);
    QVERIFY(w->openRun(path));
    ChartPanel* panel = w->resultsPanel();
    QCOMPARE(panel->group(), std::string("sweep_set"));
    QVERIFY(panel->logXBox()->isChecked() && panel->logYBox()->isChecked());
    // Title and legend wrap beside the chart: whole names, never "coalesced+n…".
    QVERIFY(panel->titleLabel()->text().contains("by pipeline depth"));
    QVERIFY(panel->titleLabel()->wordWrap() && panel->legendLabel()->wordWrap());
    for (const char* n : {"coalesced+nodelay", "per-reply+nodelay", "per-reply, no nodelay"})
      QVERIFY2(panel->legendLabel()->text().contains(QString(n).toHtmlEscaped()), n);
    // A click on a name hides its series (and strikes it out), a second shows it again.
    emit panel->legendLabel()->linkActivated("1");
    QCOMPARE(panel->options().hidden_series, std::set<std::string>{"coalesced+nodelay"});
    QVERIFY(panel->legendLabel()->text().contains(
        "<s style='color:" + muted_text(QGuiApplication::palette()).name() +
        "'>coalesced+nodelay"));
    emit panel->legendLabel()->linkActivated("1");
    QVERIFY(panel->options().hidden_series.empty());
    // The mouse over a point of "coalesced" at -P 4: its tooltip has the exact figures.
    QLineSeries* line = nullptr;
    for (auto* s : panel->chart()->series())
      if (s->property("perflab_series").toString() == "coalesced")
        line = qobject_cast<QLineSeries*>(s);
    QVERIFY(line);
    const QStringList labels = line->property("perflab_labels").toStringList();
    const int i = static_cast<int>(labels.indexOf("4"));
    QVERIFY(i >= 0);
    QChartView* view = panel->chartView();
    QTRY_VERIFY_WITH_TIMEOUT(view->isVisible(), test::kWaitMs);
    const QPointF scene = panel->chart()->mapToPosition(line->at(i), line);
    const QPoint at = view->mapFromScene(scene);
    QTest::mouseMove(view->viewport(), at + QPoint(1, 0));
    QTest::mouseMove(view->viewport(), at);
    // What Qt sends once the mouse rests there (a real X server does; offscreen, sent here).
    QHelpEvent rest(QEvent::ToolTip, at, view->viewport()->mapToGlobal(at));
    QApplication::sendEvent(view->viewport(), &rest);
    const Point* p = run.find_point("sweep_set", "coalesced", "4");
    QTRY_VERIFY_WITH_TIMEOUT(QToolTip::isVisible(), test::kWaitMs);
    const QString tip = QToolTip::text();
    QVERIFY2(tip.contains("coalesced") && tip.contains(format_value(p->stats.median)),
             qPrintable(tip));
    QVERIFY(tip.contains("samples: 3"));  // n
    QVERIFY(tip.contains(format_value(p->stats.p95)));
    // A bar: the middle of "node 2"'s bar answers with its figures; the empty corner nothing.
    panel->setGroup("keys");
    QBarSeries* bars = nullptr;
    for (auto* s : panel->chart()->series())
      if (auto* b = qobject_cast<QBarSeries*>(s)) bars = b;
    QVERIFY(bars);
    const QPointF middle = panel->chart()->mapToPosition({1.0, 1250.0}, bars);
    QVERIFY2(panel->tooltipAt(view->mapFromScene(middle)).contains("node 2"),
             qPrintable(panel->tooltipAt(view->mapFromScene(middle))));
    QVERIFY(panel->tooltipAt(QPoint(2, 2)).isEmpty());
  }

  void reportHoldsEveryChartTheArticleTableAndTheFacts() {
    Run run = sweep_run();
    run.host.cpu_model = "Test CPU 9000";
    std::vector<ReportImage> images;
    const QString html = report_html(run, &images);
    QCOMPARE(images.size(), std::size_t(2));  // every chart of the run
    for (const auto& im : images) {
      QVERIFY(!im.image.isNull());
      QVERIFY(html.contains("src='" + im.name + "'"));
    }
    QVERIFY(html.contains("What it demonstrates"));         // the teaching text
    QVERIFY(html.contains("The article beside this run"));  // the findings with the article's
    QVERIFY(html.contains("SET at -P 2: per-reply / coalesced"));
    QVERIFY(html.contains("depths") && html.contains("1,2,4,8,16"));  // the parameters
    QVERIFY(html.contains("Test CPU 9000"));                          // the host
    QVERIFY(report_pdf(run).startsWith("%PDF-"));
    QVERIFY(report_html_page(run).contains("data:image/png;base64,"));
  }

  void narrowPanelStacksTheFindings() {
    // Five columns in a 300 px panel wrap a letter per line: there each finding is a block; with
    // room it is the table again, decided on resize.
    Run run = test::sample_run();
    QVERIFY(!run.findings.empty());
    TeachingPanel panel;
    panel.resize(320, 700);
    panel.show();
    panel.setExperiment("iolist", "IO lists", "");
    panel.setRun(std::make_shared<const Run>(run));
    QVERIFY(!panel.toHtml().contains("this run [interval] (level)</th>") &&
            !panel.toHtml().contains("this run [interval] (level)</span></th>"));
    QVERIFY(panel.toPlainText().contains("this run: "));
    panel.resize(900, 700);
    QTRY_VERIFY_WITH_TIMEOUT(!panel.toPlainText().contains("this run: "), test::kWaitMs);
    QVERIFY(panel.toPlainText().contains(QString::fromStdString(run.findings.front().text)));
  }

  void stoppedRunWithoutFiguresSaysWhy() {
    Run run = test::sample_run();
    run.status = RunStatus::Cancelled;
    run.findings.clear();
    const QString html = findings_html(run);
    QVERIFY(!html.contains("no derived figures yet"));
    QVERIFY(html.contains("cancelled"));
  }

  void perflabOpensARunFileAndSavesAScreenshot() {
    const QString run = dir_.filePath("open-me.json");
    save_run(sweep_run(), run.toStdString());
    const QString png = dir_.filePath("open-me.png");
    QProcess p;
    p.setProcessEnvironment(QProcessEnvironment::systemEnvironment());
    p.start(PERFLAB_GUI,
            {"--history-dir", dir_.filePath("cli-history"), "--settings", dir_.filePath("cli.ini"),
             run, "--screenshot", png, "--size", "1280x800", "--group", "keys"});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 0);
    QImage img(png);
    QCOMPARE(img.size(), QSize(1280, 800));
    // A file that is not a run: one line, exit 2, no picture.
    const QString junk = dir_.filePath("junk.json");
    write_file_atomically(junk.toStdString(), "{}");
    p.start(PERFLAB_GUI, {"--settings", dir_.filePath("cli.ini"), junk, "--screenshot",
                          dir_.filePath("junk.png")});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY(!QFile::exists(dir_.filePath("junk.png")));
    const QString err = QString::fromLocal8Bit(p.readAllStandardError());
    QCOMPARE(err.count("perflab:"), 1);  // one line saying why
  }
};

QTEST_MAIN(WindowTest)
#include "test_window.moc"
