#pragma once
// A plan: a named set of parameter values an experiment offers beside its defaults (the lecture
// plan: the story in about a minute), how a run's parameters resolve with one, and the notes a
// short plan adds for the headline findings it could not settle.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/finding.h"
#include "common/params.h"

namespace perflab {

// A finding a plan is built to show, and the numeric parameters that measure more of it the larger
// they are (repetitions, time per sample): where the default is larger, what the default plan
// would add to settle it.
struct Headline {
  std::string finding;                  // Finding::id
  std::vector<std::string> settled_by;  // parameter names; empty when more would not help
};

struct Plan {
  std::string name;     // "lecture": what `--plan` and the parameter `plan` take
  std::string summary;  // one line for a person: what the plan keeps and what it leaves out
  // The parameters the plan sets; the others keep their defaults.
  std::map<std::string, std::string> values;
  // The findings the plan is built to show; a run on the plan notes each one that is missing or
  // not settled.
  std::vector<Headline> headlines;
};

// The name of the plan that changes nothing.
inline constexpr std::string_view kDefaultPlan = "default";

// The parameter `plan` (one of "default" and the plans' names), recorded in every run file.
ParamSpec plan_param(const std::vector<Plan>& plans);

// The plan of that name; nullptr for "default" and unknown names.
const Plan* find_plan(const std::vector<Plan>& plans, std::string_view name);

// A run's parameter values with the plan named by overrides["plan"] beneath them: the defaults,
// then the plan's values, then each override. Throws ParamError for an unknown plan.
std::map<std::string, std::string> with_plan(const std::vector<Plan>& plans,
                                             const std::map<std::string, std::string>& overrides);

// For each of the plan's headline findings that is missing or undecided in `findings` (a
// comparison without a verdict on a difference, or an article's claim still inconclusive), a
// note saying so, and what the default plan would measure more of that finding (its
// Headline::settled_by, generated from `specs` and the run's `values`). A missing headline is
// not noted when the run changed one of the plan's values that settles no headline (what is
// measured, not how much): the user asked for something else.
std::vector<Finding> plan_notes(const Plan& plan, const std::vector<ParamSpec>& specs,
                                const std::map<std::string, std::string>& values,
                                const std::vector<Finding>& findings);

// Whether a finding has settled what it states: a comparison with a verdict on a difference or
// an equivalence, and its article's claim reproduced or not; shares and figures always.
bool finding_settled(const Finding& f);

// For a run measured to verdicts (the parameter `verdicts`): a note of how many of its
// comparisons reached a verdict (faster, slower, equivalent: settles()), in how many seconds of
// its budget (0: none), and which did not, each with its interval ("verdicts: 30 of 33
// comparisons reached a verdict in 231 s (budget 240 s); no verdict: SET at -P 16, requests/s:
// ... / twemproxy 1.04 [0.97–1.12]"). An article's claim is not counted: the rounds do not aim
// at it.
Finding verdicts_note(const std::vector<Finding>& findings, double elapsed_s, double budget_s);

}  // namespace perflab
