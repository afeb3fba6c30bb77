#pragma once
// `perflab-cli compare OLD.json NEW.json [--diff ratio|percent] [--fail-on slower[:PCT]
// [--benchmark NAME]...] [--json]`: new/old per benchmark of two runs of one experiment, with its
// interval and verdict, like bench.cmp; as a regression gate, exit 1 when a benchmark got slower
// beyond the tolerance with its whole interval.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace perflab {

class CompareCommand {
 public:
  explicit CompareCommand(CLI::App& cmd);
  // After parsing: prints the comparison on stdout (JSON with --json) and, with --fail-on, the
  // gate's outcome; 1 when the gate fails, or with a one-line message when a run file cannot be
  // read or the runs are of different experiments; 2 when a rule or a --benchmark name is wrong
  // (before any file is read, or naming no benchmark of either run).
  int run(const CLI::App& cmd);

 private:
  std::string old_, new_, diff_ = "ratio", fail_on_;
  std::vector<std::string> benchmarks_;
  bool json_ = false;
};

}  // namespace perflab
