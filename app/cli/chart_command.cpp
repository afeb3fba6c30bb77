#include "cli/chart_command.h"

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include <QApplication>
#include <QBuffer>
#include <QSaveFile>

#include "charts/chart_export.h"
#include "cli/qt_app.h"
#include "cli11/command_line.h"
#include "common/run_io.h"
#include "common/run_measured.h"

namespace perflab {

namespace {

struct Output {
  charts::ExportFormat format;
  std::string path;
};

const std::map<std::string, QChart::ChartTheme>& themes() {
  static const std::map<std::string, QChart::ChartTheme> t = {
      {"light", QChart::ChartThemeLight},
      {"dark", QChart::ChartThemeDark},
      {"blue-cerulean", QChart::ChartThemeBlueCerulean},
      {"brown-sand", QChart::ChartThemeBrownSand},
      {"blue-ncs", QChart::ChartThemeBlueNcs},
      {"high-contrast", QChart::ChartThemeHighContrast},
      {"blue-icy", QChart::ChartThemeBlueIcy},
      {"qt", QChart::ChartThemeQt},
  };
  return t;
}

}  // namespace

ChartCommand::ChartCommand(CLI::App& cmd) {
  cmd.footer(
      "Renders the run's charts (all groups, or the --group ones) without a display. The run's "
      "experiment and parameters go into the SVG description and PDF title.");
  cmd.add_option("RUN.json", input_, "the run file (perflab-cli run --out)")->required();
  cmd.add_option("--group", spec_.groups, "a group to chart (repeat for several; default: all)")
      ->allow_extra_args(false)
      ->default_str("");
  cmd.add_flag("--log", log_,
               "log scale on y, and on x where x is numeric (default: each chart's own scale)");
  cmd.add_flag("--log-y", log_y_, "log scale on y");
  cmd.add_flag("--log-x", log_x_, "log scale on x");
  cmd.add_flag("--presentation", spec_.options.presentation, "larger fonts and lines, for slides");
  std::vector<std::string> names;
  for (const auto& [name, theme] : themes()) names.push_back(name);
  cmd.add_option("--theme", theme_, "colours")->check(CLI::IsMember(names));
  const auto pixels = CLI::Range(100, 20000);
  cmd.add_option("--width", width_,
                 "width of each chart in pixels; several charts are laid out two per row in "
                 "PNG/SVG, one per page in PDF")
      ->check(pixels);
  cmd.add_option("--height", height_, "height of each chart in pixels")->check(pixels);
  const auto file = CLI::Validator(
      [](std::string& f) { return f.empty() ? std::string("needs a file name") : std::string(); },
      "FILE");
  cmd.add_option("--png", png_, "write a PNG image")
      ->check(file)
      ->allow_extra_args(false)
      ->default_str("");
  cmd.add_option("--svg", svg_, "write an SVG image")
      ->check(file)
      ->allow_extra_args(false)
      ->default_str("");
  cmd.add_option("--pdf", pdf_, "write a PDF document")
      ->check(file)
      ->allow_extra_args(false)
      ->default_str("");
}

int ChartCommand::run(const CLI::App& cmd) {
  if (png_.empty() && svg_.empty() && pdf_.empty())
    return cli::fail(
        cmd, cli::kExitUsage,
        "nothing to write: give --png, --svg or --pdf (see " + cli::command_name(cmd) + " --help)");
  if (log_ || log_y_) spec_.options.log_y = true;
  if (log_ || log_x_) spec_.options.log_x = true;
  spec_.options.theme = themes().at(theme_);
  spec_.size = QSize(width_, height_);
  std::vector<Output> outputs;
  for (const auto& f : png_) outputs.push_back({charts::ExportFormat::Png, f});
  for (const auto& f : svg_) outputs.push_back({charts::ExportFormat::Svg, f});
  for (const auto& f : pdf_) outputs.push_back({charts::ExportFormat::Pdf, f});
  try {
    // Before the run is read and drawn: a folder, device or FIFO named is refused, never
    // replaced.
    for (const auto& out : outputs) check_output_path(out.path);
    Run run = load_measured_run(input_);
    AppGuard app;
    // Render everything in memory first: a bad group or size writes no file at all.
    std::vector<QByteArray> data;
    for (const auto& out : outputs) {
      QBuffer buf;
      buf.open(QIODevice::WriteOnly);
      switch (out.format) {
        case charts::ExportFormat::Png:
          charts::write_png(run, spec_, buf);
          break;
        case charts::ExportFormat::Svg:
          charts::write_svg(run, spec_, buf);
          break;
        case charts::ExportFormat::Pdf:
          charts::write_pdf(run, spec_, buf);
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
  } catch (const std::exception& e) {  // the run file, a group, a size or an output
    return cli::fail(cmd, cli::kExitFailed, e.what());
  }
}

int run_chart_command(const std::vector<std::string>& args) {
  CLI::App app("", "perflab-cli chart");
  cli::setup(app);
  ChartCommand chart(app);
  if (auto rc = cli::parse(app, args)) return *rc;
  return chart.run(app);
}

}  // namespace perflab
