#pragma once
// What a test asks of an experiment's run: to act the first time a progress step says something
// (stop, freeze a server), and a finding by its id.
#include <functional>
#include <string>

#include "common/run.h"
#include "runner/experiment.h"

namespace perflab::test {

// Hooks that call `action` once, the first time a progress step contains `text`.
RunHooks at_first_step(std::string text, std::function<void()> action);

// The run's finding with this id, or null.
const Finding* find_finding(const perflab::Run& run, const std::string& id);

}  // namespace perflab::test
