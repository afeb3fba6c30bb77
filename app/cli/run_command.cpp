// `perflab-cli run` (run_command.h): targets checked, the run measured, reported and saved.
#include "cli/run_command.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <string_view>

#include "cli/command.h"
#include "cli/interrupt.h"
#include "cli11/command_line.h"
#include "common/report.h"
#include "common/run_io.h"
#include "common/text.h"
#include "registry/registry.h"
#include "runner/experiment.h"
#include "runner/time_left.h"

namespace perflab {

namespace {

using cli::kExitFailed, cli::kExitOk, cli::kExitUsage;
constexpr int kExitCancelled = 130;

std::string default_out(const std::string& experiment) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return "perflab-" + experiment + "-" + buf + ".json";
}

// "~42 s left", "~2.5 s left", "~3 min 05 s left": the time left as the window estimates it.
std::string time_left_text(double s) {
  char buf[64];
  if (s < 10)
    std::snprintf(buf, sizeof buf, "~%.1f s left", s);
  else if (s < 60)
    std::snprintf(buf, sizeof buf, "~%.0f s left", s);
  else
    std::snprintf(buf, sizeof buf, "~%d min %02d s left", int(s) / 60, int(s) % 60);
  return buf;
}

// Progress on stderr with the time left: one rewritten line on a terminal, plain lines otherwise
// (at most ~2/s).
class ProgressPrinter {
 public:
  explicit ProgressPrinter(bool quiet)
      : quiet_(quiet), tty_(isatty(STDERR_FILENO)), start_(std::chrono::steady_clock::now()) {}
  void operator()(double fraction, std::string_view step) {
    if (quiet_) return;
    std::lock_guard lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    time_left_.add(fraction, elapsed);
    if (!tty_ && now - last_ < std::chrono::milliseconds(500) && std::string(step) == last_step_)
      return;
    last_ = now;
    last_step_ = std::string(step);
    const auto left = time_left_.seconds_left(elapsed);
    const std::string when = left && fraction < 1 ? ", " + time_left_text(*left) : "";
    char buf[512];
    std::snprintf(buf, sizeof buf, "[%3.0f%%%s] %.*s", fraction * 100, when.c_str(),
                  static_cast<int>(step.size()), step.data());
    if (tty_)
      std::fprintf(stderr, "\r\033[K%s", buf);
    else
      std::fprintf(stderr, "%s\n", buf);
  }
  void done() {
    if (tty_ && !quiet_) std::fprintf(stderr, "\r\033[K");
  }
  // The run begins now: what came before (servers starting) is not in its time left.
  void restart() {
    std::lock_guard lock(mu_);
    start_ = std::chrono::steady_clock::now();
    time_left_.reset();
  }

 private:
  bool quiet_, tty_;
  std::mutex mu_;
  std::chrono::steady_clock::time_point start_, last_{};
  std::string last_step_;
  TimeLeft time_left_;  // from every report since the printer was made (the run's start)
};

// The experiments' ids, in the registry's order.
std::vector<std::string> experiment_ids() {
  std::vector<std::string> ids;
  for (const auto& e : all_experiments()) ids.push_back(e->id());
  return ids;
}

// The ids as a sentence lists them: "iolist, sharding or caching".
std::string ids_in_words(const std::vector<std::string>& ids) {
  if (ids.size() < 2) return join(ids, "");
  return join({ids.begin(), ids.end() - 1}, ", ") + " or " + ids.back();
}

}  // namespace

RunCommand::RunCommand(CLI::App& cmd) {
  cmd.footer(
      "Runs an experiment and writes its run file. Passwords: PGPASSWORD or ~/.pgpass for "
      "PostgreSQL, PERFLAB_REDIS_PASSWORD for Redis; they are never written to run files.");
  cmd.add_option(
         "EXPERIMENT", experiment_,
         ids_in_words(experiment_ids()) + " (see perflab-cli list); with --like, the saved run's")
      ->check(CLI::Validator(
          [](std::string& id) {
            if (make_experiment(id)) return std::string();
            return "unknown experiment '" + id + "' (" + join(experiment_ids(), ", ") + ")";
          },
          "ID"));
  auto* plan = cmd.add_option("--plan", plan_,
                              "a plan of parameter values, e.g. lecture (see perflab-cli list); "
                              "each --param overrides it");
  cmd.add_option("--like", like_,
                 "a saved run to run again: its experiment and every parameter (each --param "
                 "changes one); targets are chosen anew, never taken from the file")
      ->excludes(plan)
      ->check(CLI::ExistingFile);
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
  cmd.add_option("--query", query_,
                 "caching on your query: a SELECT taking the key as $1, run only read-only "
                 "(sets --param source=query and query=...)");
  cmd.add_option(
      "--keys", keys_,
      "with --query: a file of keys (one per line) or a SELECT of them (--param keys=...)");
  cmd.add_option("--pg", pg_, "an external PostgreSQL (libpq conninfo); default: managed");
  cmd.add_option("--pg-standby", cfg_.pg_standby_conninfos,
                 "a hot standby of --pg (libpq conninfo; repeat for more), checked to be one; "
                 "default: managed standbys of the managed PostgreSQL")
      ->allow_extra_args(false);
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
  cmd.add_flag("-v,--verbose", verbose_,
               "list every noisy figure at the end (by default one line counts them)");
}

