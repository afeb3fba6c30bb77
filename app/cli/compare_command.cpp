// `perflab-cli compare` (compare_command.h): two runs of one experiment, new/old.
#include "cli/compare_command.h"

#include <iostream>
#include <optional>
#include <stdexcept>

#include "cli/command.h"
#include "cli11/command_line.h"
#include "common/compare.h"
#include "common/compare_json.h"
#include "common/regression_gate.h"
#include "common/run_io.h"
#include "common/run_measured.h"

namespace perflab {

CompareCommand::CompareCommand(CLI::App& cmd) {
  cmd.footer("new/old per benchmark of two runs of one experiment, like bench.cmp");
  cmd.add_option("OLD.json", old_, "the earlier run")->required();
  cmd.add_option("NEW.json", new_, "the later run")->required();
  cmd.add_option("-d,--diff", diff_, "how a change is shown")
      ->check(CLI::IsMember({"ratio", "percent"}));
  auto* fail_on =
      cmd.add_option("--fail-on", fail_on_,
                     "exit 1 when a benchmark is slower: by the new run's threshold (slower), or "
                     "by more than PCT% (slower:PCT), its whole interval beyond; never on noise")
          ->type_name("slower[:PCT]");
  cmd.add_option("--benchmark", benchmarks_,
                 "hold only this benchmark to --fail-on (as compare names it; * and ? match "
                 "any text; repeatable)")
      ->needs(fail_on)
      ->type_name("NAME");
  cmd.add_flag("--json", json_, "print the comparison (and the gate) as JSON");
}

int CompareCommand::run(const CLI::App& cmd) {
  std::optional<GateRule> rule;
  if (!fail_on_.empty()) {
    try {
      rule = parse_gate_rule(fail_on_);
    } catch (const std::invalid_argument& e) {
      return cli::fail(cmd, cli::kExitUsage, e.what());
    }
    rule->names = benchmarks_;
  }
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
  const Comparison c = compare_runs(a, b);
  std::optional<GateResult> gate;
  if (rule) {
    gate = apply_gate(c, *rule);
    if (!gate->unmatched.empty())
      return cli::fail(cmd, cli::kExitUsage,
                       "--benchmark \"" + gate->unmatched.front() +
                           "\" names no benchmark of both runs (compare lists them)");
  }
  const CompareFormat fmt = diff_ == "percent" ? CompareFormat::Percent : CompareFormat::Ratio;
  if (json_)
    std::cout << comparison_json(c, old_, new_, gate ? &*gate : nullptr);
  else
    std::cout << old_ << " vs\n"
              << new_ << "\n\n"
              << format_comparison(c, fmt) << (gate ? "\n" + format_gate(*gate) : "");
  return gate && !gate->passed() ? cli::kExitFailed : cli::kExitOk;
}

}  // namespace perflab
