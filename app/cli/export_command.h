#pragma once
// `perflab-cli export RUN.json [--csv F] [--gbench F] [--json F] [--hdr F --series S]`: a run
// file as CSV, Google Benchmark JSON (compare.py reads it), run JSON again, or one series'
// recorded latencies as HdrHistogram's percentile-distribution text (its plotter reads it).
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
  std::string in_, csv_, gbench_, json_, hdr_, series_, group_;
};

}  // namespace perflab
