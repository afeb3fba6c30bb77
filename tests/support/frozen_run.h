#pragma once
// A run whose server freezes at a step (SIGSTOP: what a network partition looks like to a
// client), and the two things every experiment's frozen-server test checks of it.
#include <sys/types.h>

#include <map>
#include <string>

#include "runner/experiment.h"
#include "targets/targets.h"

namespace perflab::test {

// An experiment run with its parameters against targets whose server (a process of the test's
// own: the shared ones are never frozen) freezes the first time a progress step contains `step`.
struct FrozenRun {
  Experiment& experiment;
  Targets& targets;
  std::map<std::string, std::string> params;
  pid_t server;
  std::string step;
  std::string what = "run";  // names the run in the printed timing
};

// Runs it to its end: it must fail within `bound_s` of the freeze (plus `slack_s` for a loaded
// machine), its message containing `message`. Returns the run, for the points a test expects.
perflab::Run expect_fails_within(const FrozenRun& r, double bound_s, double slack_s,
                                 const std::string& message);

// Runs it with Stop pressed 500 ms into the freeze: the run must end cancelled within a second
// (1.5 s, slack for a loaded machine). Returns the run, for the points a test expects.
perflab::Run expect_stops_within_a_second(const FrozenRun& r);

}  // namespace perflab::test
