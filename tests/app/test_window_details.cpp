// Small things of the perflab window that matter in front of a room, on the offscreen platform:
// the mouse wheel over the parameter form, quitting while managed servers run, --screenshot and
// the settings, the headline chart after a live run, Ctrl +/- and the fonts, a run's note, an
// error of the Targets page once back on managed servers.
#include <signal.h>

#include <filesystem>

#include <QtTest/qtestspontaneevent.h>
#include <QAbstractAxis>
#include <QChart>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

#include "background_stop.h"
#include "chart_panel.h"
#include "common/run_io.h"
#include "file_bytes.h"
#include "font_zoom.h"
#include "guides_window.h"
#include "history_page.h"
#include "main_window.h"
#include "models/history_model.h"
#include "param_form.h"
#include "sample_runs.h"
#include "targets_page.h"
#include "waits.h"

using namespace perflab;
using namespace perflab::gui;

namespace {

using test::read_all;

// A wheel turn over `w` delivered as the window system delivers one (spontaneous: an event the
// widget ignores goes on to its parents).
void wheel(QWidget* w, int angle) {
  const QPointF pos = QRectF(w->rect()).center();
  QWheelEvent e(pos, w->mapToGlobal(pos), QPoint(), QPoint(0, angle), Qt::NoButton, Qt::NoModifier,
                Qt::NoScrollPhase, false);
  QSpontaneKeyEvent::setSpontaneous(&e);
  qApp->notify(w, &e);
}

// The point size of the chart's first axis labels.
double axis_label_points(const ChartPanel* panel) {
  const QChart* chart = panel->chart();
  return chart && !chart->axes().isEmpty() ? chart->axes().front()->labelsFont().pointSizeF() : 0;
}

bool process_gone(pid_t pid) {
  return !std::filesystem::exists("/proc/" + std::to_string(pid));
}

}  // namespace

