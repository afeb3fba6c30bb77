// The caching experiment: its parameters, what it needs, and a run: the tier matrix, then the
// cache-aside sweep (one file each, sharing caching/caching_run.h).
#include "caching/experiment.h"

#include <algorithm>
#include <string>
#include <vector>

#include "caching/caching_run.h"
#include "common/figure_format.h"

namespace perflab {

namespace {

using namespace caching;

class CachingExperiment : public Experiment {
 public:
  std::string id() const override { return "caching"; }
  std::string title() const override {
    return "Caching tiers: PostgreSQL vs Redis vs local memory";
  }
  std::string purpose() const override {
    return "Wall time and CPU per get of a 60 KB document and a 1,000-comment list from "
           "PostgreSQL, Redis and in-process memory, native vs JSON vs protobuf vs protobuf+zlib, "
           "where a get's time goes (fetch, decode, check), each codec's decode alone, plus a "
           "cache-aside sweep of the local budget.";
  }
  Article article() const override {
    return {
        "App Engine measurements as published in the article (seed 003).", {published_table()}, {}};
  }

  // The lecture: document and list from every tier, native vs protobuf, wall time first; no
  // zlib and no cache-aside sweep.
  std::vector<Plan> plans() const override {
    return {{.name = "lecture",
             .summary = "PostgreSQL vs Redis vs local memory, native vs protobuf, in about a "
                        "minute",
             .values = {{"repetitions", "10"},
                        {"warmup", "1"},
                        {"server_cpu_window_ms", "250"},
                        {"encodings", "native,protobuf"},
                        {"aside_reads", "0"}},
             // Wall times, `repetitions` samples each (server_cpu_window_ms adds to the server's
             // CPU figures only, which are not headlines).
             .headlines = {{"document.redis_vs_postgres.fetch", {"repetitions"}},
                           {"list.redis_vs_postgres.fetch", {"repetitions"}},
                           {"document.redis_vs_postgres.time", {"repetitions"}},
                           {"list.redis_vs_postgres.time", {"repetitions"}},
                           {"document.protobuf_vs_native.redis", {"repetitions"}},
                           {"list.protobuf_vs_native.redis", {"repetitions"}},
                           {"document.local_vs_redis.time", {"repetitions"}},
                           {"list.local_vs_redis.time", {"repetitions"}}}}};
  }

