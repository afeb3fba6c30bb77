#pragma once
// `perflab-cli compare OLD.json NEW.json [--diff ratio|percent]`: new/old per benchmark of two
// runs of one experiment, with its interval and verdict, like bench.cmp.
#include <string>

#include <CLI/CLI.hpp>

namespace perflab {

class CompareCommand {
 public:
  explicit CompareCommand(CLI::App& cmd);
  // After parsing: prints the comparison on stdout; 1 and a one-line message when a run file
  // cannot be read or the runs are of different experiments.
  int run(const CLI::App& cmd);

 private:
  std::string old_, new_, diff_ = "ratio";
};

}  // namespace perflab
