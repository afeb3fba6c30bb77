#pragma once
// A run as readable text: what the CLI prints on stdout.
#include <string>

#include "common/run.h"

namespace perflab {

// Header (experiment, status, parameters, targets), one table per group (series × point:
// median, p95, min, max, n, in the group's unit), then the findings with the article's figures.
std::string format_run_report(const Run& run);

}  // namespace perflab
