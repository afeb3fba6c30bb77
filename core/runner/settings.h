#pragma once
// The parameters the runner relies on in every experiment, declared once (repetitions, warmup,
// threshold, precision, precision_budget_s, verdicts, budget_s), and RunnerSettings: their
// values, read once.
#include <string>
#include <vector>

#include "common/params.h"

namespace perflab {

// What an experiment's `repetitions` and `warmup` mean to it: their defaults, largest values and
// help (the names, types and least values are the runner's).
struct RepetitionDefaults {
  std::string repetitions;  // default, e.g. "10"
  double repetitions_max = 0;
  std::string repetitions_help;
  std::string warmup;  // default, e.g. "1"
  double warmup_max = 0;
  std::string warmup_help;
  std::vector<std::string> repetitions_former_names{};  // sharding's `repeat`
  // The defaults of `verdicts` and `budget_s`: what a run with no parameters settles, and in
  // how long.
  std::string verdicts = "false";
  std::string budget_s = "0";
};

// `repetitions` (measured rounds, at least 1) and `warmup` (unmeasured rounds, at least 0), in
// this order, with the experiment's defaults.
std::vector<ParamSpec> repetition_params(const RepetitionDefaults& d);

// The parameters every experiment takes (appended to its own): `threshold` of practical
// significance in percent (default 2), the adaptive repetitions' `precision` in percent (0: off,
// the fixed repetitions) with its time budget per point, `precision_budget_s`, the verdict rule
// `verdicts` (measure each point until its compared ratios have verdicts) and the run's
// wall-time budget `budget_s` its adaptive points share (0: none), the last two with the
// experiment's defaults.
std::vector<ParamSpec> statistics_params(const RepetitionDefaults& d = {});

// An experiment's own parameters with the runner's: `repetitions` and `warmup` after the one
// called `after` (where a form shows them; "": first), the statistics_params() at the end.
std::vector<ParamSpec> with_runner_params(std::vector<ParamSpec> own, const std::string& after,
                                          const RepetitionDefaults& d);

// The names of every parameter above: each experiment's params() holds each exactly once.
std::vector<std::string> runner_param_names();

// The runner's parameters of a run, read once. A parameter the experiment does not declare (a
// test's experiment) keeps the value here.
struct RunnerSettings {
  int repetitions = 1;
  int warmup = 0;
  double threshold = 0.02;  // a share: `threshold` / 100
  double precision = 0;     // a share: `precision` / 100; 0: exactly `repetitions`
  double precision_budget_s = 60;
  bool verdicts = false;  // the verdict rule (adaptive.h) with `threshold`
  double budget_s = 0;    // the run's wall-time budget; 0: none
  // Whether points measure adaptively (a precision, or the verdict rule).
  bool adaptive() const { return precision > 0 || verdicts; }

  static RunnerSettings from(const Params& p);
};

}  // namespace perflab
