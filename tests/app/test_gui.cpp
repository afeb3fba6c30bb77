// The perflab window end to end on the offscreen platform, against real managed servers
// started by the window's own Targets: configure targets, run a small IO-list configuration,
// see the chart get series, toggle log, export and decode, history, compare, Stop, failure.
#include <QBarSeries>
#include <QBarSet>
#include <QChartView>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QFile>
#include <QGuiApplication>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSvgRenderer>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "chart_panel.h"
#include "common/figure_format.h"
#include "common/run_io.h"
#include "compare_page.h"
#include "file_bytes.h"
#include "history_page.h"
#include "main_window.h"
#include "models/comparison_model.h"
#include "models/history_model.h"
#include "models/points_model.h"
#include "models/run_history.h"
#include "param_form.h"
#include "registry/registry.h"
#include "report/teaching.h"
#include "sample_runs.h"
#include "targets/managed_postgres.h"
#include "targets/postgres.h"
#include "targets/server_start.h"
#include "targets_page.h"
#include "waits.h"

using namespace perflab;
using namespace perflab::gui;

namespace {

// A small IO-list configuration: a few seconds on this machine.
std::map<std::string, std::string> small_iolist() {
  return {{"benchmarks", "build,append,read"},
          {"builders", "interpolate,iolist"},
          {"events", "20"},
          {"writers", "1,2"},
          {"readers", "1"},
          {"repetitions", "2"},
          {"warmup", "0"},
          {"build_sizes", "1,10,100"},
          {"build_sample_ms", "2"},
          {"transports", "round_trips"},  // one set per builder, direct
          {"network_rtt_ms", "0"},
          {"synchronous_commit", "on"},
          {"verdicts", "false"}};  // fixed rounds
}

QAbstractAxis* axis(QChart* chart, Qt::Orientation o) {
  auto a = chart->axes(o);
  return a.isEmpty() ? nullptr : a.front();
}

QList<QBarSet*> bar_sets(QChart* chart) {
  for (auto* s : chart->series())
    if (auto* b = qobject_cast<QBarSeries*>(s)) return b->barSets();
  return {};
}

bool is_log(QAbstractAxis* a) {
  return a && a->property("perflab_log").toBool();
}

int line_count(QChart* chart) {
  int n = 0;
  for (auto* s : chart->series())  // data lines, not error bars
    if (qobject_cast<QLineSeries*>(s)) ++n;
  return n;
}

using test::read_all;

}  // namespace