  std::vector<ParamSpec> params() const override {
    std::vector<ParamSpec> v;
    v.push_back({.name = "server_cpu_window_ms",
                 .type = ParamType::Int,
                 .default_value = "1000",
                 .min = 0,
                 .max = 60000,
                 .help = "keep getting at least this long per cell so the server's CPU counter "
                         "(10 ms ticks) has enough to count"});
    v.push_back({.name = "tiers",
                 .type = ParamType::SubsetOf,
                 .default_value = "postgres,redis,local",
                 .choices = {"postgres", "redis", "local"},
                 .help = "tiers: postgres (datastore), redis (memcache), local "
                         "(in-process LRU)"});
    v.push_back({.name = "encodings",
                 .type = ParamType::SubsetOf,
                 .default_value = "native,json,protobuf,protobuf+zlib",
                 .choices = encoding_names(),
                 .help = "encodings: native (objects locally, MessagePack in Redis, rows in "
                         "PostgreSQL), json, protobuf, protobuf+zlib"});
    v.push_back({.name = "zlib_level",
                 .type = ParamType::Int,
                 .default_value = "6",
                 .min = 0,
                 .max = 9,
                 .help = "zlib compression level (0-9)"});
    v.push_back(
        {.name = "local_budget_mb",
         .type = ParamType::Int,
         .default_value = "50",
         .min = 1,
         .max = 65536,
         .help = "byte budget of the local LRU cache in the tier matrix (App Engine: 50 MB)",
         .label = "Local cache budget"});
    v.push_back({.name = "list_size",
                 .type = ParamType::Int,
                 .default_value = "1000",
                 .min = 1,
                 .max = 100000,
                 .help = "comments in the list workload"});
    v.push_back({.name = "document_kb",
                 .type = ParamType::Int,
                 .default_value = "60",
                 .min = 1,
                 .max = 16384,
                 .help = "text size of the document workload"});
    v.push_back({.name = "zipf_s",
                 .type = ParamType::Double,
                 .default_value = "1.0",
                 .min = 0,
                 .max = 4,
                 .help = "Zipf exponent of the cache-aside reads (0 = uniform)",
                 .label = "Zipf exponent"});
    v.push_back({.name = "aside_keys",
                 .type = ParamType::Int,
                 .default_value = "500",
                 .min = 1,
                 .max = 100000,
                 .help = "documents in the cache-aside key set"});
    v.push_back(
        {.name = "aside_reads",
         .type = ParamType::Int,
         .default_value = "2000",
         .min = 0,
         .max = 10000000,
         .help = "measured reads per cache-aside budget (after a warm-up reading every key once "
                 "and as many Zipf reads); 0 skips the scenario"});
    v.push_back({.name = "aside_budgets_mb",
                 .type = ParamType::IntList,
                 .default_value = "1,2,4,8,16,32,64",
                 .min = 0,
                 .max = 65536,
                 .help = "local cache budgets swept in the cache-aside scenario"});
    v.push_back(
        {.name = "latency_rate",
         .type = ParamType::Double,
         .default_value = "0",
         .min = 0,
         .max = 1e6,
         .help = "read latency at a fixed rate (not in the default, 0 skips it): each tier read "
                 "open loop at this many gets per second, latency from each get's intended start; "
                 "a percentile spectrum per tier (PostgreSQL vs Redis vs local memory)",
         .label = "Latency rate",
         .unit = "req/s"});
    v.push_back({.name = "latency_seconds",
                 .type = ParamType::Double,
                 .default_value = "2",
                 .min = 0.01,
                 .max = 3600,
                 .help = "seconds of one latency round per tier",
                 .unit = "s"});
    v.push_back({.name = "latency_rounds",
                 .type = ParamType::Int,
                 .default_value = "5",
                 .min = 1,
                 .max = 1000,
                 .help = "latency rounds per tier, tiers alternating; each a fresh histogram and "
                         "a sample of every percentile"});
    v.push_back({.name = "latency_lag_limit_ms",
                 .type = ParamType::Double,
                 .default_value = "1",
                 .min = 0.01,
                 .max = 10000,
                 .help = "a latency round is not valid when its client's own lag p99 (from a "
                         "get's due time, the client free, to its send) is above this: the "
                         "client fell behind"});
    v.push_back({.name = "arrivals",
                 .type = ParamType::OneOf,
                 .default_value = "uniform",
                 .choices = {"uniform", "poisson"},
                 .help = "the latency rounds' arrivals: evenly spaced or a Poisson process"});
    v.push_back({.name = "latency_workload",
                 .type = ParamType::OneOf,
                 .default_value = "document",
                 .choices = {"document", "list"},
                 .help = "what the latency rounds read (in the first of `encodings`)"});
    v.push_back({.name = "source",
                 .type = ParamType::OneOf,
                 .default_value = "generated",
                 .choices = {"generated", "query"},
                 .help = "what the gets read: the article's generated document and list, or "
                         "(query) the rows your own PostgreSQL query returns for each key, run "
                         "read-only; then only the tier matrix is measured",
                 .label = "Records"});
    v.push_back({.name = "query",
                 .type = ParamType::String,
                 .default_value = "",
                 .help = "source=query: your SELECT, the key as $1 (e.g. SELECT * FROM orders "
                         "WHERE customer_id = $1); run only in read-only transactions",
                 .label = "Your query"});
    v.push_back({.name = "keys",
                 .type = ParamType::String,
                 .default_value = "",
                 .help = "source=query: a file with one key per line, or a SELECT whose first "
                         "column gives the keys (e.g. SELECT id FROM customers LIMIT 100)",
                 .label = "Its keys"});
    v.push_back({.name = "query_keys",
                 .type = ParamType::Int,
                 .default_value = "100",
                 .min = 1,
                 .max = 100000,
                 .help = "source=query: at most this many keys are read, and their rows copied"});
    v.push_back({.name = "seed",
                 .type = ParamType::Int,
                 .default_value = "42",
                 .min = 0,
                 .max = 9007199254740992.0,
                 .help = "seed of the generated records and of the read sequence"});
    v = with_runner_params(std::move(v), "",
                           {.repetitions = "200",
                            .repetitions_max = 100000,
                            .repetitions_help = "timed samples per (tier, encoding, workload)",
                            .warmup = "20",
                            .warmup_max = 100000,
                            .warmup_help = "untimed gets before each measurement"});
    v.push_back(plan_param(plans()));
    return v;
  }

