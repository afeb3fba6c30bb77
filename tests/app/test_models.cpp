// The window's table models on their own, without a window or a server: rows, columns, data,
// roles and sorting of the points, history and comparison tables (as KDAB hotspot tests its
// models), with QAbstractItemModelTester checking each against Qt's model contract.
#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QPersistentModelIndex>
#include <QTableView>
#include <QtTest>

#include "points_model.h"
#include "sample_runs.h"
#include "value_text.h"

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
    QCOMPARE(text(m, 4, PointsModel::UnitColumn), "us/op");
    QCOMPARE(m.index(4, PointsModel::P95Column).data(Qt::TextAlignmentRole).toInt(),
             int(Qt::AlignRight | Qt::AlignVCenter));
    QVERIFY(!m.index(4, PointsModel::SeriesColumn).data(Qt::TextAlignmentRole).isValid());
    // Every cell of a row answers the point's tooltip with its exact figures.
    const QString tip = point_tooltip(*run->group("append"), "iolist", p);
    QVERIFY(tip.contains("median: <b>" + format_value(p.stats.median) + " us/op"));
    QVERIFY(tip.contains("samples: 5"));
    QCOMPARE(text(m, 4, PointsModel::UnitColumn, Qt::ToolTipRole), tip);
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
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QHeaderView* header = view.horizontalHeader();
    const QPoint at(header->sectionViewportPosition(PointsModel::MedianColumn) + 5,
                    header->height() / 2);
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(m.sortColumn(), int(PointsModel::MedianColumn));
    const double first = m.point(0)->stats.median;
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, at);  // again: the other way
    QVERIFY(m.point(0)->stats.median > first);
  }
};

QTEST_MAIN(ModelsTest)
#include "test_models.moc"
