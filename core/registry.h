#pragma once
// The registry: every experiment Perflab has, and the only place in core that knows all three
// (perflab_registry, on top of the experiments' libraries).
#include <memory>
#include <string>
#include <vector>

#include "runner/experiment.h"

namespace perflab {

std::vector<std::unique_ptr<Experiment>> all_experiments();
std::unique_ptr<Experiment> make_experiment(const std::string& id);  // nullptr if unknown

}  // namespace perflab
