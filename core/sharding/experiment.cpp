// The sharding experiment: its parameters, what it needs, and a run: the key distribution, the
// pipeline sweep, the cluster demonstrations and the coordinated-omission demonstration (one
// file each, sharing sharding/sharding_run.h).
#include "sharding/experiment.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "sharding/cluster_demo.h"
#include "sharding/latency.h"
#include "sharding/omission_demo.h"
#include "sharding/sharding_run.h"

namespace perflab {

namespace {

using namespace perflab::sharding;

class ShardingExperiment : public Experiment {
 public:
  std::string id() const override { return "sharding"; }
  std::string title() const override { return "Sharding proxy and pipelining"; }
  std::string purpose() const override {
    return "Why a proxy that writes each reply on its own, without TCP_NODELAY, collapses when "
           "clients pipeline, and how keys spread over nodes.";
  }

  Article article() const override { return sharding_article(); }

  // The lecture: the collapse at -P 1 and 2 and the sweep to 16 for SET, Redis direct and the
  // proxy writing per reply without TCP_NODELAY or coalesced with it; the key distribution.
  std::vector<Plan> plans() const override {
    return {{.name = "lecture",
             .summary = "the collapse through the proxy (per-reply vs coalesced + TCP_NODELAY) "
                        "and the key distribution, in about a minute",
             .values = {{"depths", "1,2,4,8,16"},
                        {"tests", "set"},
                        {"nodes", "2"},
                        {"variants", "direct,coalesced+nodelay,per-reply"},
                        // 6: the fewest repetitions whose median has a full 95% interval
                        // (3 gave "≤75% CI"); a loaded 2-core machine still ends in ~45 s.
                        {"repetitions", "6"},
                        {"point_budget_s", "0.5"},
                        // Six rounds a point, every variant at every depth: the chart of the
                        // collapse, in its minute (the default plan measures to verdicts).
                        {"verdicts", "false"},
                        {"compared_only", "false"},
                        {"keyspace", "10000"},
                        {"distribution_keys", "20000"}},
             // A sweep point is `repetitions` measurements of up to `requests` requests or
             // `point_budget_s`; the keys moved are counted over `distribution_keys`.
             .headlines = {{"collapse_p2.set", {"repetitions", "point_budget_s", "requests"}},
                           {"vs_direct_p1.set", {"repetitions", "point_budget_s", "requests"}},
                           {"moved.modula", {"distribution_keys"}},
                           {"moved.ketama", {"distribution_keys"}},
                           {"moved.jump", {"distribution_keys"}},
                           {"moved.hash", {"distribution_keys"}}}},
            // The demonstrations, each a plan of its own that opens on its chart: no key
            // distribution, no sweep.
            {.name = "omission",
             .summary = "the coordinated-omission demonstration alone: closed vs open loop while "
                        "Redis pauses, in about 20 s",
             .values = {{"distribution", "false"}, {"sweep", "false"}, {"omission", "true"}},
             .headlines = {{"omission.p99_open_vs_closed", {"omission_rounds"}},
                           {"omission.p99_open_vs_redis_benchmark", {"omission_rounds"}}}},
            {.name = "latency",
             .summary = "open-loop latency: the four paths' spectra and the hockey stick of "
                        "direct vs proxy with their knees, in about a minute",
             .values = {{"distribution", "false"},
                        {"sweep", "false"},
                        {"tests", "get"},
                        {"latency", "spectra,hockey"},
                        {"latency_rounds", "3"},
                        {"latency_s", "0.5"}},
             .headlines = {{"latency_rate_p99.coalesced+nodelay", {"latency_rounds", "latency_s"}},
                           {"latency_hockey.knee_ratio", {"latency_rounds", "latency_s"}}}},
            {.name = "cluster",
             .summary = "Redis Cluster live: slots moved under load, then a master killed under "
                        "load, in about a minute",
             .values = {{"distribution", "false"},
                        {"sweep", "false"},
                        {"demonstration", "both"},
                        {"demo_s", "10"}},
             .headlines = {{"reshard.keys_lost", {}}, {"failover.keys_lost", {}}}}};
  }

