#pragma once
// The caching experiment's settings: every parameter of a run read once, in one place
// (CachingPlan::from), and the servers a run with them uses.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "caching/codec.h"
#include "common/open_loop_schedule.h"
#include "common/params.h"
#include "targets/targets.h"

namespace perflab::caching {

inline constexpr std::size_t kMiB = 1024 * 1024;

// Whether the run reads the user's query (source=query); throws ParamError when the query or
// its keys are missing, or given without source=query.
bool check_source(const Params& p);

// A run's settings, from its (validated) parameters.
struct CachingPlan {
  std::vector<std::string> tiers;
  std::vector<Encoding> encodings;
  int reps = 0, warmup = 0, zlib_level = 0;
  std::int64_t window_ns = 0;
  std::size_t local_budget = 0, list_size = 0, doc_bytes = 0, aside_keys = 0;
  double zipf_s = 0;
  std::int64_t aside_reads = 0;
  std::vector<std::int64_t> budgets;  // MB, each once
  std::uint64_t seed = 0;
  // The read latency at a fixed rate (0: not measured): requests per second per tier, the
  // seconds of one round, the rounds, the arrivals and the workload read.
  double latency_rate = 0, latency_seconds = 0, latency_lag_limit_ms = 0;
  int latency_rounds = 0;
  Arrivals arrivals = Arrivals::Uniform;
  std::string latency_workload;
  // Caching on your query (source=query): the query ($1 the key), its keys (a file or a
  // SELECT), at most this many. The matrix only: no decode bench, latency or cache-aside.
  bool query_source = false;
  std::string query, keys;
  std::size_t query_keys = 0;

  bool aside() const { return !query_source && aside_reads > 0 && !encodings.empty(); }
  bool latency() const {
    return !query_source && latency_rate > 0 && !tiers.empty() && !encodings.empty();
  }

  // Throws ParamError when the cache-aside documents would not fit in memory.
  static CachingPlan from(const Params& p);
};

// The servers a run with these (resolved) parameters uses (Experiment::needs); throws ParamError
// as check_source does.
TargetNeeds caching_needs(const Params& p);

}  // namespace perflab::caching
