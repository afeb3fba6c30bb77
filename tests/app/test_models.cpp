// The window's table models on their own, without a window or a server: rows, columns, data,
// roles and sorting of the points, history and comparison tables (as KDAB hotspot tests its
// models), with QAbstractItemModelTester checking each against Qt's model contract.
#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QPersistentModelIndex>
#include <QTableView>
#include <QtTest>

#include "common/compare.h"
#include "common/figure_format.h"
#include "common/run_io.h"
#include "models/comparison_model.h"
#include "models/history_model.h"
#include "models/points_model.h"
#include "models/run_history.h"
#include "models/value_text.h"
#include "registry/registry.h"
#include "sample_runs.h"
#include "waits.h"

using namespace perflab;
using namespace perflab::gui;

namespace {

QString text(const QAbstractItemModel& m, int row, int column, int role = Qt::DisplayRole) {
  return m.index(row, column).data(role).toString();
}

QStringList column_texts(const QAbstractItemModel& m, int column) {
  QStringList out;
  for (int r = 0; r < m.rowCount(); ++r) out << text(m, r, column);
  return out;
}

HistoryEntry entry(const QString& path, const QString& name, const QString& when,
                   const QString& experiment, const QString& status) {
  HistoryEntry e;
  e.path = path;
  e.name = name;
  e.started = QDateTime::fromString(when, Qt::ISODate);
  e.experiment = experiment;
  e.title = experiment;
  e.status = status;
  e.targets = "postgres (managed) host=127.0.0.1 port=5433";
  e.message = status == "failed" ? "connection refused" : "";
  return e;
}

// As RunHistory lists them: newest first.
std::vector<HistoryEntry> three_entries() {
  return {entry("/h/run 10.json", "run 10", "2026-03-02T10:00:00", "iolist", "finished"),
          entry("/h/run 2.json", "run 2", "2026-03-01T09:00:00", "sharding", "failed"),
          entry("/h/base.json", "base", "2026-02-27T08:30:00", "iolist", "cancelled")};
}

}  // namespace

class ModelsTest : public QObject {
  Q_OBJECT

 private slots:
  void naturalOrderReadsNumbersAsNumbers() {
    QVERIFY(natural_less("2 writers", "10 writers"));
    QVERIFY(!natural_less("10 writers", "2 writers"));
    QVERIFY(natural_less("1 writer", "100 writers"));
    QVERIFY(natural_less("append/iolist/2", "append/iolist/16"));
    QVERIFY(natural_less("abc", "abd"));
    QVERIFY(natural_less("ab", "abc"));
    QVERIFY(!natural_less("007", "7") && !natural_less("7", "007"));
    QVERIFY(!natural_less("same", "same"));
  }

