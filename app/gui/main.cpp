// perflab: the desktop application.
//   perflab [--history-dir DIR] [--settings FILE] [RUN.json]   (opens a saved run)
//   perflab --help | --version   (prints, then quits; the version is the CMake project's)
//   perflab --screenshot FILE [--experiment ID] [--param K=V]... [--group ID] [--log]
//           [--size WxH]   runs the experiment, then saves a picture of the window and quits
//   perflab RUN.json --screenshot FILE [--group ID] [--size WxH]   opens the run, saves a
//           picture of the window once it is painted and quits (times opening a large run)
#include <cstdio>
#include <iostream>
#include <utility>

#include <QApplication>
#include <QCommandLineParser>
#include <QScreen>
#include <QTimer>

#include "background_stop.h"
#include "chart_panel.h"
#include "common/run.h"
#include "main_window.h"
#include "param_form.h"
#include "report/resources.h"
#include "run_opener.h"

namespace {

struct Options {
  QCommandLineOption history{QStringLiteral("history-dir"), "Folder of saved runs.", "DIR"};
  QCommandLineOption settings{QStringLiteral("settings"),
                              "Settings file (INI) instead of the default.", "FILE"};
  QCommandLineOption shot{QStringLiteral("screenshot"), "Run, save a picture of the window, quit.",
                          "FILE"};
  QCommandLineOption exp{QStringLiteral("experiment"), "Experiment to select.", "ID"};
  QCommandLineOption param{QStringLiteral("param"), "Parameter K=V for the run (repeatable).",
                           "K=V"};
  QCommandLineOption group{QStringLiteral("group"), "Chart to show.", "ID"};
  QCommandLineOption log{QStringLiteral("log"), "Log scale on y (and x where numeric)."};
  QCommandLineOption size{QStringLiteral("size"), "Window size for the screenshot.", "WxH",
                          "1500x900"};
};

// Selects the experiment, sets the parameters and the log toggles the command line asks for;
// false after a one-line message when it cannot.
bool apply_options(const QCommandLineParser& p, const Options& o, perflab::gui::MainWindow& w) {
  if (p.isSet(o.exp) && !w.selectExperiment(p.value(o.exp))) {
    std::cerr << "perflab: unknown experiment '" << p.value(o.exp).toStdString() << "'\n";
    return false;
  }
  if (p.isSet(o.param)) {
    std::map<std::string, std::string> values = w.paramForm()->values();
    for (const QString& kv : p.values(o.param)) {
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        std::cerr << "perflab: --param wants K=V, not '" << kv.toStdString() << "'\n";
        return false;
      }
      values[kv.left(eq).toStdString()] = kv.mid(eq + 1).toStdString();
    }
    if (const auto refused = w.paramForm()->setValues(values); !refused.empty()) {
      for (const auto& why : refused) std::cerr << "perflab: " << why << "\n";
      return false;
    }
  }
  return true;
}

// The chart a screenshot shows: a group (or the run's headline), log scales if asked (once the
// chart is on show: a scale is chosen per chart).
struct ShotChart {
  QString group;
  bool log = false;
};

void show_chart(perflab::gui::MainWindow& w, const ShotChart& c) {
  if (!c.group.isEmpty()) w.resultsPanel()->setGroup(c.group.toStdString());
  if (c.log) {
    w.resultsPanel()->setLogY(true);
    w.resultsPanel()->setLogX(true);
  }
}

void resize_for_screenshot(perflab::gui::MainWindow& w, const QString& size) {
  QStringList wh = size.split('x');
  w.resize(wh.value(0).toInt() > 0 ? wh.value(0).toInt() : 1500,
           wh.value(1).toInt() > 0 ? wh.value(1).toInt() : 900);
}

// Saves a picture of the window to `out`; false after a one-line message. A PNG is compressed
// lightly: the same pixels, written in a fraction of the time (Qt's default is zlib's level 9).
bool save_window(perflab::gui::MainWindow& w, const QString& out) {
  if (w.grab().save(out, nullptr, out.endsWith(".png", Qt::CaseInsensitive) ? 80 : -1)) return true;
  std::cerr << "perflab: cannot write " << out.toStdString() << "\n";
  return false;
}

