#pragma once
// The open-loop rounds of one series at a fixed rate, as a run keeps them: the valid rounds'
// recorders (a percentile spectrum), every round's achieved rate beside the target, and why the
// other rounds were not valid (said in a note, never drawn as figures).
#include <string>
#include <vector>

#include "common/latency_recorder.h"
#include "common/run.h"
#include "runner/experiment.h"
#include "runner/open_loop_client.h"

namespace perflab {

struct OpenLoopSeries {
  std::string series;  // in the spectrum and as the rate point's label: "redis", "iolist"
  std::string title;   // in a sentence: "Redis", "iolist"
  std::vector<LatencyRecorder> valid;
  std::vector<double> achieved_rps;   // every round's
  std::vector<std::string> problems;  // one per round not valid: "round 2: rate not held (...)"

  // Keeps a round: its recorder when valid, else why not.
  void add(OpenLoopRound&& r, int round);
  // Each valid round's latency at `percent`, in units of `ns_per_unit` nanoseconds.
  std::vector<double> at_percentile(double percent, double ns_per_unit) const;
};

// Where a series' rounds go: the spectrum group (percentile_x), the rate group (categorical,
// req/s, series "achieved"), the target and what the sentences say the rate was of.
struct OpenLoopGroups {
  Group spectrum;
  std::string rate_group;
  double target_rps = 0;
  std::string context;  // Finding::context of the notes
};

// A rate group's definition: the achieved rate of each series' rounds beside the target.
Group open_loop_rate_group(const std::string& id, const std::string& what, double target_rps);

// Publishes a series: its spectrum from the valid rounds (ns_per_unit of the spectrum's unit),
// its rate point (samples: every round's achieved rate; extras target_rps and rounds_not_valid)
// and, when rounds were not valid, a note "<title>: 2 of 5 rounds at 1000 req/s not valid, left
// out of its spectrum: round 1: ..." (id "<spectrum id>.<series>.not_valid").
void publish_open_loop_series(RunContext& ctx, const OpenLoopGroups& g, const OpenLoopSeries& s,
                              double ns_per_unit);

// "1000 req/s", "0.50 req/s".
std::string open_loop_rate_text(double rps);

}  // namespace perflab
