#pragma once
// Runs built in the tests (no server needed) for charts, exports, history and comparison.
#include <string>
#include <vector>

#include "common/run.h"

namespace perflab::test {

inline Point sample_point(const std::string& label, std::vector<double> samples,
                          std::optional<double> x = std::nullopt) {
  Point p;
  p.label = label;
  p.x = x;
  p.samples = std::move(samples);
  return p;
}

// A categorical group "append" (2 series × 3 writer counts) and a numeric group "build"
// (2 series over events per statement), like the IO-list experiment publishes. `scale`
// multiplies every sample so two runs differ.
inline Run sample_run(double scale = 1.0) {
  Run run;
  run.experiment = "iolist";
  run.title = "IO lists";
  run.params = {{"events", "100"}, {"repetitions", "5"}, {"builders", "iolist,interpolate"}};
  run.status = RunStatus::Finished;
  run.started_unix_ms = 1796000000000;
  run.ended_unix_ms = 1796000060000;
  run.targets.push_back({"postgres", "host=127.0.0.1 port=5433 dbname=perflab", true, "15.8"});
  run.ensure_group({"append", "Append 100 events", "us/op", "", false, true,
                    "Time to append 100 events per writer."});
  run.ensure_group({"build", "Statement building", "ns/statement", "events per statement", true,
                    true, "Time to build one INSERT statement."});
  const char* writers[] = {"1 writer", "10 writers", "100 writers"};
  double base[] = {15000, 130000, 1400000};
  for (int i = 0; i < 3; ++i) {
    double b = base[i] * scale;
    run.add_point("append", "interpolate",
                  sample_point(writers[i], {b, b * 1.02, b * 0.98, b * 1.05, b * 1.01}));
    run.add_point("append", "iolist",
                  sample_point(writers[i], {b * 0.78, b * 0.8, b * 0.77, b * 0.79, b * 0.81}));
  }
  const double events[] = {1, 10, 100, 1000, 8191};
  for (double e : events) {
    double t = 200 * e * scale;
    run.add_point("build", "interpolate",
                  sample_point(std::to_string(static_cast<int>(e)), {t, t * 1.1, t * 0.9}, e));
    run.add_point(
        "build", "iolist",
        sample_point(std::to_string(static_cast<int>(e)), {t * 0.3, t * 0.33, t * 0.28}, e));
  }
  Finding f = figure_finding({.id = "append_1.iolist_vs_interpolate",
                              .what = "iolist / interpolate, append 100 events, 1 writer"},
                             0.79);
  f.claim = claim_value(0.78, 0.08);
  generate_text(f);
  run.findings.push_back(f);
  return run;
}

}  // namespace perflab::test
