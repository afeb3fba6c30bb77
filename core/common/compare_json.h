#pragma once
// Two runs' comparison as JSON, for tools (perflab-cli compare --json): every row with its
// medians, ratio, interval, U test and verdict, the unmatched benchmarks, and the gate's outcome.
#include <string>

#include "common/compare.h"
#include "common/regression_gate.h"

namespace perflab {

// `gate`: the regression gate's outcome, or nullptr when none was asked for.
std::string comparison_json(const Comparison& c, const std::string& old_path,
                            const std::string& new_path, const GateResult* gate);

}  // namespace perflab
