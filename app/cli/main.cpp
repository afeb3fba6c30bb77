// perflab-cli: the experiments without a window — list, run, compare, export, chart, report, bench.
// One command line (CLI11, app/cli11): `--opt value` and `--opt=value`, --help for every
// command, --version, a usage error as one line with exit code 2. Each subcommand is a file of
// its own (command.h says their shape); this file only puts them together.
#include <algorithm>
#include <string>
#include <vector>

#include "cli/bench_command.h"
#include "cli/chart_command.h"
#include "cli/command.h"
#include "cli/compare_command.h"
#include "cli/export_command.h"
#include "cli/list_command.h"
#include "cli/report_command.h"
#include "cli/run_command.h"
#include "cli11/command_line.h"

int main(int argc, char** argv) {
  using namespace perflab;
  CLI::App app("Perflab's experiments without a window.", "perflab-cli");
  cli::setup(app);
  app.require_subcommand(1);
  // A subcommand also takes the program's --version (its own options come first).
  app.fallthrough();

  const std::vector<Subcommand> commands = {
      add_command<ListCommand>(app, "list", "experiments and their parameters"),
      add_command<RunCommand>(app, "run", "run an experiment"),
      add_command<CompareCommand>(app, "compare", "compare two runs (new/old)"),
      add_command<ExportCommand>(app, "export", "write a run as CSV or Google Benchmark JSON"),
      add_command<ChartCommand>(app, "chart", "render a run's charts to PNG, SVG, PDF"),
      add_command<ReportCommand>(
          app, "report",
          "a run's report: charts, teaching text, the article beside it, as PDF and HTML"),
      add_command<BenchCommand>(app, "bench", "a load generator like redis-benchmark"),
  };
  const Subcommand& bench = commands.back();

  if (argc > 1 && argv[1][0] != '-') {  // a command CLI11 would only call "missing"
    const auto& all = app.get_subcommands({});
    if (std::none_of(all.begin(), all.end(),
                     [&](const CLI::App* c) { return c->check_name(argv[1]); }))
      return cli::fail(app, cli::kExitUsage,
                       std::string("unknown command '") + argv[1] + "' (see perflab-cli --help)");
  }
  if (auto rc = cli::parse(app, argc, argv)) return *rc;
  // -a's value is read (CLI11 copied it): from here on ps shows no password.
  if (bench.cmd->parsed()) hide_bench_password(argc, argv);
  try {
    for (const auto& c : commands)
      if (c.cmd->parsed()) return c.run();
    return cli::kExitUsage;  // not reached: parsing requires one command
  } catch (const std::exception& e) {
    return cli::fail(app, cli::kExitFailed, e.what());
  }
}
