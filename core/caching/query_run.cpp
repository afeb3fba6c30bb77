// Caching on your query (source=query, docs/caching.md): the user's query run read-only for its
// keys, its rows copied into Perflab's Redis prefix and this process' memory in each encoding,
// and the tier matrix on them.
#include <algorithm>
#include <string>
#include <vector>

#include "caching/caching_run.h"
#include "caching/query_sample.h"
#include "common/stats.h"

namespace perflab::caching {

namespace {

constexpr double kMiBd = 1024.0 * 1024.0;

// What the query returned: keys read and left out, rows and bytes per key, and how many keys'
// rows the local budget holds as ready objects.
void describe_sample(RunContext& ctx, const CachingPlan& plan, const QuerySample& s) {
  std::vector<double> rows, bytes;
  for (const auto& r : s.results) {
    rows.push_back(static_cast<double>(r.rows.size()));
    bytes.push_back(static_cast<double>(value_bytes(r)));
  }
  const auto figure = [&](const std::string& id, const std::string& what, const std::string& unit,
                          double value) {
    ctx.add_finding(figure_finding({"query.sample." + id, "your query", what, unit, ""}, value));
  };
  figure("keys",
         std::string("keys read (") + (s.keys_from_sql ? "by the keys' SELECT" : "from the file") +
             ") that returned rows",
         "keys", static_cast<double>(s.results.size()));
  if (s.keys_without_rows > 0)
    figure("keys_without_rows", "keys left out: the query returned no row for them", "keys",
           static_cast<double>(s.keys_without_rows));
  figure("rows_per_key", "rows per key (median)", "rows", summarize(rows).median);
  figure("bytes_per_key", "bytes of values per key, as text (median)", "bytes",
         summarize(bytes).median);
  const double per_key = static_cast<double>(s.footprint()) / static_cast<double>(s.results.size());
  figure("local_fit",
         "keys whose rows fit local_budget_mb (" +
             std::to_string(plan.local_budget / (1024 * 1024)) +
             " MB) as ready objects, at the mean " +
             std::to_string(static_cast<long long>(per_key)) + " bytes each",
         "keys",
         static_cast<double>(
             static_cast<long long>(static_cast<double>(plan.local_budget) / per_key)));
}

}  // namespace

void run_query(RunContext& ctx, const CachingPlan& plan, bool redis) {
  CachingServers servers;
  ctx.progress(0, "connecting to PostgreSQL");
  servers.pg = ctx.targets().postgres(ctx.stop_token(), PgUse::ReadOnly);
  QuerySample sample;
  {
    PgConnection c = servers.pg.connect(ctx.stop_token());
    ctx.progress(0.01, "running your query read-only for each key");
    sample = sample_query(c, plan.query, plan.keys, plan.query_keys, [&] { ctx.check_stop(); });
  }
  const bool local = std::find(plan.tiers.begin(), plan.tiers.end(), "local") != plan.tiers.end();
  if (local && sample.footprint() > plan.local_budget)
    throw QueryRefused("the rows of the " + std::to_string(sample.results.size()) + " keys take " +
                       std::to_string(sample.footprint() / kMiBd) +
                       " MB as ready objects, more than local_budget_mb: lower query_keys or "
                       "raise local_budget_mb");
  servers.user_query = plan.query;
  if (redis) {
    ctx.progress(0.02, "connecting to Redis");
    servers.redis = ctx.targets().redis(1, ctx.stop_token());
  }
  describe_sample(ctx, plan, sample);
  run_matrix(ctx, plan, servers, Workloads{nullptr, nullptr, &sample.results}, 0.02,
             [](const MatrixPace&) { return 1.0; });
  ctx.progress(1, "done");
}

}  // namespace perflab::caching