  void pointsModelShowsOneGroupOfTheRun() {
    PointsModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(m.rowCount(), 0);
    auto run = std::make_shared<const Run>(test::sample_run());
    m.setRun(run, "append");
    QCOMPARE(m.rowCount(), 6);  // 2 series x 3 writer counts
    QCOMPARE(m.columnCount(), int(PointsModel::ColumnCount));
    QCOMPARE(m.headerData(PointsModel::MedianColumn, Qt::Horizontal).toString(), "Median");
    QCOMPARE(m.headerData(PointsModel::SamplesColumn, Qt::Horizontal).toString(), "n");
    // The run's order: series after series, points in the order measured.
    QCOMPARE(
        column_texts(m, PointsModel::SeriesColumn),
        QStringList({"interpolate", "interpolate", "interpolate", "iolist", "iolist", "iolist"}));
    QCOMPARE(text(m, 4, PointsModel::PointColumn), "10 writers");
    const Point& p = run->find_series("append", "iolist")->points[1];
    QCOMPARE(text(m, 4, PointsModel::MedianColumn), format_value(p.stats.median));
    QCOMPARE(m.index(4, PointsModel::MedianColumn).data(PointsModel::ValueRole).toDouble(),
             p.stats.median);
    QCOMPARE(m.index(4, PointsModel::MaxColumn).data(PointsModel::ValueRole).toDouble(),
             p.stats.max);
    QCOMPARE(text(m, 4, PointsModel::SamplesColumn), "5");
    QCOMPARE(text(m, 4, PointsModel::UnitColumn), "µs/op");
    QCOMPARE(m.index(4, PointsModel::P95Column).data(Qt::TextAlignmentRole).toInt(),
             int(Qt::AlignRight | Qt::AlignVCenter));
    QVERIFY(!m.index(4, PointsModel::SeriesColumn).data(Qt::TextAlignmentRole).isValid());
    // Every cell of a row answers the point's tooltip with its exact figures.
    const QString tip = point_tooltip(*run->group("append"), "iolist", p);
    QVERIFY(tip.contains("median: <b>" + format_value(p.stats.median) + " µs/op"));
    QVERIFY(tip.contains("samples: 5"));
    // The interval with its real level (5 samples: 93.8%), never "95%" beside it.
    QVERIFY2(tip.contains("median with its interval: " +
                          QString::fromStdString(format_estimate(p.median_ci)).toHtmlEscaped()),
             qPrintable(tip));
    QVERIFY2(tip.contains("(93.8% CI, n = 5)") && !tip.contains("95%"), qPrintable(tip));
    QCOMPARE(text(m, 4, PointsModel::UnitColumn, Qt::ToolTipRole), tip);
    // The median's interval and the CV have their columns; a calm point is not marked.
    QVERIFY(p.median_ci.has_interval());
    QCOMPARE(text(m, 4, PointsModel::IntervalColumn),
             QString::fromStdString(format_estimate(p.median_ci)));
    QCOMPARE(text(m, 4, PointsModel::CvColumn), QString::fromStdString(format_percent(p.cv)));
    QVERIFY(!m.index(4, PointsModel::CvColumn).data(Qt::ForegroundRole).isValid());
    QCOMPARE(text(m, 4, PointsModel::SeriesColumn, PointsModel::SeriesRole), "iolist");
    QCOMPARE(text(m, 4, PointsModel::MinColumn, PointsModel::LabelRole), "10 writers");
    QCOMPARE(m.point(4), &p);
    QCOMPARE(m.series(4)->name, std::string("iolist"));
    QCOMPARE(m.rowOf("iolist", "10 writers"), 4);
    QCOMPARE(m.rowOf("iolist", "3 writers"), -1);
    QVERIFY(!m.point(6) && !m.point(-1));
    // The model shares the run rather than copying it.
    QCOMPARE(m.sharedRun().get(), run.get());
    // Another group; a group the run does not have.
    m.setGroup("build");
    QCOMPARE(m.rowCount(), 10);
    QCOMPARE(text(m, 0, PointsModel::UnitColumn), "ns/statement");
    m.setGroup("nope");
    QCOMPARE(m.rowCount(), 0);
  }

  void pointsModelMarksNoisyPoints() {
    PointsModel m;
    Run run = test::sample_run();
    run.add_point("append", "iolist",
                  test::sample_point("noisy", {100, 150, 80, 130, 60, 170, 95}));
    MachineNoise busy;
    busy.load_per_core_before = 2.5;
    busy.loaded = true;
    run.machine = busy;
    m.setRun(std::make_shared<const Run>(run), "append");
    const int row = m.rowOf("iolist", "noisy");
    QVERIFY(row >= 0);
    QVERIFY(text(m, row, PointsModel::CvColumn).endsWith(" !"));
    QCOMPARE(m.index(row, PointsModel::CvColumn).data(Qt::ForegroundRole).value<QColor>(),
             QColor(176, 96, 0));
    const QString tip = text(m, row, PointsModel::SeriesColumn, Qt::ToolTipRole);
    QVERIFY2(tip.contains("this figure is noisy (CV") && tip.contains("the machine was busy") &&
                 tip.contains("rerun, or raise repetitions"),
             qPrintable(tip));
  }

