// perflab-cli: the experiments without a window — list, run, compare, export, chart, report, bench.
// One command line (CLI11, app/cli11): `--opt value` and `--opt=value`, --help for every
// command, --version, a usage error as one line with exit code 2.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "bench_command.h"
#include "chart_command.h"
#include "cli11/command_line.h"
#include "common/compare.h"
#include "common/report.h"
#include "common/run_io.h"
#include "common/text.h"
#include "interrupt.h"
#include "registry.h"
#include "report_command.h"
#include "runner/experiment.h"
#include "targets/postgres.h"
#include "targets/targets.h"

namespace {

using namespace perflab;
using cli::kExitFailed, cli::kExitOk, cli::kExitUsage;
constexpr int kExitCancelled = 130;

// What goes wrong in run, compare and export after parsing: "perflab-cli: <message>", one line
// (usage errors name the command: "perflab-cli run: ...").
int fail(int code, const std::string& msg) {
  std::cerr << "perflab-cli: " << msg << "\n";
  return code;
}

std::string default_out(const std::string& experiment) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return "perflab-" + experiment + "-" + buf + ".json";
}

// Progress on stderr: one rewritten line on a terminal, plain lines otherwise (at most ~2/s).
class ProgressPrinter {
 public:
  explicit ProgressPrinter(bool quiet) : quiet_(quiet), tty_(isatty(STDERR_FILENO)) {}
  void operator()(double fraction, std::string_view step) {
    if (quiet_) return;
    std::lock_guard lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    if (!tty_ && now - last_ < std::chrono::milliseconds(500) && std::string(step) == last_step_)
      return;
    last_ = now;
    last_step_ = std::string(step);
    char buf[512];
    std::snprintf(buf, sizeof buf, "[%3.0f%%] %.*s", fraction * 100, static_cast<int>(step.size()),
                  step.data());
    if (tty_)
      std::fprintf(stderr, "\r\033[K%s", buf);
    else
      std::fprintf(stderr, "%s\n", buf);
  }
  void done() {
    if (tty_ && !quiet_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  bool quiet_, tty_;
  std::mutex mu_;
  std::chrono::steady_clock::time_point last_{};
  std::string last_step_;
};

// ---- list ----

int list_experiments() {
  for (const auto& e : all_experiments()) {
    std::cout << e->id() << " — " << e->title() << "\n  " << e->purpose() << "\n";
    for (const auto& s : e->params())
      std::cout << "    --param " << s.name << "=" << s.default_value << "  (" << describe_param(s)
                << ")  " << s.help << "\n";
    std::cout << "\n";
  }
  return kExitOk;
}

// ---- run ----

class RunCommand {
 public:
  explicit RunCommand(CLI::App& cmd) {
    cmd.footer(
        "Runs an experiment and writes its run file. Passwords: PGPASSWORD or ~/.pgpass for "
        "PostgreSQL, PERFLAB_REDIS_PASSWORD for Redis; they are never written to run files.");
    cmd.add_option("EXPERIMENT", experiment_, "iolist, sharding or caching (see perflab-cli list)")
        ->required()
        ->check(CLI::Validator(
            [](std::string& id) {
              if (make_experiment(id)) return std::string();
              std::vector<std::string> known;
              for (const auto& e : all_experiments()) known.push_back(e->id());
              return "unknown experiment '" + id + "' (" + join(known, ", ") + ")";
            },
            "ID"));
    cmd.add_option("-p,--param", params_, "a parameter, NAME=VALUE (repeat; see perflab-cli list)")
        ->allow_extra_args(false)
        ->default_str("")
        ->check(CLI::Validator(
            [](std::string& kv) {
              const auto eq = kv.find('=');
              return eq == std::string::npos || eq == 0 ? "takes NAME=VALUE, got '" + kv + "'"
                                                        : std::string();
            },
            "NAME=VALUE"));
    cmd.add_option("--pg", pg_, "an external PostgreSQL (libpq conninfo); default: managed");
    cmd.add_option("--redis", redis_, "external Redis nodes, HOST:PORT,...; default: managed")
        ->check(cli::convertible(parse_redis_nodes, "HOST:PORT,..."));
    cmd.add_option("--redis-cluster", redis_cluster_,
                   "seed nodes of an external Redis Cluster, HOST:PORT,...; default: managed")
        ->check(cli::convertible(parse_redis_nodes, "HOST:PORT,..."));
    const auto not_empty = [](const char* why) {
      return CLI::Validator(
          [why](std::string& s) { return s.empty() ? std::string(why) : std::string(); }, "");
    };
    cmd.add_option("--schema", cfg_.pg_schema, "the only PostgreSQL schema Perflab touches")
        ->check(not_empty("must not be empty"));
    cmd.add_option("--prefix", cfg_.redis_prefix, "the only Redis keys Perflab touches")
        ->check(not_empty("must not be empty: Perflab writes only under a prefix of its own"));
    pg_timeout_s_ = static_cast<int>(
        std::chrono::duration_cast<std::chrono::seconds>(cfg_.pg_limits.statement_timeout).count());
    cmd.add_option("--pg-timeout", pg_timeout_s_,
                   "seconds a PostgreSQL statement may take (statement_timeout)")
        ->check(CLI::Range(1, 86400));
    cmd.add_option("-o,--out", out_, "the run file (default: perflab-EXPERIMENT-TIME.json)");
    cmd.add_flag("-q,--quiet", quiet_, "no progress on stderr");
  }

  int run();

 private:
  int measure(Experiment& exp, Run& run);
  int save_or_fall_back(const Run& run);

  std::string experiment_;
  std::vector<std::string> params_;
  std::optional<std::string> pg_;
  std::string redis_, redis_cluster_;
  TargetsConfig cfg_;
  int pg_timeout_s_ = 30;
  std::string out_;
  bool quiet_ = false;
};

int RunCommand::run() {
  auto exp = make_experiment(experiment_);
  cfg_.pg_conninfo = pg_;
  if (!redis_.empty()) {
    cfg_.redis_nodes = parse_redis_nodes(redis_);
    if (const char* pw = std::getenv("PERFLAB_REDIS_PASSWORD"))
      for (auto& n : cfg_.redis_nodes) n.password = pw;
  }
  if (!redis_cluster_.empty()) {
    cfg_.redis_cluster = parse_redis_nodes(redis_cluster_);
    if (const char* pw = std::getenv("PERFLAB_REDIS_PASSWORD"))
      for (auto& n : cfg_.redis_cluster) n.password = pw;
  }
  cfg_.pg_limits.statement_timeout = std::chrono::seconds(pg_timeout_s_);
  if (out_.empty()) out_ = default_out(exp->id());
  // Fail before measuring when the output cannot be written.
  try {
    check_output_path(out_);
  } catch (const std::exception& e) {
    return fail(kExitFailed, std::string(e.what()) + " (--out)");
  }
  Run run;
  if (const int rc = measure(*exp, run); rc != kExitOk) return rc;

  std::cout << format_run_report(run);
  const bool measured = std::any_of(run.series.begin(), run.series.end(),
                                    [](const Series& s) { return !s.points.empty(); });
  if (run.status == RunStatus::Failed && !measured)
    return fail(kExitFailed, run.experiment + " failed: " + run.message);
  if (const int saved = save_or_fall_back(run); saved != kExitOk) return saved;
  if (run.status == RunStatus::Failed)
    return fail(kExitFailed, run.experiment + " failed: " + run.message +
                                 (run.detail.empty() ? "" : " (details in " + out_ + ")"));
  if (run.status == RunStatus::Cancelled) return kExitCancelled;
  return kExitOk;
}

// Checks the targets and measures; Ctrl-C (or SIGTERM) stops the run, which keeps what was
// measured. kExitOk when `run` holds a run to report.
int RunCommand::measure(Experiment& exp, Run& run) {
  std::map<std::string, std::string> params;
  for (const auto& kv : params_) {
    const auto eq = kv.find('=');
    params[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  InterruptStop interrupt(
      [] { std::fprintf(stderr, "\nperflab-cli: stopping (the run keeps what was measured)\n"); });
  ProgressPrinter printer(quiet_);
  RunHooks hooks;
  hooks.progress = [&](double f, std::string_view s) { printer(f, s); };
  try {
    Targets targets(cfg_);
    // Every target the run needs, checked before anything is measured: a wrong one costs one
    // line and at most the connect timeout, and writes no run file.
    try {
      preflight(exp, targets, params, interrupt.token());
    } catch (const TargetError& e) {
      if (interrupt.token().stop_requested())
        return fail(kExitCancelled, "stopped before the run began");
      return fail(kExitFailed, e.what());
    }
    run = execute(exp, targets, params, hooks, interrupt.token());
  } catch (const ParamError& e) {
    printer.done();
    return fail(kExitUsage, e.what());
  } catch (const std::exception& e) {
    printer.done();
    return fail(kExitFailed, e.what());
  }
  printer.done();
  return kExitOk;
}

// Saves the run at --out; when that fails at the end (the folder went away, the disk filled up),
// next to it (or here, or in the temporary folder) under a fallback name, and says where.
int RunCommand::save_or_fall_back(const Run& run) {
  try {
    save_run(run, out_);
    std::cerr << "run written to " << out_ << "\n";
    return kExitOk;
  } catch (const std::exception& e) {
    const std::string name = default_out(run.experiment);
    const std::filesystem::path folder = std::filesystem::path(out_).has_parent_path()
                                             ? std::filesystem::path(out_).parent_path()
                                             : std::filesystem::path(".");
    for (const auto& dir :
         {folder, std::filesystem::path("."), std::filesystem::temp_directory_path()}) {
      try {
        save_run(run, dir / name);
        return fail(kExitFailed, std::string(e.what()) + "; the run was saved to " +
                                     (dir / name).string() + " instead");
      } catch (const std::exception&) {
      }
    }
    return fail(kExitFailed, std::string(e.what()) + "; no fallback could be written either");
  }
}

// ---- compare ----

class CompareCommand {
 public:
  explicit CompareCommand(CLI::App& cmd) {
    cmd.footer("new/old per benchmark of two runs of one experiment, like bench.cmp");
    cmd.add_option("OLD.json", old_, "the earlier run")->required();
    cmd.add_option("NEW.json", new_, "the later run")->required();
    cmd.add_option("-d,--diff", diff_, "how a change is shown")
        ->check(CLI::IsMember({"ratio", "percent"}));
  }

  int run() const {
    Run a, b;
    try {
      a = load_run(old_);
      b = load_run(new_);
    } catch (const RunFormatError& e) {
      return fail(kExitFailed, e.what());
    }
    if (a.experiment != b.experiment)
      return fail(kExitFailed, "cannot compare runs of different experiments (" + a.experiment +
                                   " vs " + b.experiment + ")");
    const CompareFormat fmt = diff_ == "percent" ? CompareFormat::Percent : CompareFormat::Ratio;
    std::cout << old_ << " vs\n" << new_ << "\n\n" << format_comparison(compare_runs(a, b), fmt);
    return kExitOk;
  }

 private:
  std::string old_, new_, diff_ = "ratio";
};

// ---- export ----

class ExportCommand {
 public:
  explicit ExportCommand(CLI::App& cmd) {
    cmd.footer("Writes a run file as CSV, Google Benchmark JSON or run JSON: all or none.");
    cmd.add_option("RUN.json", in_, "the run file")->required();
    cmd.add_option("--csv", csv_, "write CSV here");
    cmd.add_option("--gbench", gbench_, "write Google Benchmark JSON here (compare.py reads it)");
    cmd.add_option("--json", json_, "write the run file again here");
  }

  int run() const {
    if (csv_.empty() && gbench_.empty() && json_.empty())
      return fail(kExitUsage, "nothing to write: give --csv, --gbench or --json");
    Run run;
    try {
      run = load_run(in_);
    } catch (const RunFormatError& e) {
      return fail(kExitFailed, e.what());
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
      return fail(kExitFailed, std::string(e.what()) + "; nothing was written");
    }
    return kExitOk;
  }

 private:
  std::string in_, csv_, gbench_, json_;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Perflab's experiments without a window.", "perflab-cli");
  cli::setup(app);
  app.require_subcommand(1);
  // A subcommand also takes the program's --version (its own options come first).
  app.fallthrough();

  CLI::App* list = app.add_subcommand("list", "experiments and their parameters");
  CLI::App* run = app.add_subcommand("run", "run an experiment");
  RunCommand run_cmd(*run);
  CLI::App* compare = app.add_subcommand("compare", "compare two runs (new/old)");
  CompareCommand compare_cmd(*compare);
  CLI::App* exp = app.add_subcommand("export", "write a run as CSV or Google Benchmark JSON");
  ExportCommand export_cmd(*exp);
  CLI::App* chart = app.add_subcommand("chart", "render a run's charts to PNG, SVG, PDF");
  ChartCommand chart_cmd(*chart);
  CLI::App* report = app.add_subcommand(
      "report", "a run's report: charts, teaching text, the article beside it, as PDF and HTML");
  ReportCommand report_cmd(*report);
  CLI::App* bench = app.add_subcommand("bench", "a load generator like redis-benchmark");
  bench->set_help_flag("--help", "print this help and exit");  // -h is the host
  BenchCommand bench_cmd(*bench);

  if (argc > 1 && argv[1][0] != '-') {  // a command CLI11 would only call "missing"
    const auto& all = app.get_subcommands({});
    if (std::none_of(all.begin(), all.end(),
                     [&](const CLI::App* c) { return c->check_name(argv[1]); }))
      return cli::fail(app, kExitUsage,
                       std::string("unknown command '") + argv[1] + "' (see perflab-cli --help)");
  }
  if (auto rc = cli::parse(app, argc, argv)) return *rc;
  // -a's value is read (CLI11 copied it): from here on ps shows no password.
  if (bench->parsed()) hide_bench_password(argc, argv);
  try {
    if (list->parsed()) return list_experiments();
    if (run->parsed()) return run_cmd.run();
    if (compare->parsed()) return compare_cmd.run();
    if (exp->parsed()) return export_cmd.run();
    if (chart->parsed()) return chart_cmd.run(*chart);
    if (report->parsed()) return report_cmd.run(*report);
    return bench_cmd.run(*bench);
  } catch (const std::exception& e) {
    return cli::fail(app, kExitFailed, e.what());
  }
}
