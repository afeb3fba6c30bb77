#pragma once
// A perflab window as on a first start, for the window tests: its own history folder and
// settings file, shown, its history read; and runs saved into its History.
#include <memory>

#include <QDir>
#include <QSize>
#include <QString>
#include <QTemporaryDir>
#include <QtTest>

#include "common/run.h"
#include "history_page.h"
#include "main_window.h"
#include "waits.h"

namespace perflab::test {

// The window number `n` in `dir` ("history<n>", "settings<n>.ini"); null when it did not show or
// did not finish reading its history.
inline std::unique_ptr<gui::MainWindow> fresh_window(const QString& dir, int n,
                                                     QSize size = {1280, 800}) {
  const QString id = QString::number(n);
  auto w = std::make_unique<gui::MainWindow>(gui::WindowOptions{
      QDir(dir).filePath("history" + id), QDir(dir).filePath("settings" + id + ".ini")});
  w->resize(size);
  w->show();
  if (!QTest::qWaitForWindowExposed(w.get(), test::kWaitMs)) return nullptr;
  if (!QTest::qWaitFor([&] { return !w->historyPage()->loading(); }, test::kWaitMs)) return nullptr;
  return w;
}

// The window tests' own folder, fresh windows numbered in it, and a run saved into a window's
// History as a finished run is.
class SavedRunsWindows {
 protected:
  QTemporaryDir dir_;
  int window_count_ = 0;

  std::unique_ptr<gui::MainWindow> freshWindow(QSize size = {1280, 800}) {
    return fresh_window(dir_.path(), ++window_count_, size);
  }

  static QString saveRun(gui::MainWindow& w, const Run& run) {
    const QString path = w.history().save(run);
    w.historyPage()->refresh();
    return path;
  }
};

}  // namespace perflab::test
