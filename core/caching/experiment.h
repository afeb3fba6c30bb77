#pragma once
// The caching experiment (docs/caching.md): PostgreSQL vs Redis vs in-process memory, each
// native / protobuf / protobuf+zlib, for one ~60 KB document and a list of 1,000 comments;
// plus a cache-aside scenario (local → redis → postgres) over Zipf-distributed reads.
#include <memory>

#include "runner/experiment.h"

namespace perflab {

std::unique_ptr<Experiment> make_caching_experiment();

}  // namespace perflab
