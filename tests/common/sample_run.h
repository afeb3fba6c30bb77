#pragma once
// A small Run built in code, for the model's own tests, one with a judged comparison, and the
// refusal of its JSON changed.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/finding.h"
#include "common/run.h"
#include "common/run_io.h"

inline perflab::Run sample_run() {
  using namespace perflab;
  Run r;
  r.experiment = "iolist";
  r.title = "IO lists";
  r.params = {{"events", "100"}, {"builders", "interpolate,iolist"}};
  r.targets = {{"postgres", "host=127.0.0.1 port=5432 dbname=perflab", true, "15.18"}};
  r.host = current_host();
  r.started_unix_ms = 1'700'000'000'000;
  r.ended_unix_ms = 1'700'000'060'000;
  r.status = RunStatus::Finished;
  r.groups.push_back({"append", "Append 100 events", "us/op", "", false, true, "appends"});
  r.groups.push_back({"build_allocs", "Allocations", "allocations/statement",
                      "events per statement", true, true, ""});
  Point a{"single writer", std::nullopt, {100, 110, 120}, {}, {{"cpu", 20}}};
  Point b{"single writer", std::nullopt, {80, 90, 85}, {}, {}};
  Point c{"10, \"concurrent\" writers", std::nullopt, {1000}, {}, {}};
  r.add_point("append", "interpolate", a);
  r.add_point("append", "iolist", b);
  r.add_point("append", "interpolate", c);
  Point x{"100", 100.0, {304}, {}, {}};
  r.add_point("build_allocs", "interpolate", x);
  Finding ratio = figure_finding({"append_1.iolist_vs_interpolate", "", "ratio", ""}, 0.77);
  ratio.claim = claim_value(0.78, 0.08);
  generate_text(ratio);
  r.findings.push_back(ratio);
  r.findings.push_back(figure_finding({"other", "", "no article", ""}, 1.5));
  return r;
}

// A run whose two series were measured side by side, 12 rounds: iolist 20% faster.
inline perflab::Run judged_run() {
  using namespace perflab;
  Run r = sample_run();
  std::vector<double> a, b;
  for (int i = 0; i < 12; ++i) {
    const double drift = 1 + 0.01 * (i % 5);
    b.push_back(100 * drift);
    a.push_back(80 * drift * (1 + 0.002 * (i % 3)));
  }
  Point pa{"12 rounds", std::nullopt, a, {}, {}};
  Point pb{"12 rounds", std::nullopt, b, {}, {}};
  r.add_point("append", "iolist", pa);
  r.add_point("append", "interpolate", pb);
  auto f = comparison_finding(
      {"append_12.iolist_vs_interpolate", "Append",
       ComparedPair{"iolist", "interpolate", "time per append", Quantity::Time, Better::Lower},
       true, "", claim_value(0.78, 0.01)},
      0.02, a, b);
  r.findings.push_back(*f);
  return r;
}

// sample_run() as JSON, changed, read back: the refusal's message, or "accepted".
inline std::string refusal_of_changed(const std::function<void(nlohmann::json&)>& change) {
  auto j = nlohmann::json::parse(perflab::run_to_json(sample_run()));
  change(j);
  try {
    perflab::run_from_json(j.dump());
  } catch (const perflab::RunFormatError& e) {
    return e.what();
  }
  return "accepted";
}
