// The window's open path with run files holding impossible values: refused with the file and
// the field named, the run on show and the history left as they were; a failed run without
// points still opens, to read its message.
#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>
#include <functional>
#include <nlohmann/json.hpp>

#include "common/run_io.h"
#include "main_window.h"
#include "sample_runs.h"
#include "waits.h"

using namespace perflab;
using namespace perflab::gui;

class OpenRunTest : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

  // A run file: sample_run() as JSON, edited.
  QString runFile(const QString& name, const std::function<void(nlohmann::json&)>& edit) {
    auto j = nlohmann::json::parse(run_to_json(test::sample_run()));
    edit(j);
    const QString path = dir_.filePath(name);
    write_file_atomically(path.toStdString(), j.dump());
    return path;
  }

 private slots:
  void impossibleValuesAreRefusedAndChangeNothing() {
    MainWindow w(WindowOptions{dir_.filePath("history"), dir_.filePath("settings.ini")});
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w, test::kWaitMs));
    QSignalSpy opened(&w, &MainWindow::runOpened);
    const QString good = runFile("good.json", [](nlohmann::json&) {});
    w.openRunInBackground(good);
    QVERIFY(opened.wait(60000));
    QCOMPARE(opened.front().at(0).toBool(), true);
    const std::string shown = run_to_json(w.currentRun());
    const QStringList history = QDir(dir_.filePath("history")).entryList(QDir::Files);

    struct Case {
      QString name;
      std::function<void(nlohmann::json&)> edit;
      QString field;
    };
    const auto sample = [](double v) {
      return [v](nlohmann::json& j) { j["series"][0]["points"][1]["samples"][2] = v; };
    };
    const std::vector<Case> cases = {
        {"negative.json", sample(-1), "series[0].points[1].samples[2]"},
        {"huge.json", sample(1e308), "series[0].points[1].samples[2]"},
        {"denormal.json", sample(5e-324), "series[0].points[1].samples[2]"},
        {"x.json", [](nlohmann::json& j) { j["series"][2]["points"][0]["x"] = -1e308; },
         "series[2].points[0].x"},
        {"ended.json", [](nlohmann::json& j) { j["ended_unix_ms"] = 1795999999000LL; },
         "ended_unix_ms"},
        {"empty.json",
         [](nlohmann::json& j) {
           for (auto& s : j["series"]) s["points"] = nlohmann::json::array();
         },
         "series"},
    };
    for (const auto& c : cases) {
      const QString path = runFile(c.name, c.edit);
      const QString named = path + ": field \"" + c.field + "\": ";
      opened.clear();
      w.openRunInBackground(path);
      QVERIFY2(opened.wait(60000), qPrintable(c.name));
      QCOMPARE(opened.front().at(0).toBool(), false);
      const QString error = opened.front().at(1).toString();
      QVERIFY2(error.contains(named), qPrintable(error));
      QVERIFY2(!error.contains('\n'), qPrintable(error));
      QVERIFY2(w.bannerText().contains("Cannot open " + c.name + ": " + named),
               qPrintable(w.bannerText()));
      QString sync_error;
      QVERIFY(!w.openRun(path, &sync_error));  // the synchronous path refuses it the same way
      QVERIFY2(sync_error.contains(named), qPrintable(sync_error));
      // Nothing changed: the run on show, its path, the history.
      QCOMPARE(w.currentRunPath(), good);
      QVERIFY(run_to_json(w.currentRun()) == shown);
      QCOMPARE(QDir(dir_.filePath("history")).entryList(QDir::Files), history);
    }

    // A failed run without a point is a record of the failure: it opens, with its message.
    const QString failed = runFile("failed.json", [](nlohmann::json& j) {
      j["status"] = "failed";
      j["message"] = "PostgreSQL at 127.0.0.1:5433 refused the connection";
      for (auto& s : j["series"]) s["points"] = nlohmann::json::array();
    });
    opened.clear();
    w.openRunInBackground(failed);
    QVERIFY(opened.wait(60000));
    QCOMPARE(opened.front().at(0).toBool(), true);
    QCOMPARE(w.currentRunPath(), failed);
    QVERIFY2(w.bannerText().contains("This run failed: PostgreSQL at 127.0.0.1:5433 refused"),
             qPrintable(w.bannerText()));
  }
};

QTEST_MAIN(OpenRunTest)
#include "test_open_run.moc"
