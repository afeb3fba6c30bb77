#pragma once
// The IO-list experiment (docs/iolist.md): statement builders for the event store's
// multi-row INSERT, appends and reads with 1/10/100 concurrent clients, and the statement
// building micro-benchmark.
#include <memory>

#include "runner/experiment.h"

namespace perflab {

std::unique_ptr<Experiment> make_iolist_experiment();

}  // namespace perflab