  TargetNeeds needs(const Params& p) const override { return caching_needs(p); }

  void run(RunContext& ctx) override;
};

void CachingExperiment::run(RunContext& ctx) {
  const CachingPlan plan = CachingPlan::from(ctx.params());
  const TargetNeeds need = needs(ctx.params());
  if (plan.query_source) return run_query(ctx, plan, need.redis_nodes > 0);
  ctx.progress(0, "generating records");
  const Document doc = generate_document(plan.seed, 0, plan.doc_bytes);
  const CommentList list = generate_comments(plan.seed, kListGroup, plan.list_size);

  CachingServers servers;
  if (need.postgres) {
    ctx.progress(0, "connecting to PostgreSQL");
    servers.pg = ctx.targets().postgres(ctx.stop_token());
    servers.admin.emplace(servers.pg.connect(ctx.stop_token()));
    PostgresTier::create_tables(*servers.admin, servers.pg.schema);
  }
  if (need.redis_nodes > 0) {
    ctx.progress(0, "connecting to Redis");
    servers.redis = ctx.targets().redis(1, ctx.stop_token());
  }

  const std::size_t matrix_cells = plan.tiers.size() * plan.encodings.size();
  // The progress in proportion to the seconds each part is expected to take: the matrix's as
  // it foretells them (from one get of each cell, then from its rounds), the read latency's
  // rounds, and the cache-aside sweep's from what the matrix's gets tell of this machine's speed
  // and load (aside_seconds). In equal parts, a loaded machine's run read half its time left at
  // a quarter: the sweep's reads slowed twice, the matrix's time-bound parts not at all; and a
  // probe before the matrix saw the load in 3 of 5 loaded runs (the scheduler puts a busy loop
  // beside it or not), the matrix's 20 s of gets in 5 of 5.
  const double latency_s = plan.latency()
                               ? plan.latency_rounds * static_cast<double>(plan.tiers.size()) *
                                     (plan.latency_seconds + 0.1)
                               : 0.0;
  // The decode alone (no server) after the matrix: per round, workload and encoding a sample of
  // 100 µs or more and a decode, 1.2 ms in the default plan here (1.9 s in all). Beside two busy
  // loops it took 1.6 times as long, about half the sweep's slowdown: one thread's CPU work.
  const double decode_s =
      matrix_cells > 0 ? 1.2e-3 * plan.reps * 2.0 * static_cast<double>(plan.encodings.size()) : 0;
  double matrix_end = 0, decode_from = 0, aside_s = aside_seconds(plan, MatrixPace{});
  run_matrix(ctx, plan, servers, Workloads{&doc, &list}, 0, [&](const MatrixPace& pace) {
    const double matrix_s = matrix_cells > 0 ? pace.seconds * 1.03 : 0.0;
    const double decode = decode_s * (1 + (aside_load(pace.mean_over_median) - 1) / 2);
    aside_s = aside_seconds(plan, pace);
    const double all = matrix_s + decode + latency_s + aside_s;
    decode_from = all > 0 ? matrix_s / all : 0.0;
    matrix_end = all > 0 ? (matrix_s + decode) / all : 0.0;
    return decode_from;
  });
  const double latency_end =
      matrix_end + (latency_s > 0 ? (1 - matrix_end) * latency_s / (latency_s + aside_s) : 0.0);
  if (matrix_cells > 0) run_decode(ctx, plan, doc, list, decode_from, matrix_end);
  if (plan.latency()) run_latency(ctx, plan, servers, doc, list, matrix_end, latency_end);
  if (plan.aside()) run_aside(ctx, plan, servers, latency_end);
  ctx.progress(1, "done");
}

}  // namespace

std::unique_ptr<Experiment> make_caching_experiment() {
  return std::make_unique<CachingExperiment>();
}

}  // namespace perflab
