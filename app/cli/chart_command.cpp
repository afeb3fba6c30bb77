#include "chart_command.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include <QApplication>
#include <QBuffer>
#include <QSaveFile>

#include "charts/chart_export.h"
#include "common/run_io.h"

namespace perflab {

namespace {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Output {
  charts::ExportFormat format;
  std::string path;
};

int parse_size(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || v < 100 || v > 20000)
    throw UsageError(flag + " wants a whole number of pixels from 100 to 20000, not '" + text +
                     "'");
  return v;
}

QChart::ChartTheme parse_theme(const std::string& name) {
  static const std::pair<const char*, QChart::ChartTheme> themes[] = {
      {"light", QChart::ChartThemeLight},
      {"dark", QChart::ChartThemeDark},
      {"blue-cerulean", QChart::ChartThemeBlueCerulean},
      {"brown-sand", QChart::ChartThemeBrownSand},
      {"blue-ncs", QChart::ChartThemeBlueNcs},
      {"high-contrast", QChart::ChartThemeHighContrast},
      {"blue-icy", QChart::ChartThemeBlueIcy},
      {"qt", QChart::ChartThemeQt},
  };
  for (const auto& [n, t] : themes)
    if (name == n) return t;
  throw UsageError("unknown theme '" + name +
                   "' (light, dark, blue-cerulean, brown-sand, blue-ncs, high-contrast, "
                   "blue-icy, qt)");
}

QtMessageHandler g_qt_handler = nullptr;

// Qt's complaint about a missing runtime folder (XDG_RUNTIME_DIR: no desktop session, as in a
// terminal over ssh or in CI) is noise for a command that needs none; everything else passes.
void quiet_qt_messages(QtMsgType type, const QMessageLogContext& context, const QString& msg) {
  if (type == QtWarningMsg && msg.startsWith("QStandardPaths:") &&
      (msg.contains("XDG_RUNTIME_DIR") || msg.contains("runtime directory")))
    return;
  if (g_qt_handler)
    g_qt_handler(type, context, msg);
  else
    std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, msg)));
}

// A QApplication for the duration of the command, on the offscreen platform unless the user
// chose one: the CLI never needs a display.
class AppGuard {
 public:
  AppGuard() {
    if (QCoreApplication::instance()) return;
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    g_qt_handler = qInstallMessageHandler(quiet_qt_messages);
    app_ = std::make_unique<QApplication>(argc_, argv_);
  }

 private:
  int argc_ = 1;
  char name_[12] = "perflab-cli";
  char* argv_[2] = {name_, nullptr};
  std::unique_ptr<QApplication> app_;
};

}  // namespace

std::string chart_command_usage() {
  return "usage: perflab-cli chart RUN.json [--group ID]... [--log | --log-y | --log-x]\n"
         "                        [--presentation] [--theme NAME] [--width W] [--height H]\n"
         "                        [--png FILE] [--svg FILE] [--pdf FILE]\n"
         "Renders the run's charts (all groups, or the --group ones) without a display.\n"
         "  --log           log scale on y, and on x where x is numeric\n"
         "  --log-y/--log-x log scale on one axis only\n"
         "  --width/--height size of each chart in pixels (default 1000x600); several charts\n"
         "                  are laid out two per row in PNG/SVG, one per page in PDF\n"
         "  --presentation  larger fonts and lines, for slides\n"
         "  --theme NAME    light (default), dark, blue-cerulean, brown-sand, blue-ncs,\n"
         "                  high-contrast, blue-icy, qt\n"
         "The run's experiment and parameters go into the SVG description and PDF title.\n";
}

int run_chart_command(const std::vector<std::string>& args) {
  std::optional<std::string> input;
  charts::ExportSpec spec;
  std::vector<Output> outputs;
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      auto value = [&]() -> const std::string& {
        if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
        return args[++i];
      };
      if (a == "-h" || a == "--help") {
        std::cout << chart_command_usage();
        return 0;
      } else if (a == "--group") {
        spec.groups.push_back(value());
      } else if (a == "--log") {
        spec.options.log_y = spec.options.log_x = true;
      } else if (a == "--log-y") {
        spec.options.log_y = true;
      } else if (a == "--log-x") {
        spec.options.log_x = true;
      } else if (a == "--presentation") {
        spec.options.presentation = true;
      } else if (a == "--theme") {
        spec.options.theme = parse_theme(value());
      } else if (a == "--width") {
        spec.size.setWidth(parse_size(a, value()));
      } else if (a == "--height") {
        spec.size.setHeight(parse_size(a, value()));
      } else if (a == "--png" || a == "--svg" || a == "--pdf") {
        auto fmt = a == "--png"   ? charts::ExportFormat::Png
                   : a == "--svg" ? charts::ExportFormat::Svg
                                  : charts::ExportFormat::Pdf;
        const std::string& path = value();
        if (path.empty()) throw UsageError(a + " needs a file name");
        outputs.push_back({fmt, path});
      } else if (!a.empty() && a[0] == '-') {
        throw UsageError("unknown option '" + a + "'");
      } else if (input) {
        throw UsageError("one run file only ('" + *input + "' and '" + a + "' given)");
      } else {
        input = a;
      }
    }
    if (!input) throw UsageError("no run file given");
    if (outputs.empty()) throw UsageError("nothing to write: give --png, --svg or --pdf");
  } catch (const UsageError& e) {
    std::cerr << "perflab-cli chart: " << e.what() << " (see perflab-cli chart --help)\n";
    return 2;
  }

  try {
    Run run = load_run(*input);
    AppGuard app;
    // Render everything in memory first: a bad group or size writes no file at all.
    std::vector<QByteArray> data;
    for (const auto& out : outputs) {
      QBuffer buf;
      buf.open(QIODevice::WriteOnly);
      switch (out.format) {
        case charts::ExportFormat::Png:
          charts::write_png(run, spec, buf);
          break;
        case charts::ExportFormat::Svg:
          charts::write_svg(run, spec, buf);
          break;
        case charts::ExportFormat::Pdf:
          charts::write_pdf(run, spec, buf);
          break;
      }
      data.push_back(buf.data());
    }
    // Open and fill every temporary first; rename them only when all are complete.
    std::vector<std::unique_ptr<QSaveFile>> files;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      auto f = std::make_unique<QSaveFile>(QString::fromStdString(outputs[i].path));
      if (!f->open(QIODevice::WriteOnly) || f->write(data[i]) != data[i].size())
        throw charts::ChartError("cannot write '" + outputs[i].path +
                                 "': " + f->errorString().toStdString());
      files.push_back(std::move(f));
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (!files[i]->commit())
        throw charts::ChartError("cannot write '" + outputs[i].path +
                                 "': " + files[i]->errorString().toStdString());
      std::cout << "wrote " << outputs[i].path << "\n";
    }
    return 0;
  } catch (const RunFormatError& e) {
    std::cerr << "perflab-cli chart: " << e.what() << "\n";
  } catch (const charts::ChartError& e) {
    std::cerr << "perflab-cli chart: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "perflab-cli chart: " << e.what() << "\n";
  }
  return 1;
}

}  // namespace perflab
