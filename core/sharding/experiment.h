#pragma once
// The `sharding` experiment: the pipeline sweep through the sharding proxy's write strategies
// (and twemproxy, and direct Redis), and the key distribution table (modula, ketama, jump).
#include <memory>

#include "runner/experiment.h"

namespace perflab {

std::unique_ptr<Experiment> make_sharding_experiment();

}  // namespace perflab