// Screenshot of a run file: the window shown at once, the run read in the background, then
// painted, saved, quit. Returns the exit code (2 after one line when the file is not a run).
int screenshot_of_open_run(QApplication& app, perflab::gui::MainWindow& w, const QString& path,
                           QFuture<perflab::gui::OpenedRun> reading, const QString& out,
                           const ShotChart& chart, const QString& size) {
  resize_for_screenshot(w, size);
  w.show();
  int code = 0;
  QObject::connect(&w, &perflab::gui::MainWindow::runOpened, &app,
                   [&](bool ok, const QString& error) {
                     if (!ok) {
                       std::cerr << "perflab: " << error.toStdString() << "\n";
                       code = 2;
                       app.quit();
                       return;
                     }
                     show_chart(w, chart);
                   });
  // Once the whole run is on show (chart, side panel, table), queued behind its paint.
  QObject::connect(&w, &perflab::gui::MainWindow::runShown, &app, [&] {
    QTimer::singleShot(0, &app, [&] {
      if (!save_window(w, out)) code = 1;
      app.quit();
    });
  });
  w.openRunRead(path, std::move(reading));
  app.exec();
  return code;
}

// Screenshot mode: runs the selected experiment, shows `group`, saves a picture of the window
// to `out` and quits. Returns the exit code.
int screenshot(QApplication& app, perflab::gui::MainWindow& w, const QString& out,
               const ShotChart& chart, const QString& size) {
  resize_for_screenshot(w, size);
  w.show();
  int code = 0;
  QObject::connect(&w, &perflab::gui::MainWindow::runFinished, &app, [&](const perflab::Run& run) {
    if (run.status != perflab::RunStatus::Finished) {
      std::cerr << "perflab: the run did not finish: " << run.message << "\n";
      code = 1;
    }
    show_chart(w, chart);
    QTimer::singleShot(500, &app, [&] {
      if (!save_window(w, out)) code = 1;
      app.quit();
    });
  });
  QString error;
  if (!w.startRun(&error)) {
    std::cerr << "perflab: " << error.toStdString() << "\n";
    return 2;
  }
  app.exec();
  return code;
}

// The window, as the command line asks; returns the exit code once it is closed.
int run_window(QApplication& app, const QCommandLineParser& p, const Options& o) {
  perflab::gui::WindowOptions opts;
  opts.history_dir = p.value(o.history);
  opts.settings_file = p.value(o.settings);
  // A screenshot leaves the settings as they are: its size is not the person's window.
  opts.read_only_settings = p.isSet(o.shot);
  // A run named here is read while the window is built (a large one takes longer than that).
  QFuture<perflab::gui::OpenedRun> reading;
  if (!p.positionalArguments().isEmpty())
    reading = perflab::gui::read_run_to_show(p.positionalArguments().front());
  perflab::gui::MainWindow w(opts);
  if (!apply_options(p, o, w)) return 2;
  const ShotChart chart{p.value(o.group), p.isSet(o.log)};
  if (!p.positionalArguments().isEmpty()) {
    const QString path = p.positionalArguments().front();
    if (p.isSet(o.shot))
      return screenshot_of_open_run(app, w, path, std::move(reading), p.value(o.shot), chart,
                                    p.value(o.size));
    // The window at once; the run when it is read (the reason in the banner if it cannot be).
    QObject::connect(&w, &perflab::gui::MainWindow::runOpened, &app,
                     [](bool ok, const QString& error) {
                       if (!ok) std::cerr << "perflab: " << error.toStdString() << "\n";
                     });
    w.show();
    w.openRunRead(path, std::move(reading));
    return app.exec();
  }
  if (p.isSet(o.shot)) return screenshot(app, w, p.value(o.shot), chart, p.value(o.size));
  w.show();
  return app.exec();
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName("Perflab");
  QApplication::setApplicationName("perflab");
  QApplication::setApplicationDisplayName("Perflab");
  QApplication::setDesktopFileName("perflab");
  // --version prints "perflab 0.1.0", as perflab-cli and perflab-proxy do.
  QApplication::setApplicationVersion(QString::fromLatin1(perflab::perflab_version()));
  perflab_init_gui_resources();
  QApplication::setWindowIcon(QIcon(":/icons/perflab.svg"));

  QCommandLineParser p;
  p.setApplicationDescription("Perflab: re-run published performance experiments.");
  p.addHelpOption();
  p.addVersionOption();
  const Options o;
  p.addOptions({o.history, o.settings, o.shot, o.exp, o.param, o.group, o.log, o.size});
  p.addPositionalArgument("run", "A Perflab run file to open.", "[RUN.json]");
  p.process(app);
  if (p.positionalArguments().size() > 1) {
    std::cerr << "perflab: one run file at a time\n";
    return 2;
  }
  const int code = run_window(app, p, o);
  // The window is gone; its managed servers may still be stopping: none outlives Perflab.
  perflab::gui::wait_for_background_stops();
  return code;
}
