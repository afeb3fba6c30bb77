#pragma once
// What a test asks of an experiment's run: to act the first time a progress step says something
// (stop, freeze a server), a finding by its id, and a plan's story in a run of it.
#include <functional>
#include <string>

#include "common/run.h"
#include "runner/experiment.h"

namespace perflab::test {

// Hooks that call `action` once, the first time a progress step contains `text`.
RunHooks at_first_step(std::string text, std::function<void()> action);

// The run's finding with this id, or null.
const Finding* find_finding(const perflab::Run& run, const std::string& id);

// A run of the experiment's plan `plan` shows the plan's story: the run records the plan and its
// values, opens on a headline chart with points, and has each headline finding of the plan,
// either settled or with the plan's note saying it was not (plan_notes). Fails the test if not.
void expect_plan_shown(const Experiment& exp, const perflab::Run& run, const std::string& plan);

}  // namespace perflab::test
