#pragma once
// The experiment contract: one class behind one small interface, listed by the registry
// (registry.h), and the runner that executes one: RunContext and execute().
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "common/latency_recorder.h"
#include "common/params.h"
#include "common/run.h"
#include "runner/plan.h"
#include "runner/run_budget.h"
#include "runner/settings.h"
#include "targets/targets.h"

namespace perflab {

// Progress: fraction in [0,1] and what is being done now. Called from the running thread.
using ProgressFn = std::function<void(double fraction, std::string_view step)>;

struct RunHooks {
  ProgressFn progress;                        // may be empty
  std::function<void(const Run&)> on_update;  // after every published point: a snapshot
};

// Thrown by RunContext::check_stop() when a stop was requested; the runner marks the run
// cancelled and keeps what was measured.
struct Cancelled {};

// What an experiment gets while it runs. Points are published through it as they are
// measured, so a cancelled or failed run keeps them and a window can show them live.
class RunContext {
 public:
  RunContext(Targets& targets, Params params, RunHooks hooks, std::stop_token stop, Run& run);

  Targets& targets() { return targets_; }
  const Params& params() const { return params_; }
  // The runner's parameters (runner/settings.h), read once when the run starts.
  const RunnerSettings& runner() const { return runner_; }
  std::stop_token stop_token() const { return stop_; }
  bool stop_requested() const { return stop_.stop_requested(); }
  // Throws Cancelled when a stop was requested.
  void check_stop() const;
  void progress(double fraction, std::string_view step);

  // The run's threshold of practical significance (parameter `threshold`, a share: 0.02).
  double threshold() const;

  // The run's wall-time budget (parameter `budget_s`, run_budget.h), counted from when the
  // context was made: the experiment says how many adaptive points it has still to measure, and
  // each point takes its share when it starts (PointRounds). Without a budget, or with fixed
  // repetitions, no share is taken (nullopt). take_point_budget is const as a run's progress is:
  // it changes the budget's bookkeeping, never what the run measured.
  void expect_points(std::size_t points);
  std::optional<double> take_point_budget() const;
  double elapsed_s() const;

  // Mutations of the run, safe against concurrent snapshot().
  void add_group(const Group& g);
  void add_point(const std::string& group, const std::string& series, Point p);
  void add_finding(Finding f);
  // Orders the findings by `rank` of their ids, lowest first (a stable sort: equal ranks keep
  // their order), so that a panel leads with what the experiment leads with.
  void order_findings(const std::function<int(const std::string& id)>& rank);
  // A percentile spectrum of the rounds' recorders (common/latency_spectrum.h
  // add_latency_spectrum), published as a point is; false when no round has values.
  bool add_latency_spectrum(const Group& g, const std::string& series,
                            std::span<const LatencyRecorder> rounds, double ns_per_unit);
  // The comparison subject / baseline over two points' samples (comparison_finding()) judged
  // with the run's threshold; nothing when a point is missing or there is no ratio.
  void add_comparison(const ComparisonSpec& spec, const Point* subject, const Point* baseline);
  // The same over two series of samples; interleaved series of unequal length (one ended
  // early: PointRounds::focus) over the rounds they share, so they stay paired.
  void add_comparison(const ComparisonSpec& spec, std::span<const double> subject,
                      std::span<const double> baseline);
  // The same with a tool's own error taken out of each side (bounded_comparison_finding).
  void add_comparison(const ComparisonSpec& spec, const std::string& error,
                      const SidesLessError& sides);
  void add_target(TargetInfo t);
  Run snapshot() const;

 private:
  Targets& targets_;
  Params params_;
  RunnerSettings runner_;
  RunHooks hooks_;
  std::stop_token stop_;
  Run& run_;
  mutable std::mutex mu_;
  mutable RunBudget budget_;  // under mu_
  std::int64_t started_ns_ = 0;
};

// Runs `measure`, then `publish`: also when a stop or a failure ends the measuring, so that a
// run keeps what it measured.
template <class Publish, class Measure>
void publish_after(Publish&& publish, Measure&& measure) {
  try {
    measure();
  } catch (...) {
    publish();
    throw;
  }
  publish();
}

// What the article behind an experiment published, as data (the teaching panel shows it beside
// a run; the prose around it lives in resources/teaching/<id>.json). The experiment is the one
// place its figures are written: its findings carry the same figures as their Finding::claim.
struct ArticleTable {
  std::string title;
  std::string unit;  // of the figures in the rows, or empty
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

struct Article {
  std::string source;  // where the figures come from (article, benchmark, units)
  std::vector<ArticleTable> tables;
  std::vector<std::string> notes;  // remarks that derive a figure from the tables
};

class Experiment {
 public:
  virtual ~Experiment() = default;
  virtual std::string id() const = 0;
  virtual std::string title() const = 0;
  virtual std::string purpose() const = 0;  // one line
  virtual std::vector<ParamSpec> params() const = 0;
  // The servers a run with these (resolved) parameters uses.
  virtual TargetNeeds needs(const Params& params) const = 0;
  // The published figures this experiment reproduces (empty when there are none).
  virtual Article article() const { return {}; }
  // The plans it offers beside its defaults (plan.h); params() lists them as the parameter
  // `plan` (plan_param).
  virtual std::vector<Plan> plans() const { return {}; }
  // Measures, publishing points through ctx. Throws on failure; honours ctx's stop token
  // within a second (by check_stop() or by returning early).
  virtual void run(RunContext& ctx) = 0;
};

// The run's parameters: the defaults, the values of the plan named by params["plan"], then
// params (with_plan). Throws ParamError naming the parameter (or the plan) at fault.
Params resolve_params(const Experiment& exp, const std::map<std::string, std::string>& params);

// Before a run: resolves the parameters (throws ParamError) and checks every configured target
// the run would use (Targets::preflight: throws TargetError with one line), so a wrong target
// fails within the connect timeout, before anything is measured or written.
void preflight(Experiment& exp, Targets& targets, const std::map<std::string, std::string>& params,
               std::stop_token stop);

// A failure whose one-line message (what()) is shown, with more detail (e.g. a helper
// program's error output) kept in the run file (Run::detail).
class DetailedError : public std::runtime_error {
 public:
  DetailedError(const std::string& msg, std::string detail)
      : std::runtime_error(msg), detail_(std::move(detail)) {}
  const std::string& detail() const { return detail_; }

 private:
  std::string detail_;
};

// Runs an experiment to a Run: resolves the parameters (resolve_params; throws ParamError before
// anything starts when one is invalid), records host facts and time, catches failures (status
// Failed with the message, and Run::detail for a DetailedError) and cancellation (status Cancelled,
// also when a stop made a server operation give up), adds the plan's notes (plan_notes) and
// always returns what was measured.
Run execute(Experiment& exp, Targets& targets, const std::map<std::string, std::string>& params,
            const RunHooks& hooks, std::stop_token stop);

}  // namespace perflab
