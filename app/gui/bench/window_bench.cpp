// perflab-window-bench: how the window copes with large runs and a long history, measured (a
// benchmark, not a test: it prints figures and asserts nothing).
//   perflab-window-bench make-run POINTS OUT.json    a synthetic run of POINTS points
//   perflab-window-bench make-history RUNS DIR       RUNS small runs saved into DIR
//   perflab-window-bench startup DIR                 window start with DIR as its history:
//                                                    first paint, history listed (with its
//                                                    index, then rebuilding it)
//   perflab-window-bench open RUN.json               opening a run in a shown window: the
//                                                    window's first paint, the run on show
//                                                    (read in the background; its chart
//                                                    painted), then its side panel and table
//                                                    (later turns of the event loop) and the
//                                                    worst UI-thread stall meanwhile
//   perflab-window-bench load RUN.json              reading the run file (core's load_run)
//                                                    and writing it back (save_run), 3 times
//   perflab-window-bench stall [EXPERIMENT]          the longest the UI thread was blocked
//                                                    during a default run (sharding: managed
//                                                    Redis servers), by a 5 ms watchdog timer
// scripts/bench_window.sh runs them all and times `perflab RUN.json --screenshot` too.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <QApplication>
#include <QChartView>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTimer>

#include "chart_panel.h"
#include "common/clock.h"
#include "common/run_io.h"
#include "history_page.h"
#include "main_window.h"

using namespace perflab;

namespace {

// A numeric group of four series sharing the points, five samples each, and a small
// categorical group: the shape of a long sweep.
Run synthetic_run(long points, std::int64_t started_ms) {
  Run run;
  run.experiment = "iolist";
  run.title = "IO lists";
  run.status = RunStatus::Finished;
  run.started_unix_ms = started_ms;
  run.ended_unix_ms = started_ms + 60000;
  run.params = {{"repetitions", "5"}};
  run.ensure_group({"sweep", "A long sweep", "us/op", "events per statement", true, true,
                    "Synthetic: many points per series."});
  run.ensure_group({"append", "Append", "us/op", "", false, true, "Synthetic."});
  const char* names[] = {"interpolate", "iolist", "prepared", "copy"};
  const long per_series = std::max(1L, points / 4);
  for (const char* n : names)
    for (long i = 1; i <= per_series; ++i) {
      Point p;
      p.x = double(i);
      p.label = std::to_string(i);
      const double v = 10.0 * double(i) * (1 + double(n[0] % 7) / 10);
      p.samples = {v, v * 1.01, v * 0.99, v * 1.02, v * 0.98};
      run.add_point("sweep", n, std::move(p));
    }
  for (const char* n : names)
    for (const char* w : {"1 writer", "10 writers"}) {
      Point p;
      p.label = w;
      p.samples = {100, 101, 99};
      run.add_point("append", n, std::move(p));
    }
  return run;
}

double ms(const QElapsedTimer& t) {
  return double(t.nsecsElapsed()) / 1e6;
}

int make_run(long points, const QString& out) {
  save_run(synthetic_run(points, 1796000000000), out.toStdString());
  std::printf("wrote %s: %ld points, %lld bytes\n", qPrintable(out), points,
              static_cast<long long>(QFile(out).size()));
  return 0;
}

int make_history(int runs, const QString& dir) {
  QDir().mkpath(dir);
  for (int i = 0; i < runs; ++i) {
    const QString path = QDir(dir).filePath(QString("run-%1.json").arg(i, 4, 10, QChar('0')));
    save_run(synthetic_run(40, 1796000000000 + std::int64_t(i) * 60000), path.toStdString());
  }
  std::printf("wrote %d runs into %s\n", runs, qPrintable(dir));
  return 0;
}

// One start of the window: time to the first paint and to the history listed.
void one_start(const QString& dir, const char* what) {
  QTemporaryDir settings;
  QElapsedTimer t;
  t.start();
  gui::MainWindow w({dir, settings.filePath("s.ini")});
  w.resize(1280, 800);
  w.show();
  QApplication::processEvents();  // the first paint
  const double painted = ms(t);
  QEventLoop loop;
  QObject::connect(w.historyPage(), &gui::HistoryPage::loaded, &loop, &QEventLoop::quit);
  if (w.historyPage()->loading()) loop.exec();
  const double listed = ms(t);
  std::printf("startup %-22s first paint %8.1f ms, history of %zu runs listed %8.1f ms\n", what,
              painted, w.historyPage()->entries().size(), listed);
}

int startup(const QString& dir) {
  one_start(dir, "(index present)");
  QFile::remove(QDir(dir).filePath(gui::RunHistory::kIndexName));
  one_start(dir, "(index rebuilt)");
  one_start(dir, "(index present again)");
  return 0;
}

// A 5 ms timer on the UI thread: a gap between two ticks beyond 5 ms is time the event loop
// could not run. Each gap also records the UI thread's CPU time in it: on a shared machine a
// long gap with little CPU is the thread waiting for a core, not the window's own work.
class Watchdog {
 public:
  struct Gap {
    double wall_ms, cpu_ms;
  };
  Watchdog() {
    dog_.setInterval(5);
    QObject::connect(&dog_, &QTimer::timeout, [this] {
      const std::int64_t cpu = thread_cpu_ns();
      if (since_.isValid()) gaps_.push_back({ms(since_), double(cpu - cpu_) / 1e6});
      since_.start();
      cpu_ = cpu;
    });
    dog_.start();
  }
  // The gaps' wall times, sorted.
  std::vector<double> stop() {
    dog_.stop();
    std::vector<double> wall;
    for (const auto& g : gaps_) wall.push_back(g.wall_ms);
    std::sort(wall.begin(), wall.end());
    return wall;
  }
  // The gap with the most UI-thread CPU in it.
  Gap busiest() const {
    Gap out{0, 0};
    for (const auto& g : gaps_)
      if (g.cpu_ms > out.cpu_ms) out = g;
    return out;
  }

