// The runner's parameters: their declaration and the one place they are read (runner/settings.h).
#include "runner/settings.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace perflab {

std::vector<ParamSpec> repetition_params(const RepetitionDefaults& d) {
  return {
      {.name = "repetitions",
       .type = ParamType::Int,
       .default_value = d.repetitions,
       .min = 1,
       .max = d.repetitions_max,
       .help = d.repetitions_help,
       .former_names = d.repetitions_former_names},
      {.name = "warmup",
       .type = ParamType::Int,
       .default_value = d.warmup,
       .min = 0,
       .max = d.warmup_max,
       .help = d.warmup_help},
  };
}

std::vector<ParamSpec> statistics_params(const RepetitionDefaults& d) {
  return {
      {.name = "threshold",
       .type = ParamType::Double,
       .default_value = "2",
       .min = 0,
       .max = 50,
       .help =
           "practical significance, %: a ratio is called faster or slower only when its whole 95% "
           "interval lies beyond 1 ± threshold"},
      {.name = "precision",
       .type = ParamType::Double,
       .default_value = "0",
       .min = 0,
       .max = 50,
       .help = "adaptive repetitions, %: keep measuring each point until the 95% intervals of its "
               "figures are within ± precision (0: off, exactly `repetitions`)"},
      {.name = "precision_budget_s",
       .type = ParamType::Double,
       .default_value = "60",
       .min = 1,
       .max = 3600,
       .help = "time budget per point when measuring to a precision or to verdicts"},
      {.name = "verdicts",
       .type = ParamType::Bool,
       .default_value = d.verdicts,
       .help = "keep measuring each point until every ratio it compares has a verdict: its 95% "
               "interval wholly beyond 1 ± threshold (faster, slower) or wholly inside it "
               "(equivalent); at least `repetitions` rounds"},
      {.name = "budget_s",
       .type = ParamType::Double,
       .default_value = d.budget_s,
       .min = 0,
       .max = 86400,
       .help = "the run's wall-time budget, s, when measuring to a precision or to verdicts: a "
               "point may take what remains divided by the points left (0: none)"},
  };
}

std::vector<ParamSpec> with_runner_params(std::vector<ParamSpec> own, const std::string& after,
                                          const RepetitionDefaults& d) {
  auto at = own.begin();
  if (!after.empty()) {
    at = std::find_if(own.begin(), own.end(), [&](const ParamSpec& s) { return s.name == after; });
    if (at == own.end()) throw std::logic_error("no parameter '" + after + "' to follow");
    ++at;
  }
  auto reps = repetition_params(d);
  own.insert(at, std::make_move_iterator(reps.begin()), std::make_move_iterator(reps.end()));
  for (auto& spec : statistics_params(d)) own.push_back(std::move(spec));
  return own;
}

std::vector<std::string> runner_param_names() {
  std::vector<std::string> names;
  for (const auto& s : repetition_params({})) names.push_back(s.name);
  for (const auto& s : statistics_params()) names.push_back(s.name);
  return names;
}

RunnerSettings RunnerSettings::from(const Params& p) {
  RunnerSettings s;
  const auto& v = p.values();
  if (v.count("repetitions")) s.repetitions = static_cast<int>(p.get_int("repetitions"));
  if (v.count("warmup")) s.warmup = static_cast<int>(p.get_int("warmup"));
  if (v.count("threshold")) s.threshold = p.get_double("threshold") / 100.0;
  if (v.count("precision")) s.precision = p.get_double("precision") / 100.0;
  if (v.count("precision_budget_s")) s.precision_budget_s = p.get_double("precision_budget_s");
  if (v.count("verdicts")) s.verdicts = p.get_bool("verdicts");
  if (v.count("budget_s")) s.budget_s = p.get_double("budget_s");
  return s;
}

}  // namespace perflab
