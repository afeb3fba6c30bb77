#pragma once
// Runs that must hold measurements: what charts, reports, comparisons and exports read. A run
// without a single measured point is refused, naming the field.
#include <filesystem>

#include "common/run.h"
#include "common/run_io.h"

namespace perflab {

// Throws RunFormatError (field "series") when the run has no measured point; a failed or
// stopped run says so, with its message. `file`, when given, starts the message.
void check_measured(const Run& run, const std::filesystem::path& file = {});

// load_run, then check_measured (the path named as load_run names it).
Run load_measured_run(const std::filesystem::path& path);

}  // namespace perflab
