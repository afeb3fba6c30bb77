#pragma once
// `perflab-cli report RUN.json [--pdf F] [--html F]`: the run's report (every chart, the
// teaching text with the article beside the run, parameters, host) as a PDF and/or one
// self-contained HTML page — the same as the window's File → Export report….
#include <string>

#include <CLI/CLI.hpp>

namespace perflab {

class ReportCommand {
 public:
  explicit ReportCommand(CLI::App& cmd);
  // After parsing: writes every requested file or none; a one-line message and non-zero on bad
  // input (2: usage, 1: the run file or an output cannot be read/written).
  int run(const CLI::App& cmd);

 private:
  std::string input_, pdf_, html_;
};

}  // namespace perflab