  void pointsModelWritesCountsAsWholeNumbers() {
    // The pooled benchmark's backends: one exact count a point, "20", never "20.000".
    Run run = test::sample_run();
    run.ensure_group({"pooled_backends", "Server backends serving N clients", "backends",
                      "concurrent clients", true, true, "backends"});
    Point p = test::sample_point("1000", {20}, 1000);
    p.extra["backends"] = 20;
    run.add_point("pooled_backends", "pooled", p);
    PointsModel m;
    m.setRun(std::make_shared<const Run>(run), "pooled_backends");
    QCOMPARE(m.rowCount(), 1);
    QCOMPARE(text(m, 0, PointsModel::MedianColumn), "20");
    QCOMPARE(text(m, 0, PointsModel::MaxColumn), "20");
    QCOMPARE(text(m, 0, PointsModel::IntervalColumn), "20 (no interval)");
    const QString tip = text(m, 0, PointsModel::SeriesColumn, Qt::ToolTipRole);
    QVERIFY2(tip.contains("median: <b>20 backends</b>") && tip.contains("backends: 20") &&
                 !tip.contains("20.0"),
             qPrintable(tip));
    // Another unit keeps its decimals.
    m.setRun(std::make_shared<const Run>(run), "append");
    QVERIFY(text(m, 0, PointsModel::MedianColumn).contains('.'));
  }

  void pointsModelSortsByExactValues() {
    PointsModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    Run r = test::sample_run();
    // Medians whose text order differs from their numeric order (9.5 vs 10.0, 100.0).
    r.series_for("append", "iolist").points[0].stats.median = 9.5;
    m.setRun(std::make_shared<const Run>(r), "append");
    QPersistentModelIndex held = m.index(m.rowOf("interpolate", "10 writers"), 0);
    m.sort(PointsModel::MedianColumn, Qt::AscendingOrder);
    QCOMPARE(m.sortColumn(), int(PointsModel::MedianColumn));
    for (int row = 1; row < m.rowCount(); ++row)
      QVERIFY(m.point(row - 1)->stats.median <= m.point(row)->stats.median);
    QCOMPARE(text(m, 0, PointsModel::MedianColumn), format_value(9.5));
    // A held index (a selection) follows its row.
    QCOMPARE(text(m, held.row(), PointsModel::SeriesColumn), "interpolate");
    QCOMPARE(text(m, held.row(), PointsModel::PointColumn), "10 writers");
    QCOMPARE(m.rowOf("interpolate", "10 writers"), held.row());
    m.sort(PointsModel::MedianColumn, Qt::DescendingOrder);
    for (int row = 1; row < m.rowCount(); ++row)
      QVERIFY(m.point(row - 1)->stats.median >= m.point(row)->stats.median);
    // Points: numbers inside labels read as numbers; equal keys keep the run's order.
    m.sort(PointsModel::PointColumn, Qt::AscendingOrder);
    QCOMPARE(column_texts(m, PointsModel::PointColumn),
             QStringList({"1 writer", "1 writer", "10 writers", "10 writers", "100 writers",
                          "100 writers"}));
    QCOMPARE(
        column_texts(m, PointsModel::SeriesColumn),
        QStringList({"interpolate", "iolist", "interpolate", "iolist", "interpolate", "iolist"}));
    // A new snapshot of a live run keeps the order the user chose.
    r.add_point("append", "iolist", test::sample_point("2 writers", {1, 2, 3}));
    m.setRun(std::make_shared<const Run>(r), "append");
    QCOMPARE(m.rowCount(), 7);
    QCOMPARE(text(m, 2, PointsModel::PointColumn), "2 writers");
    QCOMPARE(m.rowOf("iolist", "2 writers"), 2);  // found in the new snapshot
    // Column -1: back to the run's order.
    m.sort(-1);
    QCOMPARE(text(m, 0, PointsModel::SeriesColumn), "interpolate");
    QCOMPARE(text(m, 6, PointsModel::PointColumn), "2 writers");
  }