class WindowDetailsTest : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

  WindowOptions options(const QString& name) const {
    return {dir_.filePath(name + "-history"), dir_.filePath(name + ".ini")};
  }

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void wheelChangesOnlyAFocusedField() {
    MainWindow w(options("wheel"));
    QVERIFY(w.selectExperiment("sharding"));
    w.resize(1280, 560);  // the form is taller than its scroll area
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w, test::kWaitMs));
    auto* nodes = qobject_cast<QSpinBox*>(w.paramForm()->field("nodes"));
    QVERIFY(nodes);
    auto* scroll = qobject_cast<QScrollArea*>(w.paramForm()->parentWidget()->parentWidget());
    QVERIFY(scroll);
    QVERIFY(scroll->verticalScrollBar()->maximum() > 0);
    scroll->verticalScrollBar()->setValue(0);
    const int value = nodes->value(), scrolled = scroll->verticalScrollBar()->value();

    w.setFocus();
    QVERIFY(!nodes->hasFocus());
    wheel(nodes, -120);  // scrolling down over the field, which has no focus
    QCOMPARE(nodes->value(), value);
    QVERIFY2(scroll->verticalScrollBar()->value() > scrolled, "the form scrolls instead");
    QVERIFY(!nodes->hasFocus());  // the wheel gives no focus either

    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w, test::kWaitMs));
    nodes->setFocus();
    QVERIFY(nodes->hasFocus());
    wheel(nodes, 120);  // clicked into first: the wheel changes it
    QCOMPARE(nodes->value(), value + 1);
  }

  // Help had only About: F1 opens the guides of docs/ in the window, at the chosen experiment's
  // page; the list and the links lead to the others, read from what the browser shows.
  void f1OpensTheGuidesAtTheExperimentsPage() {
    MainWindow w(options("guides"));
    QVERIFY(w.selectExperiment("sharding"));
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w, test::kWaitMs));
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w, test::kWaitMs));
    QTest::keyClick(&w, Qt::Key_F1);
    GuidesWindow* g = w.guidesWindow();
    QVERIFY(g);
    QTRY_VERIFY_WITH_TIMEOUT(g->isVisible(), test::kWaitMs);
    QCOMPARE(g->page(), QString("sharding.md"));
    const QString text = g->browser()->toPlainText();
    QVERIFY2(text.contains("The demonstration plans"), qPrintable(text.left(200)));
    QVERIFY(!text.contains("](sharding.md"));  // rendered markdown, not its source
    // The list: "Reading a result" shows verdicts.md.
    const auto found = g->pages()->findItems("Reading a result", Qt::MatchExactly);
    QCOMPARE(found.size(), 1);
    const QRect r = g->pages()->visualItemRect(found.front());
    QTest::mouseClick(g->pages()->viewport(), Qt::LeftButton, {}, r.center());
    QCOMPARE(g->page(), QString("verdicts.md"));
    QVERIFY(g->browser()->toPlainText().contains("A tool's own error"));
    // A link to another guide is followed inside the window, and the list follows.
    g->browser()->setSource(QUrl("lecture.md"));
    QCOMPARE(g->page(), QString("lecture.md"));
    QCOMPARE(g->pages()->currentItem()->text(), QString("Lecture plans"));
    QVERIFY(!g->showPage("no-such-page.md"));
  }

  void quitReturnsAtOnceWhileServersStop() {
    auto* w = new MainWindow(options("quit"));
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w, test::kWaitMs));
    pid_t pid = -1;
    std::filesystem::path folder;
    {
      std::shared_ptr<Targets> targets = w->targets();
      targets->redis(1);  // a managed server, started now
      ManagedRedis* redis = targets->managed_redis().front();
      pid = redis->pid();
      folder = redis->dir();
    }
    QVERIFY(pid > 0 && !process_gone(pid) && std::filesystem::exists(folder));
    // A server that does not answer its stop: it is killed after its grace of 5 s.
    QCOMPARE(kill(pid, SIGSTOP), 0);
    QElapsedTimer quitting;
    quitting.start();
    QVERIFY(w->close());
    delete w;
    // The window did not wait for the stop: the frozen server is still there (its stop ends only
    // with the kill after its grace). Behaviour, not a wall-clock bound; the time is reported.
    qInfo("quit returned after %lld ms", static_cast<long long>(quitting.elapsed()));
    QVERIFY(!process_gone(pid));
    // ... and yet it goes, with its folder: waited for in the background.
    QTRY_VERIFY_WITH_TIMEOUT(process_gone(pid) && !std::filesystem::exists(folder), test::kWaitMs);
    wait_for_background_stops();
  }

  void screenshotLeavesTheSettingsAsTheyAre() {
    const QString run = dir_.filePath("shot-run.json");
    save_run(test::sample_run(), run.toStdString());
    const QString ini = dir_.filePath("shot.ini");
    {
      QSettings s(ini, QSettings::IniFormat);
      s.setValue("view/dark", false);
      s.setValue("run/experiment", "caching");
    }
    const QByteArray before = read_all(ini);
    QVERIFY(!before.isEmpty());
    for (const QString& settings : {ini, dir_.filePath("absent.ini")}) {
      QProcess p;
      p.setProcessEnvironment(QProcessEnvironment::systemEnvironment());
      p.start(PERFLAB_GUI,
              {"--history-dir", dir_.filePath("shot-history"), "--settings", settings, run,
               "--screenshot", dir_.filePath("shot.png"), "--size", "1500x900", "--log"});
      QVERIFY(p.waitForFinished(120000));
      QCOMPARE(p.exitCode(), 0);
      QCOMPARE(QImage(dir_.filePath("shot.png")).size(), QSize(1500, 900));
    }
    QCOMPARE(read_all(ini), before);  // no geometry, experiment or scale written
    QVERIFY(!QFile::exists(dir_.filePath("absent.ini")));
  }

  void aLiveRunEndsOnItsHeadlineChart() {
    MainWindow w(options("live"));
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.selectExperiment("sharding"));
    // The key distribution is measured first (its chart comes first), then a tiny sweep on a
    // managed Redis: the sweep's first test is the headline.
    const auto refused = w.paramForm()->setValues({{"sweep", "true"},
                                                   {"nodes", "1"},
                                                   {"variants", "direct"},
                                                   {"tests", "set,get"},
                                                   {"depths", "1"},
                                                   {"requests", "200"},
                                                   {"repetitions", "1"},
                                                   {"point_budget_s", "0.2"},
                                                   {"distribution_keys", "1000"},
                                                   {"demonstration", "none"}});
    QVERIFY(refused.empty());
    QSignalSpy updated(w.resultsPanel(), &ChartPanel::chartRebuilt);
    QSignalSpy done(&w, &MainWindow::runFinished);
    QString error;
    QVERIFY2(w.startRun(&error), qPrintable(error));
    QVERIFY(done.wait(240000));
    const Run run = done.front().front().value<Run>();
    QCOMPARE(run.status, RunStatus::Finished);
    const std::string headline = charts::headline_group(run);
    QVERIFY(run.group(headline) && run.group(headline)->headline);
    QVERIFY(charts::chart_groups(run).front() != headline);  // not the chart shown first
    QCOMPARE(w.resultsPanel()->group(), headline);
    QCOMPARE(w.resultsPanel()->titleLabel()->text(),
             QString::fromStdString(run.group(headline)->title));
  }

  void ctrlPlusAndMinusScaleTheWindowAndChartFonts() {
    const QString ini = options("zoom").settings_file;
    {
      MainWindow w(options("zoom"));
      w.resize(1280, 800);
      w.show();
      QVERIFY(QTest::qWaitForWindowActive(&w, test::kWaitMs));
      save_run(test::sample_run(), dir_.filePath("zoom-run.json").toStdString());
      QVERIFY(w.openRun(dir_.filePath("zoom-run.json")));
      const double window_pt = w.font().pointSizeF(),
                   chart_pt = axis_label_points(w.resultsPanel());
      const double label_pt = w.paramForm()->findChild<QLabel*>()->font().pointSizeF();
      QVERIFY(chart_pt > 0);
      QTest::keyClick(&w, Qt::Key_Plus, Qt::ControlModifier);
      QTest::keyClick(&w, Qt::Key_Plus, Qt::ControlModifier);
      QCOMPARE(w.fontZoom()->scale(), 1.3);
      QCOMPARE(w.font().pointSizeF(), window_pt * 1.3);
      QCOMPARE(w.paramForm()->findChild<QLabel*>()->font().pointSizeF(), label_pt * 1.3);
      QCOMPARE(axis_label_points(w.resultsPanel()), chart_pt * 1.3);
      QTest::keyClick(&w, Qt::Key_Minus, Qt::ControlModifier);
      QCOMPARE(w.fontZoom()->scale(), 1.15);
      QCOMPARE(axis_label_points(w.resultsPanel()), chart_pt * 1.15);
      QTest::keyClick(&w, Qt::Key_0, Qt::ControlModifier);
      QCOMPARE(w.font().pointSizeF(), window_pt);
      QCOMPARE(axis_label_points(w.resultsPanel()), chart_pt);
      QTest::keyClick(&w, Qt::Key_Plus, Qt::ControlModifier);
      w.close();
    }
    MainWindow again(options("zoom"));  // remembered
    QCOMPARE(again.fontZoom()->scale(), 1.15);
    QCOMPARE(QSettings(ini, QSettings::IniFormat).value("view/font_scale").toDouble(), 1.15);
  }

  // After Ctrl+ twice, Ctrl- three times and Ctrl+0, no help text of the sharding form is cut
  // or runs into the next row (main left them laid out for the old font: clipped, overlapping).
  void zoomedFormKeepsEachHelpTextInItsRow() {
    MainWindow w(options("zoom-form"));
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w, test::kWaitMs));
    QVERIFY(w.selectExperiment("sharding"));
    for (auto [key, times] : {std::pair{Qt::Key_Plus, 2}, {Qt::Key_Minus, 3}, {Qt::Key_0, 1}})
      for (int i = 0; i < times; ++i) {
        QTest::keyClick(&w, key, Qt::ControlModifier);
        QApplication::processEvents();
      }
    QApplication::processEvents();
    ParamForm* form = w.paramForm();
    QList<QRect> cells;
    QString faults;
    for (const auto& spec : form->specs()) {
      QWidget* field = form->field(spec.name);
      if (!field || spec.name == "plan") continue;
      QWidget* cell = field->parentWidget();
      const QRect cell_rect(cell->mapTo(form, QPoint(0, 0)), cell->size());
      for (auto* help : cell->findChildren<QLabel*>()) {
        if (!help->wordWrap()) continue;
        // The help's text needs this height at its width; it has it, inside its row.
        const int needs = help->heightForWidth(help->width());
        if (help->height() < needs)
          faults += QString("%1: help %2 px tall, needs %3\n")
                        .arg(QString::fromStdString(spec.name))
                        .arg(help->height())
                        .arg(needs);
        const QRect r(help->mapTo(form, QPoint(0, 0)), help->size());
        if (!cell_rect.contains(r))
          faults += QString::fromStdString(spec.name) + ": help outside its row\n";
      }
      for (const QRect& other : cells)
        if (other.intersects(cell_rect))
          faults += QString::fromStdString(spec.name) + ": row over the one before\n";
      cells << cell_rect;
    }
    QVERIFY2(faults.isEmpty(), qPrintable(faults));
  }

  void aRunsNoteIsSavedAndShownInHistory() {
    MainWindow w(options("note"));
    w.show();
    Run run = test::sample_run();
    const QString path = w.history().save(run);
    QVERIFY(w.openRun(path));
    QString error;
    QVERIFY2(w.setRunNote("  shown to class 3B; noisy laptop \n", &error), qPrintable(error));
    QCOMPARE(w.currentRun().note, std::string("shown to class 3B; noisy laptop"));
    QCOMPARE(load_run(path.toStdString()).note, std::string("shown to class 3B; noisy laptop"));
    HistoryModel* model = w.historyPage()->model();
    const int row = model->rowOfPath(path);
    QVERIFY(row >= 0);
    QCOMPARE(model->index(row, HistoryModel::NoteColumn).data().toString(),
             QString("shown to class 3B; noisy laptop"));
    // The Note column may be scrolled out of sight: the name's tooltip tells it too.
    QVERIFY(model->index(row, HistoryModel::NameColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .endsWith("\nshown to class 3B; noisy laptop"));
    // From History: the selected run's note changes, the run on show follows.
    w.historyPage()->selectPath(path);
    QVERIFY(w.historyPage()->setNoteOfSelected("second try", &error));
    QCOMPARE(load_run(path.toStdString()).note, std::string("second try"));
    QCOMPARE(w.currentRun().note, std::string("second try"));
    // A fresh listing (the index rebuilt from the files) says the same.
    QFile::remove(QDir(w.history().dir()).filePath(RunHistory::kIndexName));
    w.historyPage()->refresh();
    QCOMPARE(model->index(model->rowOfPath(path), HistoryModel::NoteColumn).data().toString(),
             QString("second try"));
    // The history's context menu offers it.
    bool offered = false;
    for (QAction* a : w.historyPage()->table()->actions()) offered |= a->text() == "Note…";
    QVERIFY(offered);
    // Nothing on show: refused with the reason, no file written.
    MainWindow empty(options("note-empty"));
    QVERIFY(!empty.setRunNote("x", &error));
    QVERIFY(!error.isEmpty());
  }

  // An opened run's parameters are in the form; "Run again" runs them again as they are, also
  // in a window that remembers other values.
  void anOpenedRunShowsItsParametersAndRunsAgain() {
    QString path;
    Run first;
    {
      MainWindow w(options("again-first"));
      w.show();
      QVERIFY(w.selectExperiment("iolist"));
      // Build only: measured in the process, no server.
      QVERIFY(w.paramForm()
                  ->setValues({{"benchmarks", "build"},
                               {"build_sizes", "1,10"},
                               {"build_sample_ms", "1"},
                               {"repetitions", "3"},
                               {"warmup", "0"}})
                  .empty());
      QSignalSpy done(&w, &MainWindow::runFinished);
      QString error;
      QVERIFY2(w.startRun(&error), qPrintable(error));
      QVERIFY(done.wait(120000));
      first = w.currentRun();
      QCOMPARE(first.status, RunStatus::Finished);
      path = w.currentRunPath();
    }
    MainWindow w(options("again"));
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.selectExperiment("caching"));  // another experiment on show first
    auto* again = w.findChild<QPushButton*>("runAgainButton");
    QVERIFY(again);
    QVERIFY(!again->isVisible());  // nothing on show
    QVERIFY(w.openRun(path));
    QCOMPARE(w.currentExperiment(), QString("iolist"));
    QCOMPARE(w.paramForm()->values(), first.params);  // every one, as the run had it
    QVERIFY(again->isVisible() && again->isEnabled());
    // Changed in the form, then "Run again": the run's own values, not the form's.
    QVERIFY(w.paramForm()->setValues({{"repetitions", "7"}}).empty());
    QSignalSpy done(&w, &MainWindow::runFinished);
    QTest::mouseClick(again, Qt::LeftButton);
    QVERIFY(w.running());
    QVERIFY(!again->isEnabled());
    QVERIFY(done.wait(120000));
    const Run second = done.front().front().value<Run>();
    QCOMPARE(second.status, RunStatus::Finished);
    QCOMPARE(second.params, first.params);
    QCOMPARE(load_run(w.currentRunPath().toStdString()).params, first.params);
  }

  // A sharding run file from before `repeat` became `repetitions` opens with its value in
  // today's field; a parameter this Perflab does not have is named in the banner and refused
  // by "Run again", never dropped quietly.
  void aRunsParametersTheFormDoesNotHaveAreNamed() {
    MainWindow w(options("renamed"));
    w.show();
    Run old = test::sample_run();
    old.experiment = "sharding";
    old.title = "Sharding proxy and pipelining";
    old.params = {{"repeat", "4"}, {"nodes", "2"}};
    const QString old_path = dir_.filePath("old-sharding.json");
    save_run(old, old_path.toStdString());
    QVERIFY(w.openRun(old_path));
    QCOMPARE(w.paramForm()->values().at("repetitions"), std::string("4"));
    QCOMPARE(w.paramForm()->values().at("nodes"), std::string("2"));
    QVERIFY2(!w.bannerText().contains("not in the form"), qPrintable(w.bannerText()));

    Run odd = old;
    odd.params = {{"repetitions", "5"}, {"bogus", "1"}, {"nodes", "999"}};
    const QString odd_path = dir_.filePath("odd-sharding.json");
    save_run(odd, odd_path.toStdString());
    QVERIFY(w.openRun(odd_path));
    QVERIFY2(w.bannerText().contains("unknown parameter 'bogus'"), qPrintable(w.bannerText()));
    QVERIFY2(w.bannerText().contains("'nodes'"), qPrintable(w.bannerText()));
    QCOMPARE(w.paramForm()->values().at("repetitions"), std::string("5"));
    QString error;
    QVERIFY(!w.runAgain(&error));
    QVERIFY2(error.contains("unknown parameter 'bogus'"), qPrintable(error));
    QVERIFY(!w.running());

    // The form refuses a former name given anew, with today's name.
    const auto refused = w.paramForm()->setValues({{"repeat", "2"}});
    QCOMPARE(refused.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(refused.front()),
             QString("unknown parameter 'repeat': it is called 'repetitions' now"));
  }

  // perflab --param with a name or value the experiment does not take: exit 2, named.
  void theWindowsCommandLineRefusesUnknownParameters() {
    for (const QString& kv : {QString("bogus=1"), QString("repetitions=0")}) {
      QProcess p;
      p.setProcessEnvironment(QProcessEnvironment::systemEnvironment());
      p.start(PERFLAB_GUI, {"--history-dir", dir_.filePath("param-history"), "--settings",
                            dir_.filePath("param.ini"), "--experiment", "iolist", "--param", kv,
                            "--screenshot", dir_.filePath("param.png")});
      QVERIFY(p.waitForFinished(120000));
      QCOMPARE(p.exitCode(), 2);
      const QString err = QString::fromUtf8(p.readAllStandardError());
      QVERIFY2(err.contains("'" + kv.section('=', 0, 0) + "'"), qPrintable(err));
      QVERIFY(!QFile::exists(dir_.filePath("param.png")));
    }
  }

  void aTargetsErrorGoesWhenBackOnManaged() {
    MainWindow w(options("targets"));
    TargetsPage* page = w.targetsPage();
    page->findChild<QRadioButton*>("redisExternal")->setChecked(true);
    page->findChild<QRadioButton*>("pgExternal")->setChecked(true);
    page->setTargetError(TargetField::RedisServer, "connection refused at 127.0.0.1:1");
    page->setTargetError(TargetField::PgSchema, "schema perflab is owned by someone else");
    page->setApplyError("Stop the run before changing the targets.");
    QVERIFY(!page->targetError(TargetField::RedisServer).isEmpty());
    page->findChild<QRadioButton*>("redisManaged")->click();
    QCOMPARE(page->targetError(TargetField::RedisServer), QString());
    QVERIFY(!page->targetError(TargetField::PgSchema).isEmpty());  // PostgreSQL's stays
    page->findChild<QRadioButton*>("pgManaged")->click();
    QCOMPARE(page->targetError(TargetField::PgSchema), QString());
    QCOMPARE(page->findChild<QLabel*>("applyError")->text(), QString());
  }
};

QTEST_MAIN(WindowDetailsTest)
#include "test_window_details.moc"
