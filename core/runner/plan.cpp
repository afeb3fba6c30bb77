// A plan (plan.h): the parameter `plan`, a run's values resolved with one, and the notes a short
// plan adds for the headline findings it could not settle.
#include "runner/plan.h"

#include <algorithm>
#include <string>

#include "common/figure_format.h"
#include "common/text.h"

namespace perflab {

ParamSpec plan_param(const std::vector<Plan>& plans) {
  ParamSpec spec{.name = "plan",
                 .type = ParamType::OneOf,
                 .default_value = std::string(kDefaultPlan),
                 .choices = {std::string(kDefaultPlan)},
                 .help = "default: the parameters' defaults"};
  for (const auto& p : plans) {
    spec.choices.push_back(p.name);
    spec.help += "; " + p.name + ": " + p.summary;
  }
  spec.help += " (the plan's values under any given here)";
  return spec;
}

const Plan* find_plan(const std::vector<Plan>& plans, std::string_view name) {
  for (const auto& p : plans)
    if (p.name == name) return &p;
  return nullptr;
}

std::map<std::string, std::string> with_plan(const std::vector<Plan>& plans,
                                             const std::map<std::string, std::string>& overrides) {
  const auto it = overrides.find("plan");
  if (it == overrides.end()) return overrides;
  const std::string name = validate_param(plan_param(plans), it->second);
  const Plan* plan = find_plan(plans, name);
  if (!plan) return overrides;  // the default plan
  std::map<std::string, std::string> out = plan->values;
  for (const auto& [k, v] : overrides) out[k] = v;
  out["plan"] = name;
  return out;
}

bool finding_settled(const Finding& f) {
  if (f.kind == FindingKind::Note) return true;
  if (f.claim && f.reproduction() == Reproduction::Inconclusive) return false;
  if (f.kind != FindingKind::Comparison) return true;
  const auto v = f.verdict();
  return v && settles(*v);
}

Finding verdicts_note(const std::vector<Finding>& findings, double elapsed_s, double budget_s) {
  std::size_t comparisons = 0;
  std::vector<std::string> open;
  for (const auto& f : findings) {
    if (f.kind != FindingKind::Comparison) continue;
    ++comparisons;
    const auto v = f.verdict();
    if (v && settles(*v)) continue;
    // Its title, ratio and interval: the note names no winner and no level (what a note is about
    // carries no direction; the finding states its level); the interval shows how far it could go.
    std::string ratio = finding_title(f) + " " + format_figure(f.value);
    if (f.ci && f.ci->has_interval())
      ratio += " [" + format_figure(f.ci->lo) + "–" + format_figure(f.ci->hi) + "]";
    open.push_back(std::move(ratio));
  }
  std::string what = std::to_string(comparisons - open.size()) + " of " +
                     std::to_string(comparisons) + " comparisons reached a verdict in " +
                     format_fixed(elapsed_s, 0) + " s";
  if (budget_s > 0) what += " (budget " + format_fixed(budget_s, 0) + " s)";
  if (!open.empty()) what += "; no verdict: " + join(open, "; ");
  return note_finding({.id = "verdicts", .what = what});
}

namespace {

// "repetitions = 10 (here 3), point_budget_s = 1.5 (here 0.5)": the headline's settling
// parameters whose default measures more than the run's value.
std::string default_plan_adds(const Headline& headline, const std::vector<ParamSpec>& specs,
                              const std::map<std::string, std::string>& values) {
  std::vector<std::string> parts;
  for (const auto& name : headline.settled_by) {
    const auto spec = std::find_if(specs.begin(), specs.end(),
                                   [&](const ParamSpec& s) { return s.name == name; });
    const auto value = values.find(name);
    if (spec == specs.end() || value == values.end()) continue;
    if (spec->type != ParamType::Int && spec->type != ParamType::Double) continue;
    const std::string def = validate_param(*spec, spec->default_value);
    if (std::stod(def) > std::stod(value->second))
      parts.push_back(name + " = " + def + " (here " + value->second + ")");
  }
  return join(parts, ", ");
}

}  // namespace

std::vector<Finding> plan_notes(const Plan& plan, const std::vector<ParamSpec>& specs,
                                const std::map<std::string, std::string>& values,
                                const std::vector<Finding>& findings) {
  // A value of the plan's changed by the user that measures no more of any headline (which
  // benchmarks, which groups) changed what is measured: a headline it left out is what the user
  // asked for, not something the plan could not measure.
  bool selection_changed = false;
  for (const auto& [name, value] : plan.values) {
    const auto v = values.find(name);
    const bool sizes =
        std::any_of(plan.headlines.begin(), plan.headlines.end(), [&](const auto& h) {
          return std::find(h.settled_by.begin(), h.settled_by.end(), name) != h.settled_by.end();
        });
    if (v != values.end() && v->second != value && !sizes) selection_changed = true;
  }
  std::vector<Finding> notes;
  for (const auto& headline : plan.headlines) {
    const std::string& id = headline.finding;
    const std::string adds = default_plan_adds(headline, specs, values);
    const std::string more = adds.empty() ? "" : "; the default plan measures " + adds;
    const auto f = std::find_if(findings.begin(), findings.end(),
                                [&](const Finding& x) { return x.id == id; });
    std::string what;
    if (f == findings.end()) {
      if (selection_changed) continue;
      what = "Not measured in the " + plan.name + " plan: " + id + more;
    } else if (!finding_settled(*f)) {
      what = finding_title(*f) + ": the " + plan.name + " plan's time was not enough to settle it";
      if (f->claim && f->ci && f->reproduction() == Reproduction::Inconclusive)
        if (auto n = repetitions_to_settle(*f->claim, *f->ci))
          what += " (about " + std::to_string(*n) + " repetitions might, here " +
                  std::to_string(f->ci->n) + ")";
      // Where what settles it is not larger in the default plan, running that would not help.
      what += !more.empty() || headline.settled_by.empty()
                  ? more
                  : "; the default plan measures no more of it";
    } else {
      continue;
    }
    notes.push_back(note_finding({.id = plan.name + "_plan." + id, .what = what}));
  }
  return notes;
}

}  // namespace perflab
