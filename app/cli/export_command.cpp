// `perflab-cli export` (export_command.h): a run file as CSV, Google Benchmark JSON, run JSON,
// a series' latencies as HdrHistogram's percentile distribution.
#include "cli/export_command.h"

#include <filesystem>
#include <utility>
#include <vector>

#include "cli/command.h"
#include "cli11/command_line.h"
#include "common/latency_curve.h"
#include "common/latency_hdr_text.h"
#include "common/run_io.h"
#include "common/run_measured.h"

namespace perflab {

ExportCommand::ExportCommand(CLI::App& cmd) {
  cmd.footer("Writes a run file as CSV, Google Benchmark JSON or run JSON: all or none.");
  cmd.add_option("RUN.json", in_, "the run file")->required();
  cmd.add_option("--csv", csv_, "write CSV here");
  cmd.add_option("--gbench", gbench_, "write Google Benchmark JSON here (compare.py reads it)");
  cmd.add_option("--json", json_, "write the run file again here");
  cmd.add_option("--hdr", hdr_,
                 "write the latencies of --series (its rounds pooled) here as HdrHistogram's "
                 "percentile distribution, in milliseconds (HdrHistogram's plotter reads it)");
  cmd.add_option("--series", series_, "the series --hdr writes (one that keeps its latencies)");
  cmd.add_option("--group", group_, "the chart of --series, when several have a series so named");
}

namespace {

// The one series named `name` (in `group` when given) that keeps recorded latencies; throws
// std::runtime_error naming the ones there are otherwise.
const Series& latency_series(const Run& run, const std::string& name, const std::string& group) {
  std::vector<const Series*> found;
  std::string kept;
  for (const auto& s : run.series) {
    if (s.latency.empty()) continue;
    kept += (kept.empty() ? "" : ", ") + s.group + "/" + s.name;
    if (s.name == name && (group.empty() || s.group == group)) found.push_back(&s);
  }
  if (found.size() == 1) return *found.front();
  if (found.empty())
    throw std::runtime_error("no series '" + name + "'" + (group.empty() ? "" : " in " + group) +
                             " keeps its latencies" +
                             (kept.empty() ? " (none does)" : " (these do: " + kept + ")"));
  throw std::runtime_error("several charts have a series '" + name + "': give --group (" + kept +
                           ")");
}

}  // namespace

int ExportCommand::run(const CLI::App&) {
  if (csv_.empty() && gbench_.empty() && json_.empty() && hdr_.empty())
    return fail_program(cli::kExitUsage, "nothing to write: give --csv, --gbench, --json or --hdr");
  if (hdr_.empty() != series_.empty())
    return fail_program(cli::kExitUsage, "--hdr and --series go together");
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
    if (!hdr_.empty())
      files.emplace_back(
          hdr_, hdr_percentile_distribution(pooled_latency(latency_series(run, series_, group_))));
    for (const auto& f : files) check_output_path(f.first);
    write_files_atomically(files);
  } catch (const std::exception& e) {
    return fail_program(cli::kExitFailed, std::string(e.what()) + "; nothing was written");
  }
  return cli::kExitOk;
}

}  // namespace perflab
