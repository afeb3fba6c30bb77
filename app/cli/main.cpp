// perflab-cli: the experiments without a window — list, run, compare, chart, bench.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <stop_token>
#include <string>
#include <vector>

#include "bench_command.h"
#include "chart_command.h"
#include "common/compare.h"
#include "common/report.h"
#include "common/run_io.h"
#include "interrupt.h"
#include "registry.h"
#include "runner/experiment.h"
#include "targets/postgres.h"
#include "targets/targets.h"

namespace {

using namespace perflab;

constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2, kExitCancelled = 130;

int fail(int code, const std::string& msg) {
  std::cerr << "perflab-cli: " << msg << "\n";
  return code;
}

std::string usage() {
  return "usage:\n"
         "  perflab-cli list\n"
         "  perflab-cli run EXPERIMENT [--param K=V]... [--pg CONNINFO] [--redis H:P[,H:P...]]\n"
         "                  [--schema NAME] [--prefix PREFIX] [--pg-timeout S] [--out FILE]\n"
         "                  [--quiet]\n"
         "  perflab-cli compare OLD.json NEW.json [-d ratio|percent]\n"
         "  perflab-cli export RUN.json [--csv F] [--gbench F] [--json F]\n"
         "  perflab-cli chart RUN.json [--log] [--png F] [--svg F] [--pdf F] ...\n"
         "  perflab-cli bench [-h HOST] [-p PORT] [-c N] [-n N] [-P N] [-r N] [-d N] [-t TESTS] "
         "[--csv] [-q]\n"
         "Passwords: use PGPASSWORD / ~/.pgpass for PostgreSQL and PERFLAB_REDIS_PASSWORD for "
         "Redis; they are never written to run files.\n";
}

int cmd_list() {
  for (const auto& e : all_experiments()) {
    std::cout << e->id() << " — " << e->title() << "\n  " << e->purpose() << "\n";
    for (const auto& s : e->params())
      std::cout << "    --param " << s.name << "=" << s.default_value << "  (" << describe_param(s)
                << ")  " << s.help << "\n";
    std::cout << "\n";
  }
  return kExitOk;
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

// Saves the run at out; when that fails at the end (the folder went away, the disk filled up),
// next to it (or here, or in the temporary folder) under a fallback name, and says where.
int save_or_fall_back(const Run& run, const std::string& out) {
  try {
    save_run(run, out);
    std::cerr << "run written to " << out << "\n";
    return kExitOk;
  } catch (const std::exception& e) {
    const std::string name = default_out(run.experiment);
    const std::filesystem::path folder = std::filesystem::path(out).has_parent_path()
                                             ? std::filesystem::path(out).parent_path()
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

int cmd_run(const std::vector<std::string>& args) {
  if (args.empty()) return fail(kExitUsage, "run: which experiment? (see 'perflab-cli list')");
  auto exp = make_experiment(args[0]);
  if (!exp)
    return fail(kExitUsage, "unknown experiment '" + args[0] + "' (see 'perflab-cli list')");
  std::map<std::string, std::string> params;
  TargetsConfig cfg;
  std::string out;
  bool quiet = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* flag) -> std::string {
      if (i + 1 >= args.size()) throw std::invalid_argument(std::string(flag) + " needs a value");
      return args[++i];
    };
    if (a == "--param" || a == "-p") {
      const std::string kv = value("--param");
      const auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0)
        return fail(kExitUsage, "--param takes NAME=VALUE, got '" + kv + "'");
      params[kv.substr(0, eq)] = kv.substr(eq + 1);
    } else if (a == "--pg") {
      cfg.pg_conninfo = value("--pg");
    } else if (a == "--redis") {
      try {
        cfg.redis_nodes = parse_redis_nodes(value("--redis"));
      } catch (const std::invalid_argument& e) {
        return fail(kExitUsage, std::string("--redis: ") + e.what());
      }
      if (const char* pw = std::getenv("PERFLAB_REDIS_PASSWORD"))
        for (auto& n : cfg.redis_nodes) n.password = pw;
    } else if (a == "--schema") {
      cfg.pg_schema = value("--schema");
    } else if (a == "--prefix") {
      cfg.redis_prefix = value("--prefix");
    } else if (a == "--pg-timeout") {
      int seconds = 0;
      try {
        const ParamSpec spec{"--pg-timeout", ParamType::Int, "30", 1, 86400, {}, "seconds"};
        seconds = std::stoi(validate_param(spec, value("--pg-timeout")));
      } catch (const ParamError& e) {
        return fail(kExitUsage, e.what());
      }
      cfg.pg_limits.statement_timeout = std::chrono::seconds(seconds);
    } else if (a == "--out" || a == "-o") {
      out = value("--out");
    } else if (a == "--quiet" || a == "-q") {
      quiet = true;
    } else {
      return fail(kExitUsage, "run: unknown option '" + a + "'\n" + usage());
    }
  }
  if (cfg.pg_schema.empty()) return fail(kExitUsage, "--schema must not be empty");
  if (cfg.redis_prefix.empty())
    return fail(kExitUsage,
                "--prefix must not be empty: Perflab writes only under a prefix of its own");
  if (out.empty()) out = default_out(exp->id());
  // Fail before measuring when the output cannot be written.
  try {
    check_output_path(out);
  } catch (const std::exception& e) {
    return fail(kExitFailed, std::string(e.what()) + " (--out)");
  }

  InterruptStop stop(
      [] { std::fprintf(stderr, "\nperflab-cli: stopping (the run keeps what was measured)\n"); });

  ProgressPrinter printer(quiet);
  RunHooks hooks;
  hooks.progress = [&](double f, std::string_view s) { printer(f, s); };
  Run run;
  try {
    Targets targets(cfg);
    // Every target the run needs, checked before anything is measured: a wrong one costs one
    // line and at most the connect timeout, and writes no run file.
    try {
      preflight(*exp, targets, params, stop.token());
    } catch (const TargetError& e) {
      if (stop.token().stop_requested())
        return fail(kExitCancelled, "stopped before the run began");
      return fail(kExitFailed, e.what());
    }
    run = execute(*exp, targets, params, hooks, stop.token());
  } catch (const ParamError& e) {
    printer.done();
    return fail(kExitUsage, e.what());
  } catch (const std::exception& e) {
    printer.done();
    return fail(kExitFailed, e.what());
  }
  printer.done();

  std::cout << format_run_report(run);
  const bool measured = std::any_of(run.series.begin(), run.series.end(),
                                    [](const Series& s) { return !s.points.empty(); });
  if (run.status == RunStatus::Failed && !measured)
    return fail(kExitFailed, run.experiment + " failed: " + run.message);
  if (const int saved = save_or_fall_back(run, out); saved != kExitOk) return saved;
  if (run.status == RunStatus::Failed)
    return fail(kExitFailed, run.experiment + " failed: " + run.message +
                                 (run.detail.empty() ? "" : " (details in " + out + ")"));
  if (run.status == RunStatus::Cancelled) return kExitCancelled;
  return kExitOk;
}

int cmd_compare(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  CompareFormat fmt = CompareFormat::Ratio;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-d" || args[i] == "--diff") {
      if (i + 1 >= args.size()) return fail(kExitUsage, "-d needs ratio or percent");
      const std::string& d = args[++i];
      if (d == "ratio")
        fmt = CompareFormat::Ratio;
      else if (d == "percent")
        fmt = CompareFormat::Percent;
      else
        return fail(kExitUsage, "-d takes ratio or percent, got '" + d + "'");
    } else if (!args[i].empty() && args[i][0] == '-') {
      return fail(kExitUsage, "compare: unknown option '" + args[i] + "'");
    } else {
      files.push_back(args[i]);
    }
  }
  if (files.size() != 2) return fail(kExitUsage, "compare takes two run files: OLD.json NEW.json");
  Run a, b;
  try {
    a = load_run(files[0]);
    b = load_run(files[1]);
  } catch (const RunFormatError& e) {
    return fail(kExitFailed, e.what());
  }
  if (a.experiment != b.experiment)
    return fail(kExitFailed, "cannot compare runs of different experiments (" + a.experiment +
                                 " vs " + b.experiment + ")");
  std::cout << files[0] << " vs\n"
            << files[1] << "\n\n"
            << format_comparison(compare_runs(a, b), fmt);
  return kExitOk;
}

