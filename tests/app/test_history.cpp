// The perflab window's History with saved runs (no server needed), on the offscreen platform:
// the Delete key, the trash and undo, its columns, its index and its rebuilding, import, and
// Compare from History.
#include <QBarSeries>
#include <QBarSet>
#include <QFile>
#include <QFileInfo>
#include <QKeyEvent>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "chart_panel.h"
#include "common/run_io.h"
#include "compare_page.h"
#include "fresh_window.h"
#include "history_page.h"
#include "main_window.h"
#include "models/history_model.h"
#include "sample_runs.h"
#include "waits.h"

using namespace perflab;
using namespace perflab::gui;

class HistoryTest : public QObject, test::SavedRunsWindows {
  Q_OBJECT

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void deleteKeyMovesToTheTrashAndUndoRestores() {
    auto w = freshWindow();
    QVERIFY(w);
    HistoryPage* page = w->historyPage();
    const QString path = saveRun(*w, test::sample_run());
    Run later = test::sample_run(2);
    later.started_unix_ms += 60000;
    later.ended_unix_ms += 60000;
    saveRun(*w, later);
    QCOMPARE(page->entries().size(), std::size_t(2));
    w->findChild<QTabWidget*>()->setCurrentWidget(page);
    page->selectPath(path);
    page->table()->setFocus();
    QTest::keyClick(page->table(), Qt::Key_Delete);
    QCOMPARE(page->entries().size(), std::size_t(1));
    QVERIFY(!QFile::exists(path));
    QCOMPARE(w->history().trashed().size(), std::size_t(1));
    QTest::keyClick(page->table(), Qt::Key_Z, Qt::ControlModifier);  // undo
    QCOMPARE(page->entries().size(), std::size_t(2));
    QVERIFY(QFile::exists(path));
    QVERIFY(w->history().trashed().empty());
    // From the trash, later.
    page->selectPath(path);
    QVERIFY(page->deleteSelected());
    const auto trashed = w->history().trashed();
    QCOMPARE(trashed.size(), std::size_t(1));
    QVERIFY(page->restore({trashed.front().path}));
    QVERIFY(QFile::exists(path));
  }

  void historyShowsStatusDurationAndChangedParameters() {
    auto w = freshWindow();
    QVERIFY(w);
    Run run = test::sample_run();  // 60 s long; events=100 is the default, repetitions=5 is not
    saveRun(*w, run);
    HistoryModel* m = w->historyPage()->model();
    QCOMPARE(m->rowCount(), 1);
    auto cell = [&](int column) { return m->index(0, column).data().toString(); };
    QCOMPARE(cell(HistoryModel::StatusColumn), QString("finished"));
    QCOMPARE(cell(HistoryModel::DurationColumn), QString("1 min 00 s"));
    QVERIFY2(cell(HistoryModel::ParamsColumn).contains("repetitions=5"),
             qPrintable(cell(HistoryModel::ParamsColumn)));
    QVERIFY(!cell(HistoryModel::ParamsColumn).contains("events="));
  }

  void historyIsListedFromItsIndexAndRebuiltWithoutIt() {
    auto w = freshWindow();
    QVERIFY(w);
    const QString a = saveRun(*w, test::sample_run());
    const QString index = QDir(w->history().dir()).filePath(RunHistory::kIndexName);
    QVERIFY(QFile::exists(index));
    // The listing comes from the index: a run file whose size and time are unchanged is not
    // read again (here: its summary in the index says another experiment).
    QFile f(index);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray text = f.readAll();
    f.close();
    QVERIFY(text.contains("\"iolist\""));
    text.replace("\"iolist\"", "\"from-the-index\"");
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
    f.close();
    QCOMPARE(w->history().list().front().experiment, QString("from-the-index"));
    // Without the index, every run is read and the index written again.
    QVERIFY(QFile::remove(index));
    QCOMPARE(w->history().list().front().experiment, QString("iolist"));
    QVERIFY(QFile::exists(index));
    QCOMPARE(w->history().list().front().path, a);
    // A damaged index (not JSON, members of another type) is rebuilt, never an error.
    const QByteArray name = QFileInfo(a).fileName().toUtf8();
    for (const QByteArray& damaged :
         {QByteArray("{ not json"), QByteArray("{\"version\": 1, \"files\": []}"),
          "{\"version\": 1, \"files\": {\"" + name +
              "\": {\"size\": \"big\", \"mtime\": [], \"run\": \"yes\", \"experiment\": 5}}}"}) {
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write(damaged);
      f.close();
      QCOMPARE(w->history().list().front().experiment, QString("iolist"));
    }
  }

  void importKeepsTheNameAndTheBytes() {
    auto w = freshWindow();
    QVERIFY(w);
    const QString file = dir_.filePath("lecture baseline.json");
    write_file_atomically(file.toStdString(), run_to_json(test::sample_run(), -1));  // compact
    QString error;
    QVERIFY2(w->historyPage()->importFile(file, &error), qPrintable(error));
    const QString imported = w->historyPage()->selectedPath();
    QCOMPARE(QFileInfo(imported).fileName(), QString("lecture baseline.json"));
    QCOMPARE(QFileInfo(imported).size(), QFileInfo(file).size());  // stored at its own size
    QVERIFY(w->historyPage()->importFile(file, &error));           // again: a free name
    QCOMPARE(QFileInfo(w->historyPage()->selectedPath()).fileName(),
             QString("lecture baseline-2.json"));
  }

  void compareFromHistoryShowsBothRunsAndRefusesARunWithItself() {
    auto w = freshWindow();
    QVERIFY(w);
    const QString old_path = saveRun(*w, test::sample_run(1.0));
    Run faster = test::sample_run(0.5);
    faster.started_unix_ms += 60000;
    const QString new_path = saveRun(*w, faster);
    HistoryPage* page = w->historyPage();
    page->table()->clearSelection();
    for (const QString& p : {old_path, new_path})
      page->table()->selectionModel()->select(
          page->model()->index(page->model()->rowOfPath(p), 0),
          QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QTest::mouseClick(page->findChild<QPushButton*>("historyCompare"), Qt::LeftButton);
    ComparePage* cmp = w->comparePage();
    auto* old_box = cmp->findChild<QComboBox*>("compareOld");
    auto* new_box = cmp->findChild<QComboBox*>("compareNew");
    QCOMPARE(old_box->currentData().toString(), old_path);
    QCOMPARE(new_box->currentData().toString(), new_path);
    QVERIFY(!cmp->comparison().rows.empty());
    QCOMPARE(cmp->comparison().rows.front().ratio, 0.5);
    // Old and new of one series share a hue: new solid, old lighter.
    ChartPanel* chart = cmp->chartPanel();
    chart->setGroup("append");
    QColor old_c, new_c;
    for (auto* s : chart->chart()->series())
      if (auto* bars = qobject_cast<QBarSeries*>(s))
        for (auto* set : bars->barSets()) {
          if (set->label() == "old: iolist") old_c = set->color();
          if (set->label() == "new: iolist") new_c = set->color();
        }
    QVERIFY(old_c.isValid() && new_c.isValid());
    QCOMPARE(old_c.hue(), new_c.hue());
    QVERIFY(old_c.lightness() > new_c.lightness());
    // The same run twice: refused with a message, nothing compared.
    new_box->setCurrentIndex(new_box->findData(old_path));
    QTest::mouseClick(cmp->findChild<QPushButton*>("compareButton"), Qt::LeftButton);
    QVERIFY(cmp->error().contains("same run"));
    QVERIFY(cmp->comparison().rows.empty());
  }
};

QTEST_MAIN(HistoryTest)
#include "test_history.moc"
