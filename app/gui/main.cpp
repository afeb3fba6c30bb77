// perflab: the desktop application.
//   perflab [--history-dir DIR] [--settings FILE]
//   perflab --screenshot FILE [--experiment ID] [--param K=V]... [--group ID] [--log]
//           [--size WxH]   runs the experiment, then saves a picture of the window and quits
#include <cstdio>
#include <iostream>

#include <QApplication>
#include <QCommandLineParser>
#include <QScreen>
#include <QTimer>

#include "chart_panel.h"
#include "main_window.h"
#include "param_form.h"

void perflab_init_gui_resources();

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName("Perflab");
  QApplication::setApplicationName("perflab");
  QApplication::setApplicationDisplayName("Perflab");
  QApplication::setDesktopFileName("perflab");
  perflab_init_gui_resources();
  QApplication::setWindowIcon(QIcon(":/icons/perflab.svg"));

  QCommandLineParser p;
  p.setApplicationDescription("Perflab: re-run published performance experiments.");
  p.addHelpOption();
  QCommandLineOption history(QStringLiteral("history-dir"), "Folder of saved runs.", "DIR");
  QCommandLineOption settings(QStringLiteral("settings"),
                              "Settings file (INI) instead of the default.", "FILE");
  QCommandLineOption shot(QStringLiteral("screenshot"), "Run, save a picture of the window, quit.",
                          "FILE");
  QCommandLineOption exp(QStringLiteral("experiment"), "Experiment to select.", "ID");
  QCommandLineOption param(QStringLiteral("param"), "Parameter K=V for the run (repeatable).",
                           "K=V");
  QCommandLineOption group(QStringLiteral("group"), "Chart to show.", "ID");
  QCommandLineOption log(QStringLiteral("log"), "Log scale on y (and x where numeric).");
  QCommandLineOption size(QStringLiteral("size"), "Window size for the screenshot.", "WxH",
                          "1500x900");
  p.addOptions({history, settings, shot, exp, param, group, log, size});
  p.process(app);

  perflab::gui::WindowOptions opts;
  opts.history_dir = p.value(history);
  opts.settings_file = p.value(settings);
  perflab::gui::MainWindow w(opts);
  if (p.isSet(exp) && !w.selectExperiment(p.value(exp))) {
    std::cerr << "perflab: unknown experiment '" << p.value(exp).toStdString() << "'\n";
    return 2;
  }
  if (p.isSet(param)) {
    std::map<std::string, std::string> values = w.paramForm()->values();
    for (const QString& kv : p.values(param)) {
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        std::cerr << "perflab: --param wants K=V, not '" << kv.toStdString() << "'\n";
        return 2;
      }
      values[kv.left(eq).toStdString()] = kv.mid(eq + 1).toStdString();
    }
    w.paramForm()->setValues(values);
  }
  if (p.isSet(log)) {
    w.resultsPanel()->setLogY(true);
    w.resultsPanel()->setLogX(true);
  }
  if (!p.isSet(shot)) {
    w.show();
    return app.exec();
  }

  // Screenshot mode.
  QStringList wh = p.value(size).split('x');
  w.resize(wh.value(0).toInt() > 0 ? wh.value(0).toInt() : 1500,
           wh.value(1).toInt() > 0 ? wh.value(1).toInt() : 900);
  w.show();
  const QString out = p.value(shot);
  const QString want_group = p.value(group);
  int code = 0;
  QObject::connect(&w, &perflab::gui::MainWindow::runFinished, &app, [&](const perflab::Run& run) {
    if (run.status != perflab::RunStatus::Finished) {
      std::cerr << "perflab: the run did not finish: " << run.message << "\n";
      code = 1;
    }
    if (!want_group.isEmpty()) w.resultsPanel()->setGroup(want_group.toStdString());
    QTimer::singleShot(500, &app, [&] {
      if (!w.grab().save(out)) {
        std::cerr << "perflab: cannot write " << out.toStdString() << "\n";
        code = 1;
      }
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