  std::vector<ParamSpec> params() const override {
    std::vector<ParamSpec> specs{
        {.name = "preset",
         .type = ParamType::OneOf,
         .default_value = "sweep",
         .choices = {"sweep", "seed"},
         .help = "sweep: the pipeline depths below; seed: the article's -P 1 and -P 2 only"},
        {.name = "depths",
         .type = ParamType::IntList,
         .default_value = "1,2,16",
         .min = 1,
         .max = 1024,
         .help = "pipeline depths (-P) of the sweep (the findings compare at 1, 2 and 16)",
         .label = "Pipeline depths"},
        {.name = "compared_only",
         .type = ParamType::Bool,
         .default_value = "true",
         .help = "at a depth where the findings compare variants, measure only those (false: "
                 "every variant at every depth, for the chart)"},
        {.name = "clients",
         .type = ParamType::Int,
         .default_value = "10",
         .min = 1,
         .max = 1000,
         .help = "parallel connections (-c)"},
        {.name = "requests",
         .type = ParamType::Int,
         .default_value = "10000",
         .min = 10,
         .max = 100000000,
         .help = "requests per point (-n); a point also ends at its time budget"},
        {.name = "tests",
         .type = ParamType::SubsetOf,
         .default_value = "set,get,mset",
         .choices = test_tokens(),
         .help = "load generator tests (MSET/MGET of 10 keys)"},
        {.name = "keyspace",
         .type = ParamType::Int,
         .default_value = "100000",
         .min = 0,
         .max = 1000000000000.0,
         .help = "random keys from this many (-r); 0: one key, as redis-benchmark without -r"},
        {.name = "data_size",
         .type = ParamType::Int,
         .default_value = "3",
         .min = 1,
         .max = 1048576,
         .help = "value size (-d)",
         .label = "Value size",
         .unit = "bytes"},
        {.name = "nodes",
         .type = ParamType::Int,
         .default_value = "4",
         .min = 1,
         .max = 16,
         .help = "managed Redis nodes behind the proxy (configured nodes: all of them)"},
        {.name = "variants",
         .type = ParamType::SubsetOf,
         .default_value = "direct,coalesced+nodelay,coalesced,per-reply,twemproxy,cluster,"
                          "redis-benchmark-cluster,proxy-cluster",
         .choices = variant_tokens(),
         .help =
             "lines of the sweep (twemproxy when nutcracker is installed; cluster: a Redis Cluster "
             "of 3 masters, managed unless configured, with a cluster client; proxy-cluster: "
             "perflab-proxy over it; redis-benchmark --cluster on a managed one)"},
        {.name = "point_budget_s",
         .type = ParamType::Double,
         .default_value = "0.5",
         .min = 0.2,
         .max = 600,
         .help = "time budget per measurement: slow variants stop early and report what "
                 "completed",
         .label = "Time budget per point",
         .unit = "s"},
        {.name = "distribution_keys",
         .type = ParamType::Int,
         .default_value = "100000",
         .min = 100,
         .max = 10000000,
         .help = "keys in the key distribution table (the user's: at most this many distinct "
                 "ones)"},
        {.name = "distribution_nodes",
         .type = ParamType::Int,
         .default_value = "4",
         .min = 2,
         .max = 64,
         .help = "nodes of the key distribution table; the moved share is from these to one more",
         .label = "Distribution nodes"},
    };
    for (auto& spec : user_keys_params()) specs.push_back(std::move(spec));
    specs.push_back({.name = "demonstration",
                     .type = ParamType::OneOf,
                     .default_value = "none",
                     .choices = {"none", "resharding", "failover", "both"},
                     .help =
                         "live Redis Cluster demonstrations after the sweep, seconds on x: slots "
                         "moved under load (managed cluster only), a master killed under load (a "
                         "cluster of their own with replicas)"});
    specs.push_back({.name = "distribution",
                     .type = ParamType::Bool,
                     .default_value = "true",
                     .help = "the key distribution table first (false: leave it out)"});
    specs.push_back({.name = "sweep",
                     .type = ParamType::Bool,
                     .default_value = "true",
                     .help = "run the pipeline sweep (false: only the key distribution and the "
                             "demonstration)"});
    specs.push_back({.name = "demo_s",
                     .type = ParamType::Double,
                     .default_value = "12",
                     .min = 3,
                     .max = 600,
                     .help = "seconds per demonstration",
                     .label = "Demonstration length",
                     .unit = "s"});
    specs.push_back({.name = "reshard_slots",
                     .type = ParamType::Int,
                     .default_value = "200",
                     .min = 1,
                     .max = 16384,
                     .help = "slots moved from the first master to the second in the resharding "
                             "demonstration",
                     .label = "Slots to move"});
    for (auto& spec : omission_params()) specs.push_back(std::move(spec));
    for (auto& spec : latency_params()) specs.push_back(std::move(spec));
    specs = with_runner_params(
        std::move(specs), "variants",
        {.repetitions = "6",
         .repetitions_max = 100,
         .repetitions_help = "measured rounds per point (at least, measuring to verdicts), "
                             "variants taking turns; the point shows their median",
         .warmup = "0",
         .warmup_max = 100,
         .warmup_help = "unmeasured rounds per point before measuring (the sweep's brief timing of "
                        "every depth already warms each variant)",
         .repetitions_former_names = {"repeat"},
         // Each point measures until its comparisons have verdicts, the run within 4 minutes.
         .verdicts = "true",
         .budget_s = "240"});
    specs.push_back(plan_param(plans()));
    return specs;
  }