int cmd_export(const std::vector<std::string>& args) {
  std::string in, csv, gbench, json;
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto value = [&](const std::string& flag) -> std::string {
      if (i + 1 >= args.size()) throw std::invalid_argument(flag + " needs a file name");
      return args[++i];
    };
    if (args[i] == "--csv")
      csv = value("--csv");
    else if (args[i] == "--gbench")
      gbench = value("--gbench");
    else if (args[i] == "--json")
      json = value("--json");
    else if (!args[i].empty() && args[i][0] == '-')
      return fail(kExitUsage, "export: unknown option '" + args[i] + "'");
    else if (in.empty())
      in = args[i];
    else
      return fail(kExitUsage, "export takes one run file");
  }
  if (in.empty() || (csv.empty() && gbench.empty() && json.empty()))
    return fail(kExitUsage, "export RUN.json [--csv F] [--gbench F] [--json F]");
  Run run;
  try {
    run = load_run(in);
  } catch (const RunFormatError& e) {
    return fail(kExitFailed, e.what());
  }
  // Every requested output is written, or none.
  std::vector<std::pair<std::filesystem::path, std::string>> files;
  if (!csv.empty()) files.emplace_back(csv, run_to_csv(run));
  if (!gbench.empty()) files.emplace_back(gbench, run_to_gbench_json(run) + "\n");
  if (!json.empty()) files.emplace_back(json, run_to_json(run) + "\n");
  try {
    for (const auto& f : files) check_output_path(f.first);
    write_files_atomically(files);
  } catch (const std::exception& e) {
    return fail(kExitFailed, std::string(e.what()) + "; nothing was written");
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "help") {
    std::cout << usage();
    return args.empty() ? kExitUsage : kExitOk;
  }
  const std::string cmd = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    if (cmd == "list") return cmd_list();
    if (cmd == "run") return cmd_run(rest);
    if (cmd == "compare") return cmd_compare(rest);
    if (cmd == "export") return cmd_export(rest);
    if (cmd == "chart") return perflab::run_chart_command(rest);
    if (cmd == "bench") return perflab::run_bench_command(rest);
  } catch (const std::exception& e) {
    return fail(kExitFailed, e.what());
  }
  return fail(kExitUsage, "unknown command '" + cmd + "'\n" + usage());
}