 private:
  QTimer dog_;
  QElapsedTimer since_;
  std::int64_t cpu_ = 0;
  std::vector<Gap> gaps_;
};

double quantile(const std::vector<double>& sorted, double q) {
  return sorted.empty() ? 0.0 : sorted[std::size_t(q * double(sorted.size() - 1))];
}

// Notes a paint of the widget it watches.
struct PaintSeen : QObject {
  bool seen = false;
  bool eventFilter(QObject* watched, QEvent* e) override {
    if (e->type() == QEvent::Paint) seen = true;
    return QObject::eventFilter(watched, e);
  }
};

int open(const QString& path) {
  QTemporaryDir tmp;
  QElapsedTimer t;
  t.start();
  gui::MainWindow w({tmp.filePath("history"), tmp.filePath("s.ini")});
  w.resize(1280, 800);
  w.show();
  QApplication::processEvents();  // the first paint
  const double painted = ms(t);
  Watchdog dog;
  QEventLoop loop;
  bool ok = false;
  QObject::connect(&w, &gui::MainWindow::runOpened, &loop, [&](bool opened, const QString& why) {
    ok = opened;
    if (!opened) std::cerr << "perflab-window-bench: " << why.toStdString() << "\n";
    loop.quit();
  });
  bool whole = false;
  QObject::connect(&w, &gui::MainWindow::runShown, [&] { whole = true; });
  PaintSeen chart_painted;  // the run's first paint: its headline chart
  w.resultsPanel()->chartView()->viewport()->installEventFilter(&chart_painted);
  w.openRunInBackground(path);
  loop.exec();
  chart_painted.seen = false;
  while (ok && !chart_painted.seen) QApplication::processEvents(QEventLoop::WaitForMoreEvents);
  const double shown = ms(t);
  while (ok && !whole) QApplication::processEvents(QEventLoop::WaitForMoreEvents);
  QApplication::processEvents();  // the table's paint
  const double all = ms(t);
  const auto gaps = dog.stop();
  if (!ok) return 1;
  std::printf(
      "open %s: window painted %.0f ms, run on show (its chart painted) %.0f ms, side panel and "
      "table too %.0f ms; UI thread meanwhile: worst gap %.0f ms, p99 %.1f ms, %zu ticks; the "
      "busiest gap: %.0f ms of UI-thread CPU in %.0f ms\n",
      qPrintable(QFileInfo(path).fileName()), painted, shown, all, gaps.empty() ? 0.0 : gaps.back(),
      quantile(gaps, 0.99), gaps.size(), dog.busiest().cpu_ms, dog.busiest().wall_ms);
  return 0;
}

int load(const QString& path) {
  QTemporaryDir tmp;
  for (int i = 1; i <= 3; ++i) {
    QElapsedTimer t;
    t.start();
    const Run run = load_run(path.toStdString());
    const double read = ms(t);
    t.restart();
    save_run(run, tmp.filePath("copy.json").toStdString());
    const double written = ms(t);
    std::size_t points = 0;
    for (const auto& s : run.series) points += s.points.size();
    std::printf("load %s, try %d: %zu points read in %.0f ms, written in %.0f ms\n",
                qPrintable(QFileInfo(path).fileName()), i, points, read, written);
  }
  return 0;
}

int stall(const QString& experiment) {
  QTemporaryDir tmp;
  gui::MainWindow w({tmp.filePath("history"), tmp.filePath("s.ini")});
  w.resize(1280, 800);
  w.show();
  if (!w.selectExperiment(experiment)) {
    std::cerr << "perflab-window-bench: unknown experiment\n";
    return 2;
  }
  QEventLoop loop;
  std::optional<Run> run;
  QObject::connect(&w, &gui::MainWindow::runFinished, &loop, [&](const Run& r) {
    run = r;
    loop.quit();
  });
  QTimer::singleShot(1800000, &loop, &QEventLoop::quit);
  QElapsedTimer total;
  total.start();
  QString error;
  if (!w.startRun(&error)) {
    std::cerr << "perflab-window-bench: " << error.toStdString() << "\n";
    return 1;
  }
  Watchdog dog;
  loop.exec();
  const auto gaps = dog.stop();
  if (!run) {
    std::cerr << "perflab-window-bench: the run did not end in 30 minutes\n";
    return 1;
  }
  std::printf(
      "stall %s run (%s, %.0f s): %zu ticks, worst gap %.1f ms, p99 %.1f ms, median %.1f ms "
      "(timer interval 5 ms); the busiest gap: %.1f ms of UI-thread CPU in %.1f ms\n",
      qPrintable(experiment), to_string(run->status), ms(total) / 1000, gaps.size(),
      gaps.empty() ? 0.0 : gaps.back(), quantile(gaps, 0.99), quantile(gaps, 0.5),
      dog.busiest().cpu_ms, dog.busiest().wall_ms);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName("Perflab");
  QApplication::setApplicationName("perflab-window-bench");
  const QStringList a = QApplication::arguments();
  if (a.size() >= 4 && a[1] == "make-run") return make_run(a[2].toLong(), a[3]);
  if (a.size() >= 4 && a[1] == "make-history") return make_history(a[2].toInt(), a[3]);
  if (a.size() >= 3 && a[1] == "startup") return startup(a[2]);
  if (a.size() >= 3 && a[1] == "open") return open(a[2]);
  if (a.size() >= 3 && a[1] == "load") return load(a[2]);
  if (a.size() >= 2 && a[1] == "stall") return stall(a.size() >= 3 ? a[2] : "sharding");
  std::cerr << "usage: perflab-window-bench make-run POINTS OUT.json | make-history RUNS DIR | "
               "startup DIR | open RUN.json | load RUN.json | stall [EXPERIMENT]\n";
  return 2;
}
