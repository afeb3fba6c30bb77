#pragma once
// `perflab-cli chart`: renders a run file's charts to PNG, SVG and PDF without a display.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "charts/chart_export.h"

namespace perflab {

// The command's options on a CLI11 command (perflab-cli's `chart`):
//   RUN.json [--group ID]... [--log | --log-y | --log-x] [--presentation] [--theme NAME]
//            [--width W] [--height H] [--png F]... [--svg F]... [--pdf F]...
class ChartCommand {
 public:
  explicit ChartCommand(CLI::App& cmd);
  // After parsing: renders everything in memory, then writes every file or none. Prints a
  // one-line message on stderr and returns non-zero on bad input (2: usage, 1: the run file or
  // an output cannot be read/written). Creates a QApplication on the offscreen platform when
  // none exists.
  int run(const CLI::App& cmd);

 private:
  std::string input_;
  charts::ExportSpec spec_;
  bool log_ = false, log_y_ = false, log_x_ = false;  // unset: each group's own scale
  std::string theme_ = "light";
  int width_ = 1000, height_ = 600;
  std::vector<std::string> png_, svg_, pdf_;
};

// `perflab-cli chart ARGS...`: args are the words after "chart".
int run_chart_command(const std::vector<std::string>& args);

}  // namespace perflab
