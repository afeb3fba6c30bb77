#pragma once
// Two runs compared as a regression gate: the benchmarks the new run made slower by more than a
// tolerance, the whole interval of their slowdown beyond it (perflab-cli compare --fail-on).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/compare.h"

namespace perflab {

struct GateRule {
  // How much slower fails, as a fraction (0.05: 5%); absent: the new run's threshold of practical
  // significance, so that a row fails exactly when its verdict reads "slower".
  std::optional<double> tolerance;
  // The benchmarks held to the rule: names as compare prints them, or patterns with * and ?
  // (fnmatch); empty: every benchmark of both runs.
  std::vector<std::string> names;
};

// "slower" or "slower:PCT" (PCT a percentage from 0 to 1000, "%" optional): the rule without
// names. Anything else: std::invalid_argument saying what is accepted.
GateRule parse_gate_rule(const std::string& text);

struct GateFailure {
  std::string name;
  // How many times slower, with its interval: new/old of a time, old/new of a throughput.
  Estimate slowdown;
};

struct GateResult {
  double tolerance = 0;                // as applied
  std::size_t held = 0;                // the rows held to the rule
  std::size_t not_judged = 0;          // of those, without a ratio's interval (too few samples)
  std::vector<GateFailure> failures;   // slower beyond the tolerance, the slowest first
  std::vector<std::string> unmatched;  // names of the rule that match no row
  bool passed() const { return failures.empty(); }
};

GateResult apply_gate(const Comparison& c, const GateRule& rule);

// What the gate found, in lines: each failure with its slowdown and interval, then the outcome
// ("gate passed: none of 14 benchmarks is slower by more than 5%").
std::string format_gate(const GateResult& g);

}  // namespace perflab
