// The caching experiment's parameters, read in one place (caching/settings.h).
#include "caching/settings.h"

#include <algorithm>

#include "runner/settings.h"

namespace perflab::caching {

bool check_source(const Params& p) {
  const bool query = p.get_choice("source") == "query";
  const bool given = !p.get_string("query").empty() || !p.get_string("keys").empty();
  if (query && (p.get_string("query").empty() || p.get_string("keys").empty()))
    throw ParamError(
        "source=query needs parameter 'query' (a SELECT taking the key as $1) and "
        "parameter 'keys' (a file of keys, one per line, or a SELECT of them)");
  if (!query && given)
    throw ParamError("parameters 'query' and 'keys' are read only with source=query");
  return query;
}

CachingPlan CachingPlan::from(const Params& p) {
  CachingPlan c;
  c.tiers = p.get_subset("tiers");
  for (const auto& e : p.get_subset("encodings")) {
    auto enc = encoding_from_string(e);
    if (!enc) throw ParamError("parameter 'encodings': unknown encoding '" + e + "'");
    c.encodings.push_back(*enc);
  }
  const RunnerSettings runner = RunnerSettings::from(p);
  c.reps = runner.repetitions;
  c.warmup = runner.warmup;
  c.window_ns = p.get_int("server_cpu_window_ms") * 1'000'000;
  c.zlib_level = static_cast<int>(p.get_int("zlib_level"));
  c.local_budget = static_cast<std::size_t>(p.get_int("local_budget_mb")) * kMiB;
  c.list_size = static_cast<std::size_t>(p.get_int("list_size"));
  c.doc_bytes = static_cast<std::size_t>(p.get_int("document_kb")) * 1024;
  c.zipf_s = p.get_double("zipf_s");
  c.aside_keys = static_cast<std::size_t>(p.get_int("aside_keys"));
  c.aside_reads = p.get_int("aside_reads");
  for (std::int64_t b : p.get_int_list("aside_budgets_mb"))
    if (std::find(c.budgets.begin(), c.budgets.end(), b) == c.budgets.end()) c.budgets.push_back(b);
  c.seed = static_cast<std::uint64_t>(p.get_int("seed"));
  c.latency_rate = p.get_double("latency_rate");
  c.latency_seconds = p.get_double("latency_seconds");
  c.latency_lag_limit_ms = p.get_double("latency_lag_limit_ms");
  c.latency_rounds = static_cast<int>(p.get_int("latency_rounds"));
  c.arrivals = parse_arrivals(p.get_choice("arrivals"));
  c.latency_workload = p.get_choice("latency_workload");
  c.query_source = check_source(p);
  c.query = p.get_string("query");
  c.keys = p.get_string("keys");
  c.query_keys = static_cast<std::size_t>(p.get_int("query_keys"));
  if (c.aside() && static_cast<double>(c.aside_keys) * static_cast<double>(c.doc_bytes) >
                       2.0 * 1024 * 1024 * 1024)
    throw ParamError("aside_keys x document_kb exceeds 2 GB of documents; lower one of them");
  return c;
}

TargetNeeds caching_needs(const Params& p) {
  const std::vector<std::string> tiers = p.get_subset("tiers");
  auto has_tier = [&](const char* t) {
    return std::find(tiers.begin(), tiers.end(), t) != tiers.end();
  };
  if (check_source(p)) {  // the query's server, always, only to read
    TargetNeeds need{true, has_tier("redis") ? 1u : 0u};
    need.pg_read_only = true;
    return need;
  }
  const bool aside = p.get_int("aside_reads") > 0;  // encodings: never an empty subset
  return {has_tier("postgres") || aside, (has_tier("redis") || aside) ? 1u : 0u};
}

}  // namespace perflab::caching
