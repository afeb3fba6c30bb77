// The Targets page's hot standbys and PgBouncer, on the offscreen platform against real servers:
// external standbys typed beside an external primary, tested (their role checked), applied,
// saved without their password and handed to a run; a server that is no standby refused beside
// the field; in managed mode the standbys and the PgBouncer a run starts, then their state.
#include <QCheckBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "file_bytes.h"
#include "fresh_window.h"
#include "main_window.h"
#include "param_form.h"
#include "targets/managed_postgres.h"
#include "targets/managed_postgres_standby.h"
#include "targets/postgres.h"
#include "targets/replication.h"
#include "targets_page.h"
#include "targets_settings.h"
#include "waits.h"

using namespace perflab;
using namespace perflab::gui;

namespace {

using test::read_all;

// Types text into a field as a person does: selects what is there, then the keys.
void type_into(QWidget* w, const QString& text) {
  w->setFocus();
  QTest::keyClick(w, Qt::Key_A, Qt::ControlModifier);
  QTest::keyClick(w, Qt::Key_Delete);
  const QStringList lines = text.split('\n');
  for (int i = 0; i < lines.size(); ++i) {
    if (i > 0) QTest::keyClick(w, Qt::Key_Return);
    QTest::keyClicks(w, lines[i]);
  }
}

template <class T>
T* child(QWidget* parent, const char* name) {
  T* w = parent->findChild<T*>(name);
  if (!w) qFatal("no widget %s", name);
  return w;
}

// The Targets tab brought to the front, as a person clicks it, and its page.
TargetsPage* show_targets(MainWindow& w) {
  TargetsPage* page = w.targetsPage();
  auto* scroll = qobject_cast<QScrollArea*>(page->parentWidget()->parentWidget());
  auto* tabs = qobject_cast<QTabWidget*>(scroll->parentWidget()->parentWidget());
  tabs->setCurrentWidget(scroll);
  if (!QTest::qWaitFor([&] { return page->isVisible(); }, test::kWaitMs)) qFatal("not shown");
  return page;
}

// Back on the Run tab, where a person presses Run.
void show_run_tab(MainWindow& w) {
  auto* scroll = w.targetsPage()->parentWidget()->parentWidget();
  qobject_cast<QTabWidget*>(scroll->parentWidget()->parentWidget())->setCurrentIndex(0);
}

// The standby benchmark as small as it measures: one reader, one writer, one standby.
std::map<std::string, std::string> small_standby_run() {
  return {{"benchmarks", "standby"}, {"builders", "iolist"}, {"events", "5"},
          {"readers", "1"},          {"writers", "1"},       {"repetitions", "2"},
          {"warmup", "0"},           {"standbys", "1"},      {"verdicts", "false"}};
}

}  // namespace

class TargetsPageTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  // Another's primary and its hot standby, as far as the window knows: named by conninfo.
  std::unique_ptr<ManagedPostgres> primary_;
  std::unique_ptr<ManagedPostgresStandby> standby_;

  QString settings_file(int n) const { return dir_.filePath(QString("settings%1.ini").arg(n)); }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    ManagedPostgresOptions opts{.max_connections = 60, .durable = false, .shared_buffers = "16MB"};
    primary_ = std::make_unique<ManagedPostgres>(opts);
    standby_ = std::make_unique<ManagedPostgresStandby>(*primary_, opts);
  }

  void targetsFormBuildsConnectionSettings() {
    TargetsForm f;
    QVERIFY(!to_config(f).pg_conninfo);  // managed by default
    QVERIFY(to_config(f).redis_nodes.empty());
    f.pg_managed = false;
    f.pg_host = "db.example";
    f.pg_port = 5433;
    f.pg_user = "o'neil";
    f.pg_password = "p w";
    f.pg_sslmode = "require";
    std::string c = pg_conninfo(f);
    QVERIFY(c.find("host='db.example' port=5433") != std::string::npos);
    QVERIFY(c.find("user='o\\'neil'") != std::string::npos);
    QVERIFY(c.find("password='p w'") != std::string::npos);
    QVERIFY(c.find("sslmode='require'") != std::string::npos);
    QCOMPARE(*to_config(f).pg_conninfo, c);
    f.pg_conninfo = "postgresql://u@h:1/d";
    QCOMPARE(pg_conninfo(f), std::string("postgresql://u@h:1/d"));  // raw conninfo wins
    // A connect_timeout Perflab would not bound is refused beside its field, for the server
    // and for each standby.
    auto refused_field = [&](TargetField field, const char* says) {
      try {
        to_config(f);
      } catch (const TargetsFormError& e) {
        return e.field() == field && std::string(e.what()).find(says) != std::string::npos;
      }
      return false;
    };
    f.pg_conninfo = "host=h connect_timeout=600";
    QVERIFY(refused_field(TargetField::PgServer, "connect_timeout=600"));
    f.pg_conninfo = "host=h connect_timeout=60";
    f.pg_standbys = "host=s1 connect_timeout=5\nhost=s2 connect_timeout=0";
    QVERIFY(refused_field(TargetField::PgStandby, "standby 2: connect_timeout=0"));
    f.pg_standbys = "host=s1 connect_timeout=5";
    QCOMPARE(to_config(f).pg_standby_conninfos.size(), std::size_t(1));
    f.pg_standbys.clear();
    f.pg_conninfo = "postgresql://u@h:1/d";
    f.redis_managed = false;
    f.redis_password = "pw";
    f.redis_nodes = "10.0.0.1:7001,10.0.0.2:7002";
    auto nodes = redis_endpoints(f);
    QCOMPARE(nodes.size(), std::size_t(2));
    QCOMPARE(nodes[1].port, 7002);
    QCOMPARE(nodes[1].password, std::string("pw"));
    // An external Redis Cluster: its seeds, with the password; empty: a managed cluster.
    QVERIFY(to_config(f).redis_cluster.empty());
    f.redis_cluster = "10.0.0.1:7000, 10.0.0.2:7001";
    const auto seeds = to_config(f).redis_cluster;
    QCOMPARE(seeds.size(), std::size_t(2));
    QCOMPARE(seeds[1].port, 7001);
    QCOMPARE(seeds[1].password, std::string("pw"));
    f.redis_cluster = "10.0.0.1:x";
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, to_config(f));
    f.redis_cluster.clear();
    f.redis_nodes = "a:1,,b:2";  // an empty entry
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, to_config(f));
  }

  void standbysFormBuildsTheirConninfos() {
    TargetsForm f;
    f.pg_managed = false;
    f.pg_host = "db.example";
    f.pg_password = "typed pw";
    f.pg_standbys = "host=replica1 port=5433 dbname=perflab\n\n  host=replica2 password=own  \n";
    const TargetsConfig c = to_config(f);
    QCOMPARE(c.pg_standby_conninfos.size(), std::size_t(2));  // the empty line left out
    // Without a password of its own, the one typed for the server; with one, its own.
    QVERIFY(c.pg_standby_conninfos[0].find("host=replica1") != std::string::npos);
    QVERIFY(c.pg_standby_conninfos[0].find("password='typed pw'") != std::string::npos);
    QCOMPARE(c.pg_standby_conninfos[1], std::string("host=replica2 password=own"));
    // Managed: the field is not used.
    f.pg_managed = true;
    QVERIFY(to_config(f).pg_standby_conninfos.empty());
    // A line libpq cannot parse is refused beside the standbys, naming which.
    f.pg_managed = false;
    f.pg_standbys = "host=replica1\nhost='unterminated";
    try {
      to_config(f);
      QFAIL("a conninfo libpq cannot parse was taken");
    } catch (const TargetsFormError& e) {
      QCOMPARE(e.field(), TargetField::PgStandby);
      QVERIFY2(QString(e.what()).startsWith("standby 2: "), e.what());
    }
  }

  void externalStandbyTestedAppliedSavedWithoutPasswordAndRun() {
    auto w = test::fresh_window(dir_.path(), 1);
    QVERIFY(w);
    TargetsPage* page = show_targets(*w);
    auto* standbys = child<QPlainTextEdit>(page, "pgStandbys");
    auto* test = child<QPushButton>(page, "pgStandbyTest");
    QVERIFY(!standbys->isEnabled());  // managed PostgreSQL: Perflab starts its own
    QVERIFY(!test->isEnabled());
    QTest::mouseClick(child<QRadioButton>(page, "pgExternal"), Qt::LeftButton);
    QVERIFY(standbys->isEnabled());
    type_into(child<QLineEdit>(page, "pgConninfo"), QString::fromStdString(primary_->conninfo()));
    // The standby's conninfo holds its password (the primary's roles', checked), which must
    // show nowhere.
    const QString with_password = QString::fromStdString(standby_->conninfo());
    const QString secret = QString::fromStdString(primary_->passwords().user);
    QVERIFY(with_password.contains(secret));
    type_into(standbys, with_password);
    QCOMPARE(page->form().pg_standbys, with_password);
    QSignalSpy tested(page, &TargetsPage::tested);
    QTest::mouseClick(test, Qt::LeftButton);
    QVERIFY(tested.wait(test::kWaitMs));
    QCOMPARE(tested.front().at(0).toString(), QString("standby"));
    const QString status = child<QLabel>(page, "pgStandbyStatus")->text();
    QVERIFY2(tested.front().at(1).toBool(), qPrintable(status));
    QVERIFY2(status.startsWith("✔ standby 1: PostgreSQL") && status.contains("in recovery") &&
                 status.contains(QString::number(standby_->port())),
             qPrintable(status));
    QVERIFY(!status.contains(secret));

    QTest::mouseClick(child<QPushButton>(page, "targetsApply"), Qt::LeftButton);
    QCOMPARE(child<QLabel>(page, "applyError")->text(), QString());
    // What a run receives: the standby as typed, its password with it.
    const auto& cfg = w->targets()->config();
    QCOMPARE(cfg.pg_standby_conninfos.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(cfg.pg_standby_conninfos[0]), with_password);
    // What is saved: the standby, never its password.
    QSettings(settings_file(1), QSettings::IniFormat).sync();
    const QByteArray ini = read_all(settings_file(1));
    QVERIFY2(ini.contains("pg_standbys="), ini.constData());
    QVERIFY2(!ini.contains(secret.toUtf8()), ini.constData());
    QSettings s(settings_file(1), QSettings::IniFormat);
    const TargetsForm back = load_targets_form(s);
    QVERIFY(back.pg_standbys.contains(QString("port=%1").arg(standby_->port())));
    QVERIFY(!back.pg_standbys.contains("password"));

    // A run of the standby benchmark reads from that standby and records it, without secrets.
    show_run_tab(*w);
    QVERIFY(w->selectExperiment("iolist"));
    QVERIFY(w->paramForm()->setValues(small_standby_run()).empty());
    QSignalSpy finished(w.get(), &MainWindow::runFinished);
    QVERIFY(w->startRun());
    QVERIFY(finished.wait(600000));
    const Run& run = w->currentRun();
    QVERIFY2(run.status == RunStatus::Finished, run.message.c_str());
    QVERIFY(run.find_point("standby_read", "1 hot standby", "single reader"));
    bool recorded = false;
    for (const auto& t : run.targets)
      if (t.kind == "postgres-standby")
        recorded = !t.managed &&
                   t.address.find(std::to_string(standby_->port())) != std::string::npos &&
                   t.address.find(secret.toStdString()) == std::string::npos;
    QVERIFY(recorded);
    QVERIFY(w->targets()->managed_standbys().empty());  // none started
    QVERIFY(!read_all(settings_file(1)).contains(secret.toUtf8()));
  }

  void aServerThatIsNoStandbyIsRefusedBesideTheField() {
    auto w = test::fresh_window(dir_.path(), 2);
    QVERIFY(w);
    TargetsPage* page = show_targets(*w);
    QTest::mouseClick(child<QRadioButton>(page, "pgExternal"), Qt::LeftButton);
    const QString primary = QString::fromStdString(primary_->conninfo());
    type_into(child<QLineEdit>(page, "pgConninfo"), primary);
    type_into(child<QPlainTextEdit>(page, "pgStandbys"), primary);  // the primary itself
    QSignalSpy tested(page, &TargetsPage::tested);
    QTest::mouseClick(child<QPushButton>(page, "pgStandbyTest"), Qt::LeftButton);
    QVERIFY(tested.wait(test::kWaitMs));
    QVERIFY(!tested.front().at(1).toBool());
    const QString status = child<QLabel>(page, "pgStandbyStatus")->text();
    QVERIFY2(status.startsWith("✘ standby 1: ") &&
                 status.contains("is not a standby (pg_is_in_recovery() is false)"),
             qPrintable(status));
    // Applied and run: refused before anything is measured, the reason beside the standbys.
    QTest::mouseClick(child<QPushButton>(page, "targetsApply"), Qt::LeftButton);
    show_run_tab(*w);
    QVERIFY(w->selectExperiment("iolist"));
    QVERIFY(w->paramForm()->setValues(small_standby_run()).empty());
    QSignalSpy refused(w.get(), &MainWindow::runRefused);
    QSignalSpy finished(w.get(), &MainWindow::runFinished);
    QVERIFY(w->startRun());
    QVERIFY(refused.wait(test::kWaitMs));
    QCOMPARE(finished.size(), 0);
    QVERIFY2(page->targetError(TargetField::PgStandby).contains("is not a standby"),
             qPrintable(page->targetError(TargetField::PgStandby)));
    QVERIFY(page->targetError(TargetField::PgServer).isEmpty());
    QVERIFY(w->bannerText().contains("Run not started"));
    QVERIFY(w->currentRun().series.empty());
    // Nothing was promoted or reconfigured: the primary is one, the standby still one.
    PgConnection p(primary_->conninfo(), 5), sb(standby_->conninfo(), 5);
    QVERIFY(!pg_in_recovery(p));
    QVERIFY(pg_in_recovery(sb));
    // Back on a managed server, what was said of the standbys goes.
    show_targets(*w);
    QTest::mouseClick(child<QRadioButton>(page, "pgManaged"), Qt::LeftButton);
    QVERIFY(page->targetError(TargetField::PgStandby).isEmpty());
  }

  void managedModeShowsTheStandbysAndPgBouncerARunStarts() {
    auto w = test::fresh_window(dir_.path(), 3);
    QVERIFY(w);
    TargetsPage* page = w->targetsPage();
    QVERIFY(w->selectExperiment("iolist"));
    ParamForm* form = w->paramForm();
    // Nothing that needs them chosen: the page says when they would start.
    QTRY_VERIFY_WITH_TIMEOUT(page->managedStatus().contains("Hot standbys: none"), test::kWaitMs);
    QVERIFY(page->managedStatus().contains("PgBouncer: none"));
    // The person ticks the two benchmarks and sets the counts.
    for (const char* b : {"choice_standby", "choice_pooled"}) {
      auto* box = form->field("benchmarks")->findChild<QCheckBox*>(b);
      QVERIFY(box);
      if (!box->isChecked()) QTest::mouseClick(box, Qt::LeftButton);
      QVERIFY(box->isChecked());
    }
    qobject_cast<QSpinBox*>(form->field("standbys"))->setValue(1);
    qobject_cast<QSpinBox*>(form->field("pool_size"))->setValue(7);
    QTRY_VERIFY_WITH_TIMEOUT(
        page->managedStatus().contains("Hot standbys: this run starts 1 of the managed PostgreSQL"),
        test::kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(
        page->managedStatus().contains(
            "PgBouncer: this run starts one in front of PostgreSQL, transaction mode, a pool of 7 "
            "server connections"),
        test::kWaitMs);
    // Started (as choosing a plan does): their state, ports and versions.
    QSignalSpy started(page, &TargetsPage::managedStarted);
    page->startManaged({.postgres = true, .pg_pooler = true, .pg_pool_size = 7, .pg_standbys = 1});
    QVERIFY(started.wait(300000));
    QVERIFY2(started.front().at(0).toBool(), qPrintable(started.front().at(1).toString()));
    auto standbys = w->targets()->managed_standbys();
    QCOMPARE(standbys.size(), std::size_t(1));
    const auto pooler = w->targets()->managed_pgbouncer_state();
    QVERIFY(pooler);
    QTRY_VERIFY_WITH_TIMEOUT(
        page->managedStatus().contains(
            QString("Hot standby 1 of PostgreSQL %1: managed, running on 127.0.0.1:%2")
                .arg(QString::fromStdString(standbys[0]->version()))
                .arg(standbys[0]->port())),
        test::kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(
        page->managedStatus().contains(
            QString("%1: managed, running on 127.0.0.1:%2, transaction mode, a pool of 7 server "
                    "connections")
                .arg(QString::fromStdString(pooler->version))
                .arg(pooler->port)),
        test::kWaitMs);
    QVERIFY2(!page->managedStatus().contains("this run starts"), qPrintable(page->managedStatus()));
    // Another pool size chosen: the page says the run starts one of that size.
    qobject_cast<QSpinBox*>(form->field("pool_size"))->setValue(12);
    QTRY_VERIFY_WITH_TIMEOUT(page->managedStatus().contains("a pool of 12 server connections"),
                             test::kWaitMs);
  }

  void closingTheWindowStopsAStartOfServersUnderWay() {
    auto w = test::fresh_window(dir_.path(), 5);
    QVERIFY(w);
    TargetsPage* page = w->targetsPage();
    const auto targets = w->targets();
    // A plan chosen starts PostgreSQL in the background (initdb alone takes seconds) ...
    page->startManaged({.postgres = true});
    // ... and the window closes at once: the start ends where it is, not seconds later with a
    // server no run will use.
    page->waitForBackground();
    QVERIFY(targets->managed_postgres() == nullptr);
  }

  void thePageFitsA1280x800Window() {
    auto w = test::fresh_window(dir_.path(), 4, {1280, 800});
    QVERIFY(w);
    TargetsPage* page = show_targets(*w);
    auto* scroll = qobject_cast<QScrollArea*>(page->parentWidget()->parentWidget());
    QTest::mouseClick(child<QRadioButton>(page, "pgExternal"), Qt::LeftButton);
    QVERIFY(child<QRadioButton>(page, "pgExternal")->isChecked());
    // No sideways scrolling, and the standbys' field as wide as the others, with room for three
    // lines of text.
    QVERIFY(!scroll->horizontalScrollBar()->isVisible());
    auto* standbys = child<QPlainTextEdit>(page, "pgStandbys");
    auto* conninfo = child<QLineEdit>(page, "pgConninfo");
    QCOMPARE(standbys->width(), conninfo->width());
    QVERIFY(standbys->viewport()->height() >= 3 * standbys->fontMetrics().lineSpacing());
    QVERIFY(page->width() <= scroll->viewport()->width());
  }

  void cleanupTestCase() {
    standby_.reset();  // before its primary
    primary_.reset();
  }
};

QTEST_MAIN(TargetsPageTest)
#include "test_targets_page.moc"