  TargetNeeds needs(const Params& params) const override {
    return needs(ShardingSettings::read(params));
  }

  void run(RunContext& ctx) override {
    // Validated against the specs before the run started; read once, checked as a run is.
    const ShardingSettings s = ShardingSettings::from(ctx.params());
    check_user_keys(s, ctx.targets().config());
    if (s.uses_user_keys()) {  // read-only: nothing else runs
      user_distribution(ctx, s);
      return;
    }
    SweepPlan plan = make_plan(s);
    std::optional<OmissionOptions> omission;  // checked before anything is measured
    if (s.omission) omission = omission_options(ctx, s);
    const auto start = std::chrono::steady_clock::now();
    if (s.distribution) distribution(ctx, s.distribution_keys, s.distribution_nodes);
    ctx.check_stop();
    // The distribution's share of the run: its seconds against the sweep's, every point of which
    // ends by its time budget; so the time left holds from the sweep's first point on.
    const double distribution_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double sweep_s =
        s.sweep ? s.point_budget_s * (s.runner.repetitions + s.runner.warmup) *
                      double(plan.tests.size() * plan.depths.size() * plan.variants.size())
                : 0;
    // The open-loop latency groups (opt-in) come before the sweep, their share by their seconds.
    const double latency_s = wants_latency(s.latency) ? latency_seconds(s.latency) : 0;
    const double measured_s = distribution_s + latency_s + sweep_s;
    if (measured_s > 0) {
      const double latency_from = std::clamp(distribution_s / measured_s, 0.02, 0.9);
      plan.progress_from =
          std::clamp((distribution_s + latency_s) / measured_s, latency_from, 0.95);
      run_latency(ctx, s, needs(s), latency_from, plan.progress_from);
    }
    if (s.sweep) run_sweep(ctx, s, plan, needs(s));
    demonstrations(ctx, s);
    if (omission) omission_demo(ctx, *omission);
    ctx.progress(1.0, "done");
  }

 private:
  // Whose keys the key distribution counts, and how the user's are read (read-only).
  static std::vector<ParamSpec> user_keys_params() {
    return {
        {.name = "keys_from",
         .type = ParamType::OneOf,
         .default_value = "synthetic",
         .choices = {"synthetic", "redis", "file"},
         .help = "the key distribution's keys: synthetic (key:000000000000...), the user's "
                 "Redis (--redis or --redis-cluster, read with SCAN only) or keys_file; with "
                 "the user's keys the run only reads them and counts their distribution"},
        {.name = "keys_match",
         .type = ParamType::String,
         .default_value = "*",
         .help = "keys_from=redis: the SCAN MATCH pattern of the keys sampled (user:*); not "
                 "--prefix, which names Perflab's own keys"},
        {.name = "key_names",
         .type = ParamType::Bool,
         .default_value = "false",
         .help = "the user's keys: name the largest hash tag in the sentence; false: no key's "
                 "name, nor part of one, goes into the run file (counts and a fingerprint only)"},
        {.name = "keys_file",
         .type = ParamType::String,
         .default_value = "",
         .help = "keys_from=file: a file of keys, one per line"},
        {.name = "scan_count",
         .type = ParamType::Int,
         .default_value = "1000",
         .min = 1,
         .max = 100000,
         .help = "keys_from=redis: the COUNT of each SCAN call"},
        {.name = "scan_max_calls",
         .type = ParamType::Int,
         .default_value = "10000",
         .min = 1,
         .max = 10000000,
         .help = "keys_from=redis: SCAN calls at most, over every node; the sample ends at "
                 "them, at distribution_keys keys or when every cursor is back at 0",
         .label = "SCAN calls at most"}};
  }

