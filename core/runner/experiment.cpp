#include "runner/experiment.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>

#include "common/clock.h"
#include "common/latency_spectrum.h"
#include "common/machine_noise.h"
#include "targets/targets.h"

namespace perflab {

namespace {
// How long the machine's load from others is watched before a run (Stop ends it at once).
constexpr std::chrono::milliseconds kBusyWindow{300};
}  // namespace

RunContext::RunContext(Targets& targets, Params params, RunHooks hooks, std::stop_token stop,
                       Run& run)
    : targets_(targets),
      params_(std::move(params)),
      runner_(RunnerSettings::from(params_)),
      hooks_(std::move(hooks)),
      stop_(std::move(stop)),
      run_(run),
      started_ns_(wall_ns()) {
  if (runner_.adaptive() && runner_.budget_s > 0) budget_ = RunBudget(runner_.budget_s);
}

void RunContext::expect_points(std::size_t points) {
  std::lock_guard lock(mu_);
  budget_.expect_points(points);
}

std::optional<double> RunContext::take_point_budget() const {
  const double elapsed = elapsed_s();
  std::lock_guard lock(mu_);
  return budget_.take_point(elapsed);
}

double RunContext::elapsed_s() const {
  return static_cast<double>(wall_ns() - started_ns_) / 1e9;
}

void RunContext::check_stop() const {
  if (stop_.stop_requested()) throw Cancelled{};
}

void RunContext::progress(double fraction, std::string_view step) {
  if (hooks_.progress) hooks_.progress(fraction, step);
}

double RunContext::threshold() const {
  return runner_.threshold;
}

void RunContext::add_comparison(const ComparisonSpec& spec, const Point* subject,
                                const Point* baseline) {
  if (!subject || !baseline) return;
  add_comparison(spec, subject->samples, baseline->samples);
}

void RunContext::add_comparison(const ComparisonSpec& spec, std::span<const double> subject,
                                std::span<const double> baseline) {
  if (spec.interleaved && subject.size() != baseline.size()) {
    // Interleaved series that end at different rounds (a variant no longer measured once its
    // comparisons had verdicts: PointRounds::focus) are compared over the rounds they share.
    const std::size_t n = std::min(subject.size(), baseline.size());
    subject = subject.first(n);
    baseline = baseline.first(n);
  }
  if (auto f = comparison_finding(spec, threshold(), subject, baseline)) add_finding(std::move(*f));
}

void RunContext::add_comparison(const ComparisonSpec& spec, const std::string& error,
                                const SidesLessError& sides) {
  if (auto f = bounded_comparison_finding(spec, threshold(), error, sides))
    add_finding(std::move(*f));
}

void RunContext::add_group(const Group& g) {
  {
    std::lock_guard lock(mu_);
    run_.ensure_group(g);
  }
}

void RunContext::add_point(const std::string& group, const std::string& series, Point p) {
  Run copy;
  {
    std::lock_guard lock(mu_);
    run_.add_point(group, series, std::move(p));
    if (hooks_.on_update) copy = run_;
  }
  if (hooks_.on_update) hooks_.on_update(copy);
}

bool RunContext::add_latency_spectrum(const Group& g, const std::string& series,
                                      std::span<const LatencyRecorder> rounds, double ns_per_unit) {
  Run copy;
  {
    std::lock_guard lock(mu_);
    if (!perflab::add_latency_spectrum(run_, g, series, rounds, ns_per_unit)) return false;
    if (hooks_.on_update) copy = run_;
  }
  if (hooks_.on_update) hooks_.on_update(copy);
  return true;
}

void RunContext::add_finding(Finding f) {
  std::lock_guard lock(mu_);
  auto it = std::find_if(run_.findings.begin(), run_.findings.end(),
                         [&](const Finding& x) { return x.id == f.id; });
  if (it != run_.findings.end())
    *it = std::move(f);
  else
    run_.findings.push_back(std::move(f));
}

void RunContext::order_findings(const std::function<int(const std::string& id)>& rank) {
  std::lock_guard lock(mu_);
  std::stable_sort(run_.findings.begin(), run_.findings.end(),
                   [&](const Finding& a, const Finding& b) { return rank(a.id) < rank(b.id); });
}

void RunContext::add_target(TargetInfo t) {
  std::lock_guard lock(mu_);
  for (const auto& x : run_.targets)
    if (x.kind == t.kind && x.address == t.address) return;
  run_.targets.push_back(std::move(t));
}

Run RunContext::snapshot() const {
  std::lock_guard lock(mu_);
  return run_;
}

Params resolve_params(const Experiment& exp, const std::map<std::string, std::string>& params) {
  return Params::resolve(exp.params(), with_plan(exp.plans(), params));
}

void preflight(Experiment& exp, Targets& targets, const std::map<std::string, std::string>& params,
               std::stop_token stop) {
  const Params resolved = resolve_params(exp, params);  // throws ParamError first
  targets.preflight(exp.needs(resolved), std::move(stop));
}

Run execute(Experiment& exp, Targets& targets, const std::map<std::string, std::string>& params,
            const RunHooks& hooks, std::stop_token stop) {
  Params resolved = resolve_params(exp, params);  // throws ParamError first
  Run run;
  run.experiment = exp.id();
  run.title = exp.title();
  run.params = resolved.values();
  run.host = current_host();
  run.started_unix_ms = unix_ms_now();
  // The machine's load from others: the CPUs' busy share over a short window just before the
  // run (a build or server start that just ended is not in it; the load average would be).
  const MachineSnapshot window_start = read_machine_snapshot();
  {
    std::mutex m;
    std::unique_lock lock(m);
    std::condition_variable_any().wait_for(lock, stop, kBusyWindow, [] { return false; });
  }
  const MachineSnapshot before = read_machine_snapshot();
  RunContext ctx(targets, std::move(resolved), hooks, stop, run);
  run.threshold = ctx.threshold();
  try {
    exp.run(ctx);
    run.status = stop.stop_requested() ? RunStatus::Cancelled : RunStatus::Finished;
    if (run.status == RunStatus::Cancelled) run.message = "stopped by the user";
  } catch (const Cancelled&) {
    run.status = RunStatus::Cancelled;
    run.message = "stopped by the user";
  } catch (const std::exception& e) {
    // After a stop, a failure is the stop's doing (e.g. a wait on a server that gave up).
    run.status = stop.stop_requested() ? RunStatus::Cancelled : RunStatus::Failed;
    run.message = stop.stop_requested() ? std::string("stopped by the user") : e.what();
    if (auto* d = dynamic_cast<const DetailedError*>(&e); d && !stop.stop_requested())
      run.detail = d->detail();
  }
  for (auto& t : targets.describe()) ctx.add_target(std::move(t));
  const std::vector<Plan> plans = exp.plans();
  if (const auto plan = run.params.find("plan"); plan != run.params.end())
    if (const Plan* p = find_plan(plans, plan->second))
      for (auto& note : plan_notes(*p, exp.params(), run.params, ctx.snapshot().findings))
        ctx.add_finding(std::move(note));
  if (ctx.runner().verdicts)
    ctx.add_finding(verdicts_note(ctx.snapshot().findings, ctx.elapsed_s(), ctx.runner().budget_s));
  run.machine = judge_machine(before, read_machine_snapshot(), {}, &window_start);
  run.ended_unix_ms = unix_ms_now();
  if (hooks.on_update) hooks.on_update(ctx.snapshot());
  return run;
}

}  // namespace perflab