class GuiTest : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::unique_ptr<MainWindow> w_;
  QString first_run_;

  WindowOptions options() const {
    return {dir_.filePath("history"), dir_.filePath("settings.ini")};
  }

  Run runAndWait(const std::map<std::string, std::string>& params, int timeout_ms = 240000) {
    if (const auto refused = w_->paramForm()->setValues(params); !refused.empty()) {
      qWarning() << "setValues:" << QString::fromStdString(refused.front());
      return {};
    }
    QSignalSpy done(w_.get(), &MainWindow::runFinished);
    QString error;
    if (!w_->startRun(&error)) {
      qWarning() << "startRun:" << error;
      return {};
    }
    if (!done.wait(timeout_ms)) return {};
    return done.front().front().value<Run>();
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    w_ = std::make_unique<MainWindow>(options());
    w_->resize(1400, 900);
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get(), test::kWaitMs));
  }

  void configureManagedTargets() {
    TargetsPage* page = w_->targetsPage();
    TargetsForm f = page->form();
    QVERIFY(f.pg_managed);  // the default
    QVERIFY(f.redis_managed);
    // The Redis Cluster seeds are for an external one: disabled while Redis is managed.
    auto* cluster = page->findChild<QLineEdit*>("redisCluster");
    QVERIFY(cluster);
    QVERIFY(!cluster->isEnabled());
    QVERIFY(w_->applyTargets());
    // Test connection on managed servers: started by Perflab, answered with their versions.
    QSignalSpy tested(page, &TargetsPage::tested);
    page->testPostgres();
    QVERIFY(tested.wait(120000));
    QCOMPARE(tested.front().at(0).toString(), QString("postgres"));
    QVERIFY2(tested.front().at(1).toBool(), qPrintable(tested.front().at(2).toString()));
    QVERIFY(tested.front().at(2).toString().contains("PostgreSQL"));
    tested.clear();
    page->testRedis();
    QVERIFY(tested.wait(60000));
    QVERIFY2(tested.front().at(1).toBool(), qPrintable(tested.front().at(2).toString()));
    QVERIFY(tested.front().at(2).toString().contains("Redis"));
    // The page shows the managed servers' state, ports and versions.
    QTRY_VERIFY_WITH_TIMEOUT(page->managedStatus().contains("running on 127.0.0.1:"),
                             test::kWaitMs);
    auto pg = w_->targets()->managed_postgres();
    QVERIFY(pg);
    QVERIFY(page->managedStatus().contains(QString::number(pg->port())));
    auto redis = w_->targets()->managed_redis();
    QCOMPARE(redis.size(), std::size_t(1));
    QTRY_VERIFY_WITH_TIMEOUT(
        page->managedStatus().contains(QString("127.0.0.1:%1").arg(redis.front()->port())),
        test::kWaitMs);
  }

  void externalTargetsThatRefuseAnswer() {
    TargetsPage* page = w_->targetsPage();
    TargetsForm f = page->form();
    f.pg_managed = false;
    f.pg_port = free_loopback_port();  // nothing listens there
    f.pg_password = "s3cret-pg";
    f.redis_managed = false;
    f.redis_port = free_loopback_port();
    f.redis_password = "s3cret-redis";
    page->setForm(f);
    QSignalSpy tested(page, &TargetsPage::tested);
    QElapsedTimer t;
    t.start();
    page->testPostgres();
    page->testRedis();
    // A refused connection answers at once (the figure printed below); the bound only holds that
    // both tests answer, far above the connect timeout (5 s) for a loaded machine with ASan.
    QTRY_COMPARE_WITH_TIMEOUT(tested.size(), 2, test::kWaitMs);
    qInfo() << "both external tests answered in" << t.elapsed() << "ms";
    for (const auto& call : tested) {
      QVERIFY(!call.at(1).toBool());
      QVERIFY2(call.at(2).toString().contains("refused"), qPrintable(call.at(2).toString()));
    }
    // Applied settings persist without the passwords.
    QVERIFY(w_->applyTargets());
    QSettings s(options().settings_file, QSettings::IniFormat);
    s.sync();
    QByteArray ini = read_all(options().settings_file);
    QVERIFY(ini.contains("pg_managed=false"));
    QVERIFY(!ini.contains("s3cret"));
    TargetsForm back = load_targets_form(s);
    QCOMPARE(back.pg_port, f.pg_port);
    QVERIFY(back.pg_password.isEmpty());
    // A raw conninfo's password is removed before saving too.
    f.pg_conninfo = QString("host=127.0.0.1 port=%1 password=s3cret-raw dbname=x").arg(f.pg_port);
    page->setForm(f);
    QVERIFY(w_->applyTargets());
    QVERIFY(!read_all(options().settings_file).contains("s3cret"));
  }

  void unreachableTargetIsRefusedBeforeTheRunStarts() {
    // External PostgreSQL that refuses (applied above): checked before anything is measured,
    // the reason beside the target, no run started, nothing saved.
    QVERIFY(w_->selectExperiment("iolist"));
    auto params = small_iolist();
    params["benchmarks"] = "build,append";
    QVERIFY(w_->paramForm()->setValues(params).empty());
    const std::size_t history_before = w_->historyPage()->entries().size();
    QSignalSpy refused(w_.get(), &MainWindow::runRefused);
    QSignalSpy finished(w_.get(), &MainWindow::runFinished);
    QElapsedTimer t;
    t.start();
    QVERIFY(w_->startRun());
    QVERIFY(refused.wait(test::kWaitMs));
    qInfo() << "refused" << t.elapsed() << "ms after Run";
    QCOMPARE(finished.size(), 0);
    const QString why = refused.front().front().toString();
    QVERIFY2(why.contains("refused"), qPrintable(why));
    QVERIFY2(w_->targetsPage()->targetError(TargetField::PgServer).contains(why),
             qPrintable(w_->targetsPage()->targetError(TargetField::PgServer)));
    QVERIFY(w_->bannerText().contains("Run not started"));
    QVERIFY(w_->currentRun().series.empty());  // not even the build micro-benchmark ran
    QVERIFY(!w_->running());
    QVERIFY(w_->findChild<QPushButton*>("runButton")->isEnabled());
    w_->historyPage()->refresh();
    QCOMPARE(w_->historyPage()->entries().size(), history_before);
  }

  void schemaPerflabDidNotCreateIsRefusedBesideTheField() {
    ManagedPostgres users_server;  // stands for a user's server
    PgConnection c(users_server.conninfo());
    c.exec("CREATE TABLE public.keep_me (id int); INSERT INTO public.keep_me VALUES (1), (2)");
    TargetsPage* page = w_->targetsPage();
    TargetsForm f = page->form();
    f.pg_managed = false;
    f.pg_conninfo = QString::fromStdString(users_server.conninfo());
    f.pg_schema = "public";
    page->setForm(f);
    QVERIFY(w_->applyTargets());
    QVERIFY(w_->selectExperiment("iolist"));
    auto params = small_iolist();
    params["benchmarks"] = "build,append";
    QVERIFY(w_->paramForm()->setValues(params).empty());
    QSignalSpy refused(w_.get(), &MainWindow::runRefused);
    QSignalSpy started(w_.get(), &MainWindow::runFinished);
    QVERIFY(w_->startRun());
    QVERIFY(refused.wait(test::kWaitMs));
    QCOMPARE(started.size(), 0);
    const QString beside = page->targetError(TargetField::PgSchema);
    QVERIFY2(beside.contains("schema \"public\" exists and was not created by Perflab"),
             qPrintable(beside));
    QVERIFY(page->findChild<QLabel*>("pgSchemaError")->isVisibleTo(page));
    QVERIFY(w_->bannerText().contains("Run not started"));
    QVERIFY(w_->currentRun().series.empty());
    QCOMPARE(std::string(c.exec("SELECT count(*) FROM public.keep_me").value(0, 0)),
             std::string("2"));
    // An empty key prefix is refused beside its field too, and nothing is applied.
    f.redis_managed = false;
    f.redis_prefix.clear();
    page->setForm(f);
    QString error;
    QVERIFY(!w_->applyTargets(&error));
    QVERIFY2(page->targetError(TargetField::RedisPrefix).contains("key prefix is empty"),
             qPrintable(page->targetError(TargetField::RedisPrefix)));
    QVERIFY(page->findChild<QLabel*>("redisPrefixError")->isVisibleTo(page));
    // Back to managed servers.
    f = page->form();
    f.pg_managed = f.redis_managed = true;
    f.pg_conninfo.clear();
    f.pg_schema = "perflab";
    f.redis_prefix = "perflab:";
    page->setForm(f);
    QVERIFY(w_->applyTargets());
    QVERIFY(page->targetError(TargetField::PgSchema).isEmpty());
  }

  void parameterFormEnforcesRanges() {
    QVERIFY(w_->selectExperiment("iolist"));
    ParamForm* form = w_->paramForm();
    auto* reps = qobject_cast<QSpinBox*>(form->field("repetitions"));
    QVERIFY(reps);
    reps->setValue(5000);
    QVERIFY(reps->value() <= 1000);  // the spec's max
    const std::string writers_before = form->values()["writers"];
    QCOMPARE(form->setValues({{"writers", "0,5"}}).size(), std::size_t(1));
    QCOMPARE(form->values()["writers"], writers_before);  // out of range: refused
    auto* writers = qobject_cast<QLineEdit*>(form->field("writers"));
    QVERIFY(writers);
    writers->setText("0,5");
    QVERIFY(form->validationError().contains("writers"));
    QString error;
    QVERIFY(!w_->startRun(&error));
    QVERIFY(error.contains("writers"));
    QVERIFY(!w_->running());
    form->restoreDefaults();
    QVERIFY(form->validationError().isEmpty());
    std::vector<ParamSpec> specs = form->specs();
    for (const auto& s : specs)
      QCOMPARE(form->values()[s.name], validate_param(s, s.default_value));
  }

  void parameterFormBuildsChoicesFromTheType() {
    // Check boxes for a subset, whatever its help says and however few its default holds; a
    // combo box for one of.
    ParamForm form;
    form.setSpecs({{"pick", ParamType::SubsetOf, "b", {}, {}, {"a", "b", "c"}, "what to run"},
                   {"mode", ParamType::OneOf, "y", {}, {}, {"x", "y"}, "how"}});
    QWidget* pick = form.field("pick");
    QVERIFY(pick);
    QCOMPARE(pick->findChildren<QCheckBox*>().size(), 3);
    QVERIFY(qobject_cast<QComboBox*>(form.field("mode")));
    QCOMPARE(form.values()["pick"], std::string("b"));
    QVERIFY(form.setValues({{"pick", "c, A"}, {"mode", "x"}}).empty());
    QCOMPARE(form.values()["pick"], std::string("a,c"));  // the check boxes' order
    QCOMPARE(form.values()["mode"], std::string("x"));
    pick->findChild<QCheckBox*>("choice_a")->setChecked(false);
    pick->findChild<QCheckBox*>("choice_c")->setChecked(false);
    QVERIFY(form.validationError().contains("pick"));  // an empty subset is refused
    // The sharding experiment's tests and variants are subsets too.
    QVERIFY(w_->selectExperiment("sharding"));
    QCOMPARE(w_->paramForm()->field("tests")->findChildren<QCheckBox*>().size(), 4);
    QCOMPARE(w_->paramForm()->field("variants")->findChildren<QCheckBox*>().size(), 9);
    QVERIFY(qobject_cast<QComboBox*>(w_->paramForm()->field("preset")));
  }

  // The plan choice sits right under "Restore defaults"; choosing the lecture plan fills the form
  // with the plan's values and starts the managed servers it needs (Targets shows them running);
  // Restore defaults goes back to the default plan.
  void lecturePlanFillsTheFormAndStartsItsServers() {
    QVERIFY(w_->selectExperiment("sharding"));
    ParamForm* form = w_->paramForm();
    auto* plan = qobject_cast<QComboBox*>(form->field("plan"));
    QVERIFY(plan);
    QVERIFY(plan->isVisible());
    // The plan is the first thing in the form, above every parameter (main had it at the bottom,
    // below the fold of a 1280x800 window), and says what the chosen plan keeps.
    QApplication::processEvents();  // laid out as shown
    const QRect p(plan->mapTo(form, QPoint(0, 0)), plan->size());
    for (const auto& spec : form->specs()) {
      if (spec.name == "plan") continue;
      const QWidget* field = form->field(spec.name);
      QVERIFY(field);
      QVERIFY2(field->mapTo(form, QPoint(0, 0)).y() > p.bottom(),
               qPrintable(QString("%1 at y %2, the plan's bottom at %3")
                              .arg(QString::fromStdString(spec.name))
                              .arg(field->mapTo(form, QPoint(0, 0)).y())
                              .arg(p.bottom())));
    }
    auto* summary = form->findChild<QLabel*>("planSummary");
    QVERIFY(summary && summary->isVisible());
    QVERIFY(summary->mapTo(form, QPoint(0, 0)).y() > p.top());
    QCOMPARE(form->values()["plan"], std::string("default"));

    QSignalSpy chosen(form, &ParamForm::planChosen);
    QSignalSpy started(w_->targetsPage(), &TargetsPage::managedStarted);
    plan->setFocus();
    QTest::keyClick(plan, Qt::Key_Down);  // "default" -> "lecture", as a person picks it
    QCOMPARE(chosen.size(), 1);
    QCOMPARE(chosen.front().front().toString(), QString("lecture"));
    auto exp = make_experiment("sharding");
    const std::vector<Plan> plans = exp->plans();
    const Plan* lecture = find_plan(plans, "lecture");
    QVERIFY(lecture);
    QCOMPARE(summary->text(), QString::fromStdString(lecture->summary));
    // A value as the form holds it (canonical), for the plan's text or the default.
    auto canonical = [&](const std::string& name, const std::string* text) {
      for (const auto& s : form->specs())
        if (s.name == name) return validate_param(s, text ? *text : s.default_value);
      return std::string("no such parameter");
    };
    const auto values = form->values();
    QCOMPARE(values.at("plan"), std::string("lecture"));
    for (const auto& [name, value] : lecture->values)
      QCOMPARE(values.at(name), canonical(name, &value));
    auto* variants = form->field("variants");
    QVERIFY(variants->findChild<QCheckBox*>("choice_per-reply")->isChecked());
    QVERIFY(!variants->findChild<QCheckBox*>("choice_twemproxy")->isChecked());
    QCOMPARE(qobject_cast<QLineEdit*>(form->field("depths"))->text(), QString("1,2,4,8,16"));

    // Its two Redis nodes start now, before Run is pressed.
    QVERIFY(started.wait(120000));
    QVERIFY2(started.front().at(0).toBool(), qPrintable(started.front().at(1).toString()));
    const auto redis = w_->targets()->managed_redis();
    QVERIFY(redis.size() >= 2);
    w_->targetsPage()->refreshManagedState();
    for (auto* node : redis)
      QTRY_VERIFY_WITH_TIMEOUT(w_->targetsPage()->managedStatus().contains(
                                   QString("running on 127.0.0.1:%1").arg(node->port())),
                               test::kWaitMs);

    auto* restore = form->findChild<QPushButton*>("restoreDefaults");
    QVERIFY(restore);
    QTest::mouseClick(restore, Qt::LeftButton);
    QCOMPARE(form->values()["plan"], std::string("default"));
    QVERIFY(summary->text().startsWith("every parameter at its default"));
    QCOMPARE(form->values()["variants"], canonical("variants", nullptr));
  }

  void runSmallIolistThroughTheWindow() {
    QVERIFY(w_->selectExperiment("iolist"));
    QSignalSpy started(w_.get(), &MainWindow::runStarted);
    int progress_seen = 0;
    auto conn = connect(w_->progressBar(), &QProgressBar::valueChanged, this,
                        [&](int v) { progress_seen = std::max(progress_seen, v); });
    Run run = runAndWait(small_iolist());
    disconnect(conn);
    QCOMPARE(started.size(), 1);
    QCOMPARE(run.status, RunStatus::Finished);
    QVERIFY(progress_seen > 0);
    QVERIFY(w_->statusText().contains("Elapsed"));
    // The chart got the series: grouped bars for appends, one set per builder.
    ChartPanel* panel = w_->resultsPanel();
    panel->setGroup("append");
    QCOMPARE(QString::fromStdString(panel->group()), QString("append"));
    auto sets = bar_sets(panel->chart());
    QCOMPARE(sets.size(), 2);
    QCOMPARE(sets[0]->count(), 2);  // 1 and 2 writers
    QCOMPARE(panel->table()->model()->rowCount(), 4);
    // Numeric x: lines.
    panel->setGroup("build_time");
    QCOMPARE(line_count(panel->chart()), 2);
    // Saved to history, listed there.
    first_run_ = w_->currentRunPath();
    QVERIFY(QFile::exists(first_run_));
    QCOMPARE(load_run(first_run_.toStdString()).status, RunStatus::Finished);
    bool listed = false;
    for (const auto& e : w_->historyPage()->entries())
      if (e.path == first_run_) listed = e.status == "finished" && e.experiment == "iolist";
    QVERIFY(listed);
    // The teaching panel puts the article's figure beside the measured one.
    QString teach = w_->teachingPanel()->toPlainText();
    QVERIFY(teach.contains("The article beside this run"));
    QVERIFY(teach.contains("0.78"));
    // ... with this run's interval and verdict, and the article's figure judged against it.
    const Finding* f = nullptr;
    for (const auto& x : w_->currentRun().findings)
      if (x.id == "append_1.iolist_vs_interpolate") f = &x;
    QVERIFY(f && f->ci && f->verdict());
    QVERIFY2(teach.contains(QString::fromStdString(format_estimate(*f->ci))), qPrintable(teach));
    QVERIFY2(teach.contains(QString::fromStdString(finding_verdict(*f))), qPrintable(teach));
    QVERIFY(teach.contains(QString::fromLatin1(to_string(f->reproduction()))));
  }

  void logToggleChangesAxisType() {
    ChartPanel* panel = w_->resultsPanel();
    panel->setGroup("append");
    QTest::mouseClick(panel->logYBox(), Qt::LeftButton);
    QVERIFY(panel->logY());
    QVERIFY(is_log(axis(panel->chart(), Qt::Vertical)));
    QVERIFY(bar_sets(panel->chart()).isEmpty());  // points, never bars, on a log axis
    QVERIFY(!panel->logXBox()->isEnabled());      // categorical x
    QTest::mouseClick(panel->logYBox(), Qt::LeftButton);
    QVERIFY(!is_log(axis(panel->chart(), Qt::Vertical)));
    panel->setGroup("build_time");  // declared log-log by the experiment
    QVERIFY(panel->logXBox()->isEnabled());
    QVERIFY(panel->logXBox()->isChecked() && panel->logYBox()->isChecked());
    QVERIFY(is_log(axis(panel->chart(), Qt::Horizontal)));
    QTest::mouseClick(panel->logXBox(), Qt::LeftButton);
    QVERIFY(!is_log(axis(panel->chart(), Qt::Horizontal)));
    // The choice is this chart's: another keeps its own scale, and coming back finds it.
    panel->setGroup("append");
    QVERIFY(!panel->logYBox()->isChecked());
    panel->setGroup("build_time");
    QVERIFY(!panel->logXBox()->isChecked());
    QTest::mouseClick(panel->logXBox(), Qt::LeftButton);
    QVERIFY(is_log(axis(panel->chart(), Qt::Horizontal)));
  }

  void tooltipsAndLegend() {
    ChartPanel* panel = w_->resultsPanel();
    panel->setGroup("append");
    const Run& run = panel->run();
    const Series* s = run.find_series("append", "iolist");
    QVERIFY(s && !s->points.empty());
    const Point& p = s->points.front();
    QString tip = panel->pointText("iolist", p.label);
    QVERIFY(tip.contains(format_value(p.stats.median)));
    QVERIFY(tip.contains(format_value(p.stats.p95)));
    QVERIFY(tip.contains("µs/op"));
    // The table the view shows has the same exact figures, and the same tooltip.
    QAbstractItemModel* table = panel->table()->model();
    bool found = false;
    for (int r = 0; r < table->rowCount(); ++r)
      if (table->index(r, 0).data().toString() == "iolist" &&
          table->index(r, 1).data().toString() == QString::fromStdString(p.label)) {
        found = true;
        QCOMPARE(table->index(r, PointsModel::MedianColumn).data().toString(),
                 format_value(p.stats.median));
        QCOMPARE(table->index(r, PointsModel::MedianColumn).data(PointsModel::ValueRole).toDouble(),
                 p.stats.median);
        QCOMPARE(table->index(r, PointsModel::SamplesColumn).data().toString(),
                 QString::number(p.stats.n));
        QCOMPARE(table->index(r, PointsModel::P95Column).data(Qt::ToolTipRole).toString(), tip);
      }
    QVERIFY(found);
    // A legend click hides a series; the hidden state survives a rebuild and reaches exports.
    auto markers = panel->chart()->legend()->markers();
    QVERIFY(markers.size() >= 2);
    emit markers[1]->clicked();
    QCOMPARE(panel->options().hidden_series, std::set<std::string>{"iolist"});
    panel->setLogY(true);
    QCOMPARE(panel->options().hidden_series, std::set<std::string>{"iolist"});
    emit panel->chart()->legend()->markers()[1]->clicked();
    QVERIFY(panel->options().hidden_series.empty());
    panel->setLogY(false);
  }

  void exportChartAndData() {
    w_->resultsPanel()->setGroup("append");
    const QString png = dir_.filePath("chart.png"), svg = dir_.filePath("chart.svg"),
                  pdf = dir_.filePath("chart.pdf");
    w_->exportChart(png, QSize(900, 560));
    w_->exportChart(svg, QSize(900, 560));
    w_->exportChart(pdf, QSize(900, 560));
    QImage img(png);
    QCOMPARE(img.size(), QSize(900, 560));
    QSet<QRgb> colours;
    for (int y = 0; y < img.height(); y += 5)
      for (int x = 0; x < img.width(); x += 5) colours.insert(img.pixel(x, y));
    QVERIFY(colours.size() > 20);
    QSvgRenderer r(svg);
    QVERIFY(r.isValid());
    QByteArray svg_text = read_all(svg);
    QVERIFY(svg_text.contains("<desc>Perflab iolist"));
    QVERIFY(svg_text.contains("writers=1,2"));
    QByteArray pdf_bytes = read_all(pdf);
    QVERIFY(pdf_bytes.startsWith("%PDF-"));
    QVERIFY(pdf_bytes.contains("/Title"));
    // Every chart of the run in one PNG grid.
    const QString all = dir_.filePath("all.png");
    w_->exportChart(all, QSize(400, 300), true);
    QVERIFY(QImage(all).height() >= 600);
    // Data.
    const QString csv = dir_.filePath("data.csv"), json = dir_.filePath("data.json"),
                  gb = dir_.filePath("data.gbench.json");
    w_->exportData(csv);
    w_->exportData(json);
    w_->exportData(gb);
    QVERIFY(read_all(csv).startsWith("group,series,label"));
    QCOMPARE(load_run(json.toStdString()).series.size(), w_->currentRun().series.size());
    const QByteArray gbench = read_all(gb);
    const auto doc = nlohmann::json::parse(gbench.begin(), gbench.end());
    QVERIFY(doc.contains("benchmarks"));
    QVERIFY(doc.contains("context"));
    QVERIFY_THROWS_EXCEPTION(std::exception, w_->exportData(dir_.filePath("data.xls")));
    // Clipboard.
    QGuiApplication::clipboard()->clear();
    w_->copyChart();
    QImage clip = QGuiApplication::clipboard()->image();
    QVERIFY(!clip.isNull());
    QVERIFY(clip.width() >= 800);
  }

  void stopLongRunMarksItCancelled() {
    QVERIFY(w_->selectExperiment("iolist"));
    auto params = small_iolist();
    params["benchmarks"] = "build,append";
    params["build_sizes"] = "1";
    params["build_sample_ms"] = "1";
    params["repetitions"] = "1000";
    params["writers"] = "1,10,100";
    QVERIFY(w_->paramForm()->setValues(params).empty());
    QSignalSpy done(w_.get(), &MainWindow::runFinished);
    QVERIFY(w_->startRun());
    // Wait until something was measured, so there is something to keep.
    QTRY_VERIFY_WITH_TIMEOUT(!w_->currentRun().series.empty(), 120000);
    QVERIFY(w_->running());
    QElapsedTimer t;
    t.start();
    QTest::mouseClick(w_->findChild<QPushButton*>("stopButton"), Qt::LeftButton);
    // Within a second is the target, the figure printed below; the test holds that the run
    // ends, with a bound no loaded machine with ASan comes near.
    QVERIFY(done.wait(30000));
    qInfo() << "run ended" << t.elapsed() << "ms after Stop";
    Run run = done.front().front().value<Run>();
    QCOMPARE(run.status, RunStatus::Cancelled);
    QVERIFY(!run.series.empty());  // partial results kept
    QVERIFY(w_->bannerText().contains("stopped"));
    QCOMPARE(load_run(w_->currentRunPath().toStdString()).status, RunStatus::Cancelled);
  }

  void openRenameDeleteImportFromHistory() {
    HistoryPage* page = w_->historyPage();
    page->refresh();
    QVERIFY(page->entries().size() >= 2);  // finished, cancelled (a refused run leaves none)
    page->selectPath(first_run_);
    QCOMPARE(page->selectedPath(), first_run_);
    QVERIFY(w_->openRun(first_run_));
    QCOMPARE(w_->currentRun().status, RunStatus::Finished);
    QCOMPARE(w_->currentRunPath(), first_run_);
    QVERIFY(w_->resultsPanel()->hasRun());
    QVERIFY(w_->resultsPanel()->chart()->series().size() > 0);
    // Rename.
    QString error;
    QVERIFY(page->renameSelected("baseline run", &error));
    QString renamed = QDir(w_->history().dir()).filePath("baseline run.json");
    QVERIFY(QFile::exists(renamed));
    QVERIFY(!QFile::exists(first_run_));
    first_run_ = renamed;
    QVERIFY(!page->renameSelected("bad/name", &error));
    QVERIFY(!error.isEmpty());
    // Import a run built here, then delete it.
    Run other = test::sample_run();
    const QString file = dir_.filePath("elsewhere.json");
    save_run(other, file.toStdString());
    std::size_t before = page->entries().size();
    QVERIFY(page->importFile(file, &error));
    QCOMPARE(page->entries().size(), before + 1);
    QString imported = page->selectedPath();
    QVERIFY(imported.startsWith(w_->history().dir()));
    QVERIFY(page->deleteSelected(&error));
    QVERIFY(!QFile::exists(imported));
    QCOMPARE(page->entries().size(), before);
    // A file that is not a run: a message, nothing added.
    const QString junk = dir_.filePath("junk.json");
    QFile j(junk);
    QVERIFY(j.open(QIODevice::WriteOnly));
    j.write("{\"hello\": 1}");
    j.close();
    QVERIFY(!page->importFile(junk, &error));
    QVERIFY(error.contains("not a Perflab run") || !error.isEmpty());
    QCOMPARE(page->entries().size(), before);
  }

  void compareTwoRuns() {
    QVERIFY(w_->selectExperiment("iolist"));
    Run second = runAndWait(small_iolist());
    QCOMPARE(second.status, RunStatus::Finished);
    const QString second_path = w_->currentRunPath();
    const Run first = load_run(first_run_.toStdString());
    // In History, sorted oldest first by a click on the Date header, select the two runs and
    // press "Compare the two selected": the older is "old" whatever order they are shown in.
    HistoryPage* page = w_->historyPage();
    QHeaderView* header = page->table()->horizontalHeader();
    w_->findChild<QTabWidget*>()->setCurrentWidget(page);
    QTRY_VERIFY_WITH_TIMEOUT(header->isVisible(), test::kWaitMs);
    const QPoint date(header->sectionViewportPosition(HistoryModel::DateColumn) + 5,
                      header->height() / 2);
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, date);
    QCOMPARE(page->model()->sortColumn(), int(HistoryModel::DateColumn));
    if (page->model()->sortOrder() != Qt::AscendingOrder)
      QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, date);
    QVERIFY(page->model()->rowOfPath(first_run_) < page->model()->rowOfPath(second_path));
    page->table()->clearSelection();
    for (const QString& path : {second_path, first_run_})
      page->table()->selectionModel()->select(
          page->model()->index(page->model()->rowOfPath(path), 0),
          QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QCOMPARE(page->selectedPaths(), QStringList({first_run_, second_path}));
    QTest::mouseClick(page->findChild<QPushButton*>("historyCompare"), Qt::LeftButton);
    ComparePage* cmp = w_->comparePage();
    QTRY_VERIFY_WITH_TIMEOUT(cmp->isVisible(), test::kWaitMs);  // the window switched to Compare
    QVERIFY2(cmp->error().isEmpty(), qPrintable(cmp->error()));
    QVERIFY(!cmp->comparison().rows.empty());
    const ComparisonRow* row = cmp->model()->row(0);
    QVERIFY(row);
    auto median = [](const Run& r, const std::string& name) {
      std::string group = name.substr(0, name.find('/'));
      std::string rest = name.substr(group.size() + 1);
      std::string series = rest.substr(0, rest.find('/'));
      return r.find_point(group, series, rest.substr(series.size() + 1))->stats.median;
    };
    QCOMPARE(row->old_value, median(first, row->name));
    QCOMPARE(row->new_value, median(second, row->name));
    auto* old_box = cmp->findChild<QComboBox*>("compareOld");
    auto* new_box = cmp->findChild<QComboBox*>("compareNew");
    QCOMPARE(old_box->currentData().toString(), first_run_);  // the pickers show the pair
    QCOMPARE(new_box->currentData().toString(), second_path);
    // The pickers and the Compare button: the other way round.
    old_box->setCurrentIndex(old_box->findData(second_path));
    new_box->setCurrentIndex(new_box->findData(first_run_));
    QTest::mouseClick(cmp->findChild<QPushButton*>("compareButton"), Qt::LeftButton);
    row = cmp->model()->row(0);
    QCOMPARE(row->old_value, median(second, row->name));
    QCOMPARE(row->new_value, median(first, row->name));
    // The table as shown: ratio or percent, with the exact figures in its model.
    QAbstractItemModel* table = cmp->table()->model();
    QCOMPARE(
        table->index(0, ComparisonModel::OldColumn).data(ComparisonModel::ValueRole).toDouble(),
        row->old_value);
    QVERIFY(!cmp->table()->isColumnHidden(ComparisonModel::RatioColumn));
    QVERIFY(cmp->table()->isColumnHidden(ComparisonModel::ChangeColumn));
    QTest::mouseClick(cmp->findChild<QRadioButton*>("comparePercent"), Qt::LeftButton);
    QVERIFY(cmp->table()->isColumnHidden(ComparisonModel::RatioColumn));
    QVERIFY(!cmp->table()->isColumnHidden(ComparisonModel::ChangeColumn));
    QVERIFY(cmp->comparisonText().contains("%"));
    QTest::mouseClick(cmp->findChild<QRadioButton*>("compareRatio"), Qt::LeftButton);
    page->table()->sortByColumn(-1, Qt::AscendingOrder);  // back to newest first
    QCOMPARE(page->model()->sortColumn(), -1);
    QCOMPARE(page->model()->entry(0)->path, second_path);
    QVERIFY(cmp->compareFiles(first_run_, second_path));
    QCOMPARE(cmp->table()->model()->rowCount(), int(cmp->comparison().rows.size()));
    for (const auto& r : cmp->comparison().rows) QVERIFY(r.ratio > 0);
    QVERIFY(cmp->comparisonText().contains("append/iolist"));
    // The overlaid chart: old and new series together.
    ChartPanel* chart = cmp->chartPanel();
    chart->setGroup("append");
    QStringList labels;
    for (auto* set : bar_sets(chart->chart())) labels << set->label();
    QVERIFY(labels.contains("old: iolist"));
    QVERIFY(labels.contains("new: iolist"));
    // Runs of different experiments are refused with a reason.
    Run other = test::sample_run();
    other.experiment = "caching";
    QVERIFY(!cmp->compare(second, other));
    QVERIFY(cmp->error().contains("different experiments"));
  }

  void settingsRestoreInANewWindow() {
    QVERIFY(w_->selectExperiment("iolist"));
    QVERIFY(w_->openRun(first_run_));  // its parameters in the form, then one changed
    QVERIFY(w_->paramForm()->setValues({{"events", "33"}}).empty());
    w_->resultsPanel()->setGroup("append");
    w_->resultsPanel()->setLogY(true);  // remembered for this chart of this experiment
    MainWindow again(options());
    QCOMPARE(again.currentExperiment(), QString("iolist"));
    QCOMPARE(QString::fromStdString(again.paramForm()->values()["events"]), QString("33"));
    QVERIFY(again.openRun(first_run_));
    again.resultsPanel()->setGroup("append");
    QVERIFY(again.resultsPanel()->logY());
    QVERIFY(again.targetsPage()->form().pg_managed);
    w_->resultsPanel()->setLogY(false);
  }

  void cleanupTestCase() { w_.reset(); }
};

QTEST_MAIN(GuiTest)
#include "test_gui.moc"