int RunCommand::run(const CLI::App&) {
  std::map<std::string, std::string> params;
  if (!like_.empty()) {
    if (const int rc = take_like(params); rc != kExitOk) return rc;
  } else if (experiment_.empty()) {
    return fail_program(kExitUsage, "run: give an EXPERIMENT or --like RUN.json");
  }
  if (!plan_.empty()) params["plan"] = plan_;
  if (!query_.empty()) params["source"] = "query", params["query"] = query_;
  if (!keys_.empty()) params["keys"] = keys_;
  for (const auto& kv : params_) {
    const auto eq = kv.find('=');
    params[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  auto exp = make_experiment(experiment_);
  try {  // every value checked before a word of what the run takes is said
    resolve_params(*exp, params);
  } catch (const ParamError& e) {
    return fail_program(kExitUsage, e.what());
  }
  if (!like_note_.empty() && !quiet_) std::cerr << like_note_ << "\n";
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
    return fail_program(kExitFailed, std::string(e.what()) + " (--out)");
  }
  Run run;
  if (const int rc = measure(*exp, params, run); rc != kExitOk) return rc;

  std::cout << format_run_report(run, verbose_);
  const bool measured = std::any_of(run.series.begin(), run.series.end(),
                                    [](const Series& s) { return !s.points.empty(); });
  if (run.status == RunStatus::Failed && !measured)
    return fail_program(kExitFailed, run.experiment + " failed: " + run.message);
  if (const int saved = save_or_fall_back(run); saved != kExitOk) return saved;
  if (run.status == RunStatus::Failed)
    return fail_program(kExitFailed, run.experiment + " failed: " + run.message +
                                         (run.detail.empty() ? "" : " (details in " + out_ + ")"));
  if (run.status == RunStatus::Cancelled) return kExitCancelled;
  return kExitOk;
}

// Checks the targets and measures; Ctrl-C (or SIGTERM) stops the run, which keeps what was
// measured. kExitOk when `run` holds a run to report.
int RunCommand::measure(Experiment& exp, const std::map<std::string, std::string>& params,
                        Run& run) {
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
        return fail_program(kExitCancelled, "stopped before the run began");
      return fail_program(kExitFailed, e.what());
    }
    // The managed servers start before the run, as the window starts a plan's when it is
    // chosen: the run measures at once and its time left is the measuring's. Should one not
    // start, the run tries again and records why.
    printer(0, "starting managed servers");
    try {
      targets.start_managed(exp.needs(resolve_params(exp, params)), interrupt.token());
    } catch (const std::exception&) {
    }
    if (interrupt.token().stop_requested())
      return fail_program(kExitCancelled, "stopped before the run began");
    printer.restart();
    run = execute(exp, targets, params, hooks, interrupt.token());
  } catch (const ParamError& e) {
    printer.done();
    return fail_program(kExitUsage, e.what());
  } catch (const std::exception& e) {
    printer.done();
    return fail_program(kExitFailed, e.what());
  }
  printer.done();
  return kExitOk;
}

int RunCommand::take_like(std::map<std::string, std::string>& params) {
  Run saved;
  try {
    saved = load_run(like_);
  } catch (const std::exception& e) {
    return fail_program(kExitFailed, std::string(e.what()) + " (--like)");
  }
  if (!experiment_.empty() && experiment_ != saved.experiment)
    return fail_program(kExitUsage, "run: " + like_ + " is a run of " + saved.experiment +
                                        ", not of " + experiment_ + " (leave EXPERIMENT out)");
  const auto exp = make_experiment(saved.experiment);
  if (!exp)
    return fail_program(kExitFailed,
                        like_ + ": this Perflab has no experiment '" + saved.experiment + "'");
  experiment_ = saved.experiment;
  params = with_current_names(exp->params(), saved.params);
  // The file's own values first, so that a name it has and this Perflab does not is said to be
  // the file's, not a --param's.
  try {
    resolve_params(*exp, params);
  } catch (const ParamError& e) {
    return fail_program(kExitUsage, like_ + ": " + e.what());
  }
  std::vector<std::string> changed, elsewhere;
  for (const auto& kv : params_) changed.push_back(kv.substr(0, kv.find('=')));
  std::vector<std::string> newer;  // parameters added since the file was written
  for (const auto& spec : exp->params())
    if (!params.count(spec.name)) newer.push_back(spec.name);
  for (const auto& t : saved.targets)
    if (!t.managed) elsewhere.push_back(t.kind + " at " + t.address);
  std::string line =
      "like " + like_ + ": " + saved.experiment + ", its " + std::to_string(params.size()) +
      " parameters" + (changed.empty() ? "" : " (changed: " + join(changed, ", ") + ")") +
      (newer.empty() ? "" : "; at their defaults, as it has none: " + join(newer, ", ")) +
      "; targets chosen anew";
  if (!elsewhere.empty())
    line += " (it measured " + join(elsewhere, ", ") +
            ": give --pg/--redis/--redis-cluster to measure there again)";
  like_note_ = line;
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
        return fail_program(kExitFailed, std::string(e.what()) + "; the run was saved to " +
                                             (dir / name).string() + " instead");
      } catch (const std::exception&) {
      }
    }
    return fail_program(kExitFailed,
                        std::string(e.what()) + "; no fallback could be written either");
  }
}

}  // namespace perflab
