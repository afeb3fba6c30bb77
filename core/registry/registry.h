#pragma once
// The registry: every experiment Perflab has, and the only place in core that knows all three
// (perflab_registry, on top of the experiments' libraries).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runner/experiment.h"

namespace perflab {

std::vector<std::unique_ptr<Experiment>> all_experiments();
std::unique_ptr<Experiment> make_experiment(const std::string& id);  // nullptr if unknown

// What a run's parameters would be had it changed none: its experiment's defaults, or where it
// ran a plan (its "plan" parameter) the plan's values, each in its canonical text. Empty for an
// unknown experiment.
std::map<std::string, std::string> param_defaults(const std::string& experiment,
                                                  const std::map<std::string, std::string>& params);

}  // namespace perflab
