#pragma once
// `perflab-cli export RUN.json [--csv F] [--gbench F] [--json F]`: a run file as CSV, Google
// Benchmark JSON (compare.py reads it) or run JSON again.
#include <string>

#include <CLI/CLI.hpp>

namespace perflab {

class ExportCommand {
 public:
  explicit ExportCommand(CLI::App& cmd);
  // After parsing: writes every requested file or none; a one-line message and non-zero on bad
  // input (2: nothing to write, 1: the run file or an output cannot be read/written).
  int run(const CLI::App& cmd);

 private:
  std::string in_, csv_, gbench_, json_;
};

}  // namespace perflab
