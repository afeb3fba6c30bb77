// `perflab-cli compare` (compare_command.h): two runs of one experiment, new/old.
#include "cli/compare_command.h"

#include <iostream>

#include "cli/command.h"
#include "cli11/command_line.h"
#include "common/compare.h"
#include "common/run_io.h"
#include "common/run_measured.h"

namespace perflab {

CompareCommand::CompareCommand(CLI::App& cmd) {
  cmd.footer("new/old per benchmark of two runs of one experiment, like bench.cmp");
  cmd.add_option("OLD.json", old_, "the earlier run")->required();
  cmd.add_option("NEW.json", new_, "the later run")->required();
  cmd.add_option("-d,--diff", diff_, "how a change is shown")
      ->check(CLI::IsMember({"ratio", "percent"}));
}

int CompareCommand::run(const CLI::App&) {
  Run a, b;
  try {
    a = load_measured_run(old_);
    b = load_measured_run(new_);
  } catch (const RunFormatError& e) {
    return fail_program(cli::kExitFailed, e.what());
  }
  if (a.experiment != b.experiment)
    return fail_program(cli::kExitFailed, "cannot compare runs of different experiments (" +
                                              a.experiment + " vs " + b.experiment + ")");
  const CompareFormat fmt = diff_ == "percent" ? CompareFormat::Percent : CompareFormat::Ratio;
  std::cout << old_ << " vs\n" << new_ << "\n\n" << format_comparison(compare_runs(a, b), fmt);
  return cli::kExitOk;
}

}  // namespace perflab