  void aHeaderClickSortsTheView() {
    PointsModel m;
    m.setRun(std::make_shared<const Run>(test::sample_run()), "append");
    QTableView view;
    view.setModel(&m);
    setup_table_view(&view);
    QCOMPARE(m.sortColumn(), -1);  // the run's order until a header is clicked
    QCOMPARE(text(m, 0, PointsModel::SeriesColumn), "interpolate");
    view.resize(900, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view, test::kWaitMs));
    QHeaderView* header = view.horizontalHeader();
    const QPoint at(header->sectionViewportPosition(PointsModel::MedianColumn) + 5,
                    header->height() / 2);
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(m.sortColumn(), int(PointsModel::MedianColumn));
    const double first = m.point(0)->stats.median;
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, at);  // again: the other way
    QVERIFY(m.point(0)->stats.median > first);
  }

  void historyModelListsRunsNewestFirst() {
    HistoryModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.setEntries(three_entries());
    QCOMPARE(m.rowCount(), 3);
    QCOMPARE(m.columnCount(), int(HistoryModel::ColumnCount));
    QCOMPARE(m.headerData(HistoryModel::StatusColumn, Qt::Horizontal).toString(), "Status");
    QCOMPARE(column_texts(m, HistoryModel::NameColumn), QStringList({"run 10", "run 2", "base"}));
    QCOMPARE(text(m, 1, HistoryModel::DateColumn), "2026-03-01 09:00:00");
    QCOMPARE(m.index(1, HistoryModel::DateColumn).data(HistoryModel::ValueRole).toDateTime(),
             QDateTime::fromString("2026-03-01T09:00:00", Qt::ISODate));
    QCOMPARE(text(m, 1, HistoryModel::ExperimentColumn), "sharding");
    QCOMPARE(text(m, 1, HistoryModel::NoteColumn), "connection refused");
    // Long cells are cut in the view: the tooltip has all of it.
    QCOMPARE(text(m, 1, HistoryModel::TargetsColumn, Qt::ToolTipRole),
             "postgres (managed) host=127.0.0.1 port=5433");
    QCOMPARE(text(m, 2, HistoryModel::StatusColumn, HistoryModel::PathRole), "/h/base.json");
    QCOMPARE(m.entry(2)->name, QString("base"));
    QVERIFY(!m.entry(3));
    // A file is found by its path, however it is spelled.
    QCOMPARE(m.rowOfPath("/h/run 2.json"), 1);
    QCOMPARE(m.rowOfPath("/h/./x/../run 2.json"), 1);
    QCOMPARE(m.rowOfPath("/h/other.json"), -1);
  }

  void historyModelSortsByDateAndName() {
    HistoryModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.setEntries(three_entries());
    m.sort(HistoryModel::DateColumn, Qt::AscendingOrder);
    QCOMPARE(column_texts(m, HistoryModel::NameColumn), QStringList({"base", "run 2", "run 10"}));
    QCOMPARE(m.rowOfPath("/h/run 10.json"), 2);
    m.sort(HistoryModel::NameColumn, Qt::AscendingOrder);  // "run 2" before "run 10"
    QCOMPARE(column_texts(m, HistoryModel::NameColumn), QStringList({"base", "run 2", "run 10"}));
    m.sort(HistoryModel::NameColumn, Qt::DescendingOrder);
    QCOMPARE(column_texts(m, HistoryModel::NameColumn), QStringList({"run 10", "run 2", "base"}));
    m.sort(HistoryModel::StatusColumn, Qt::AscendingOrder);
    QCOMPARE(column_texts(m, HistoryModel::StatusColumn),
             QStringList({"cancelled", "failed", "finished"}));
    // A refreshed list keeps the chosen order; entries() stays as listed.
    auto more = three_entries();
    more.insert(more.begin(),
                entry("/h/new.json", "new", "2026-03-03T00:00:00", "caching", "cancelled"));
    m.setEntries(more);
    QCOMPARE(column_texts(m, HistoryModel::StatusColumn),
             QStringList({"cancelled", "cancelled", "failed", "finished"}));
    QCOMPARE(m.entries().front().name, QString("new"));
    QCOMPARE(m.rowOfPath("/h/new.json"), 0);
    QCOMPARE(m.rowOfPath("/h/base.json"), 1);  // equal keys keep the listed order
  }

  void runHistoryStoresRunsAsFiles() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    RunHistory h(dir.filePath("runs"));
    Run a = test::sample_run();
    Run b = test::sample_run(2.0);
    b.started_unix_ms += 60'000;
    const QString pa = h.save(a), pa2 = h.save(a), pb = h.save(b);
    QVERIFY(pa != pa2);  // same start second: a second name, never an overwrite
    QVERIFY(QFileInfo(pa).fileName().endsWith("-iolist.json"));
    QFile junk(dir.filePath("runs/junk.json"));
    QVERIFY(junk.open(QIODevice::WriteOnly));
    junk.write("not a run");
    junk.close();
    QStringList skipped;
    auto list = h.list(&skipped);
    QCOMPARE(list.size(), std::size_t(3));
    QCOMPARE(skipped, QStringList({"junk.json"}));
    QCOMPARE(list.front().path, pb);  // newest first
    QCOMPARE(list.front().status, QString("finished"));
    QVERIFY(list.front().targets.contains("postgres (managed)"));
    QCOMPARE(h.load(pb).series.size(), b.series.size());
    // Rename: checked names, never over another run.
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, h.rename(pa, "a/b"));
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, h.rename(pa, QFileInfo(pb).completeBaseName()));
    const QString renamed = h.rename(pa, "baseline.json");
    QCOMPARE(QFileInfo(renamed).fileName(), QString("baseline.json"));
    QVERIFY(!QFile::exists(pa));
    // Import validates; remove deletes.
    QVERIFY_THROWS_EXCEPTION(std::exception, h.import_file(junk.fileName()));
    const QString imported = h.import_file(renamed);
    QCOMPARE(h.load(imported).experiment, std::string("iolist"));
    h.remove(imported);
    QVERIFY(!QFile::exists(imported));
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, h.remove(imported));
    // What the store lists, the model shows.
    HistoryModel m;
    m.setEntries(h.list());
    QCOMPARE(m.rowCount(), 3);
    QCOMPARE(m.entry(m.rowOfPath(renamed))->name, QString("baseline"));
  }

  // The history names what a run changed: from the defaults, or from its plan's values.
  void runHistoryNamesThePlanAndWhatChangedFromIt() {
    Run run = test::sample_run();
    run.params = {{"writers", "1,10"}};
    QTemporaryDir dir;
    const RunHistory h(dir.path(),
                       [](const Run& r) { return param_defaults(r.experiment, r.params); });
    QCOMPARE(h.summarize(run, "a.json").params, QString("writers=1,10"));
    // Without the defaults, every parameter is listed.
    QCOMPARE(RunHistory(dir.path()).summarize(run, "a.json").params, QString("writers=1,10"));
    const auto exp = make_experiment("iolist");
    const std::vector<Plan> plans = exp->plans();
    const Plan* lecture = find_plan(plans, "lecture");
    QVERIFY(lecture);
    run.params =
        Params::resolve(exp->params(),
                        with_plan(exp->plans(), {{"plan", "lecture"}, {"repetitions", "5"}}))
            .values();
    QCOMPARE(h.summarize(run, "a.json").params, QString("plan=lecture; repetitions=5"));
    QVERIFY(RunHistory(dir.path()).summarize(run, "a.json").params.contains("events="));
  }

  void comparisonModelShowsRatiosAndVerdicts() {
    ComparisonModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    Run old_run = test::sample_run(1.0);
    Run new_run = test::sample_run(0.5);  // everything twice as fast
    m.setComparison(compare_runs(old_run, new_run));
    QCOMPARE(m.rowCount(), 16);  // 6 append + 10 build points
    QCOMPARE(m.columnCount(), int(ComparisonModel::ColumnCount));
    QCOMPARE(m.headerData(ComparisonModel::RatioColumn, Qt::Horizontal).toString(), "New / old");
    const int r =
        column_texts(m, ComparisonModel::BenchmarkColumn).indexOf("append/iolist/10 writers");
    QVERIFY(r >= 0);
    const ComparisonRow* row = m.row(r);
    QCOMPARE(row->name, std::string("append/iolist/10 writers"));
    QCOMPARE(text(m, r, ComparisonModel::UnitColumn), "µs/op");
    QCOMPARE(text(m, r, ComparisonModel::OldColumn), format_value(row->old_value));
    QCOMPARE(m.index(r, ComparisonModel::NewColumn).data(ComparisonModel::ValueRole).toDouble(),
             row->new_value);
    QCOMPARE(text(m, r, ComparisonModel::RatioColumn), "0.500");
    QCOMPARE(text(m, r, ComparisonModel::ChangeColumn), "-50.0%");
    QVERIFY(text(m, r, ComparisonModel::BenchmarkColumn, Qt::ToolTipRole)
                .contains("old median: " + format_value(row->old_value) + " µs/op"));
    // Lower is better for appends: half the time is better, in green on the ratio columns; the
    // interval, p-value and verdict columns say why.
    QCOMPARE(text(m, r, ComparisonModel::IntervalColumn),
             QString::fromStdString(format_estimate(row->judgement->ratio)));
    QCOMPARE(text(m, r, ComparisonModel::PValueColumn),
             QString::fromStdString(format_p_value(row->utest.p_value)) + " (unreliable)");
    QCOMPARE(text(m, r, ComparisonModel::VerdictColumn), "faster");
    QVERIFY(text(m, r, ComparisonModel::BenchmarkColumn, Qt::ToolTipRole).contains("unreliable"));
    QCOMPARE(m.index(r, 0).data(ComparisonModel::VerdictRole).toInt(), 1);
    QCOMPARE(m.index(r, ComparisonModel::RatioColumn).data(Qt::ForegroundRole).value<QColor>(),
             QColor(0, 128, 0));
    QVERIFY(!m.index(r, ComparisonModel::OldColumn).data(Qt::ForegroundRole).isValid());
    // Three repetitions a side (the build points) cannot be significant (p >= 0.1): no colour,
    // even for a ratio of 0.5.
    const int b = column_texts(m, ComparisonModel::BenchmarkColumn).indexOf("build/iolist/100");
    QVERIFY(b >= 0);
    QCOMPARE(m.index(b, 0).data(ComparisonModel::VerdictRole).toInt(), 0);
    QVERIFY(!m.index(b, ComparisonModel::RatioColumn).data(Qt::ForegroundRole).isValid());
    // Where higher is better, the same ratio is worse, in red.
    for (auto& g : new_run.groups) g.lower_is_better = false;
    m.setComparison(compare_runs(old_run, new_run));
    QCOMPARE(m.index(r, 0).data(ComparisonModel::VerdictRole).toInt(), -1);
    QCOMPARE(m.index(r, ComparisonModel::ChangeColumn).data(Qt::ForegroundRole).value<QColor>(),
             QColor(176, 0, 32));
    QCOMPARE(text(m, r, ComparisonModel::VerdictColumn), "slower");
    // 2% slower with 5 repetitions a side: within the noise, neither.
    Run close = test::sample_run(1.02);
    m.setComparison(compare_runs(old_run, close));
    for (int i = 0; i < m.rowCount(); ++i) {
      QCOMPARE(m.index(i, 0).data(ComparisonModel::VerdictRole).toInt(), 0);
      QVERIFY(!m.index(i, ComparisonModel::RatioColumn).data(Qt::ForegroundRole).isValid());
    }
  }

  void comparisonModelSorts() {
    ComparisonModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    Run old_run = test::sample_run(1.0);
    Run new_run = test::sample_run(1.0);
    // Different changes per benchmark: the 10-writer append doubles, one build point halves.
    for (auto& s : new_run.series)
      for (auto& p : s.points) {
        if (p.label == "10 writers") p.stats.median *= 2;
        if (s.group == "build" && p.label == "1000") p.stats.median *= 0.5;
      }
    m.setComparison(compare_runs(old_run, new_run));
    // compare_runs' order: by ratio, ascending.
    for (int i = 1; i < m.rowCount(); ++i) QVERIFY(m.row(i - 1)->ratio <= m.row(i)->ratio);
    m.sort(ComparisonModel::RatioColumn, Qt::DescendingOrder);
    QCOMPARE(text(m, 0, ComparisonModel::RatioColumn), "2.000");
    QCOMPARE(text(m, m.rowCount() - 1, ComparisonModel::RatioColumn), "0.500");
    m.sort(ComparisonModel::BenchmarkColumn, Qt::AscendingOrder);
    QStringList names = column_texts(m, ComparisonModel::BenchmarkColumn);
    QVERIFY(names.indexOf("append/iolist/1 writer") < names.indexOf("append/iolist/10 writers"));
    QVERIFY(names.indexOf("build/iolist/10") < names.indexOf("build/iolist/1000"));
    QVERIFY(names.indexOf("build/iolist/100") < names.indexOf("build/iolist/8191"));
    m.sort(-1);
    for (int i = 1; i < m.rowCount(); ++i) QVERIFY(m.row(i - 1)->ratio <= m.row(i)->ratio);
  }
};

QTEST_MAIN(ModelsTest)
#include "test_models.moc"
