// The registry: every experiment Perflab has. Each experiment adds one line here.
#include "registry/registry.h"

#include "caching/experiment.h"
#include "iolist/experiment.h"
#include "sharding/experiment.h"

#include <exception>

#include "common/params.h"
#include "runner/plan.h"

namespace perflab {

std::vector<std::unique_ptr<Experiment>> all_experiments() {
  std::vector<std::unique_ptr<Experiment>> v;
  v.push_back(make_iolist_experiment());
  v.push_back(make_sharding_experiment());
  v.push_back(make_caching_experiment());
  return v;
}

std::unique_ptr<Experiment> make_experiment(const std::string& id) {
  for (auto& e : all_experiments())
    if (e->id() == id) return std::move(e);
  return nullptr;
}

std::map<std::string, std::string> param_defaults(
    const std::string& experiment, const std::map<std::string, std::string>& params) {
  std::map<std::string, std::string> out;
  const auto exp = make_experiment(experiment);
  if (!exp) return out;
  const std::vector<Plan> plans = exp->plans();
  const auto plan_name = params.find("plan");
  const Plan* plan = plan_name == params.end() ? nullptr : find_plan(plans, plan_name->second);
  for (const auto& spec : exp->params()) {
    std::string base = spec.default_value;
    if (plan)
      if (auto planned = plan->values.find(spec.name); planned != plan->values.end())
        base = planned->second;
    try {
      out[spec.name] = validate_param(spec, base);
    } catch (const std::exception&) {  // a default that is no value: none to compare with
    }
  }
  return out;
}

}  // namespace perflab