  // The coordinated-omission demonstration's (opt-in: about 20 s with its defaults).
  static std::vector<ParamSpec> omission_params() {
    return {{.name = "omission",
             .type = ParamType::Bool,
             .default_value = "false",
             .help = "the coordinated-omission demonstration after the sweep: GET on the managed "
                     "Redis paused for a while every so often, closed loop vs open loop at the "
                     "same rate, and redis-benchmark (about 20 s)"},
            {.name = "omission_rate",
             .type = ParamType::Double,
             .default_value = "1000",
             .min = 10,
             .max = 1000000,
             .help = "requests/s offered by the closed and the open loop alike",
             .label = "Offered rate",
             .unit = "req/s"},
            {.name = "omission_pause_ms",
             .type = ParamType::Int,
             .default_value = "200",
             .min = 10,
             .max = 10000,
             .help = "how long the server is paused (SIGSTOP) each time",
             .label = "Pause",
             .unit = "ms"},
            {.name = "omission_every_s",
             .type = ParamType::Double,
             .default_value = "1.5",
             .min = 0.5,
             .max = 60,
             .help = "from one pause to the next; each measurement lasts this long, its pause in "
                     "the middle",
             .label = "Pause every",
             .unit = "s"},
            {.name = "omission_rounds",
             .type = ParamType::Int,
             .default_value = "5",
             .min = 2,
             .max = 100,
             .help = "rounds of the demonstration (closed loop, open loop, redis-benchmark each)"}};
  }

  // The servers a run with these settings uses.
  static TargetNeeds needs(const ShardingSettings& s) {
    // The user's keys: no server of Perflab's, and the user's Redis is not a target either (a
    // target's prefix is claimed, a write): the keys are read over connections of their own.
    if (s.uses_user_keys()) return {};
    bool cluster = s.reshards() || latency_uses_cluster(s.latency);
    for (const auto& token : s.variants)
      cluster = cluster || (s.sweep && uses_cluster(variant(token)));
    std::size_t nodes = s.sweep || wants_latency(s.latency) ? static_cast<std::size_t>(s.nodes) : 0;
    if (s.omission) nodes = std::max<std::size_t>(nodes, 1);
    return {false, nodes, cluster};
  }

  // The demonstration's options (their pause checked by ShardingSettings::from).
  static OmissionOptions omission_options(RunContext& ctx, const ShardingSettings& s) {
    OmissionOptions o;
    o.rate = s.omission_rate;
    o.clients = s.clients;
    o.pause = s.omission_pause;
    o.every = s.omission_every;
    o.rounds = s.omission_rounds;
    o.keyspace = std::max<std::int64_t>(1, s.keyspace);
    o.key_prefix = ctx.targets().config().redis_prefix + "omission:";
    return o;
  }

  void demonstrations(RunContext& ctx, const ShardingSettings& s) {
    const std::string& d = s.demonstration;
    DemoOptions o;
    o.seconds = s.demo_s;
    o.key_prefix = ctx.targets().config().redis_prefix + "demo:";
    if (s.reshards()) {
      const RedisClusterTarget cluster = ctx.targets().redis_cluster(ctx.stop_token());
      for (const auto& t : ctx.targets().describe()) ctx.add_target(t);
      reshard_demo(ctx, cluster, o, s.reshard_slots);
    }
    if (d == "failover" || d == "both") failover_demo(ctx, o);
  }
};

}  // namespace

std::unique_ptr<Experiment> make_sharding_experiment() {
  return std::make_unique<ShardingExperiment>();
}

}  // namespace perflab
