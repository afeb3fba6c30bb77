// `perflab-cli export` (export_command.h): a run file as CSV, Google Benchmark JSON, run JSON.
#include "cli/export_command.h"

#include <filesystem>
#include <utility>
#include <vector>

#include "cli/command.h"
#include "cli11/command_line.h"
#include "common/run_io.h"
#include "common/run_measured.h"

namespace perflab {

ExportCommand::ExportCommand(CLI::App& cmd) {
  cmd.footer("Writes a run file as CSV, Google Benchmark JSON or run JSON: all or none.");
  cmd.add_option("RUN.json", in_, "the run file")->required();
  cmd.add_option("--csv", csv_, "write CSV here");
  cmd.add_option("--gbench", gbench_, "write Google Benchmark JSON here (compare.py reads it)");
  cmd.add_option("--json", json_, "write the run file again here");
}

int ExportCommand::run(const CLI::App&) {
  if (csv_.empty() && gbench_.empty() && json_.empty())
    return fail_program(cli::kExitUsage, "nothing to write: give --csv, --gbench or --json");
  Run run;
  try {
    run = load_measured_run(in_);
  } catch (const RunFormatError& e) {
    return fail_program(cli::kExitFailed, e.what());
  }
  // Every requested output is written, or none.
  std::vector<std::pair<std::filesystem::path, std::string>> files;
  if (!csv_.empty()) files.emplace_back(csv_, run_to_csv(run));
  if (!gbench_.empty()) files.emplace_back(gbench_, run_to_gbench_json(run) + "\n");
  if (!json_.empty()) files.emplace_back(json_, run_to_json(run) + "\n");
  try {
    for (const auto& f : files) check_output_path(f.first);
    write_files_atomically(files);
  } catch (const std::exception& e) {
    return fail_program(cli::kExitFailed, std::string(e.what()) + "; nothing was written");
  }
  return cli::kExitOk;
}

}  // namespace perflab
