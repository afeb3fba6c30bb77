// The IO-list experiment: its parameters, what it needs, and a run: the benchmarks in turn
// (one file each, sharing iolist/iolist_run.h), then the findings.
#include "iolist/experiment.h"

#include <algorithm>

#include "iolist/builders.h"
#include "iolist/iolist_run.h"

namespace perflab {
namespace {

using namespace perflab::iolist;

class IoListExperiment final : public Experiment {
 public:
  std::string id() const override { return "iolist"; }
  std::string title() const override { return "IO lists: building the event store's INSERT"; }
  std::string purpose() const override {
    return "Concatenating vs. referencing fragments (an IO list) to build a 100-row INSERT, and "
           "what it does to appends and reads with 1, 10 and 100 concurrent clients.";
  }

  Article article() const override { return iolist_article(); }

  // The lecture: the build micro-benchmark and single-writer appends of the two builders the
  // article compares, with the build's share of an append; no peers, readers or payload sweep.
  std::vector<Plan> plans() const override {
    return {
        {.name = "lecture",
         .summary = "iolist vs interpolate: the build and single-writer appends, in about "
                    "a minute",
         .values = {{"benchmarks", "build,append"},
                    {"builders", "interpolate,iolist"},
                    {"transports", "round_trips"},
                    {"synchronous_commit", "on"},
                    {"network_rtt_ms", "0"},
                    {"writers", "1"},
                    {"readers", "1"},
                    {"build_sizes", "1,10,100,1000"},
                    {"build_sample_ms", "10"},
                    {"repetitions", "30"},
                    {"warmup", "3"},
                    // 30 rounds a point, every point: its minute (the default plan measures
                    // to verdicts within its budget).
                    {"verdicts", "false"}},
         // The build's samples are `repetitions` of `build_sample_ms` each; an append point
         // is `repetitions` rounds; allocations are counted once (they do not vary).
         .headlines = {{"build_100.time.iolist_vs_interpolate", {"repetitions", "build_sample_ms"}},
                       {"build_100.allocs.iolist_vs_interpolate", {}},
                       {"append_1.iolist_vs_interpolate", {"repetitions"}},
                       {"append_1.build_share.iolist", {"repetitions"}},
                       {"append_1.build_share.interpolate", {"repetitions"}}}}};
  }

  std::vector<ParamSpec> params() const override {
    std::vector<std::string> builders = builder_names();
    std::string all_builders;
    for (const auto& b : builders) all_builders += (all_builders.empty() ? "" : ",") + b;
    std::vector<ParamSpec> specs{
        {.name = "benchmarks",
         .type = ParamType::SubsetOf,
         .default_value = "build,append,pgbench,read,payload,client",
         .choices = {"build", "append", "pgbench", "read", "payload", "client", "pooled", "standby",
                     "latency"},
         .help =
             "which benchmarks to run; pgbench: PostgreSQL's own load tool running the same "
             "append transaction, as a peer; payload: single-writer appends with events of "
             "payload_bytes each, and the build's share of them; client: single-writer appends "
             "through libpqxx 6.4 beside libpq (interpolate, iolist, prepared), time and "
             "allocations; pooled (not in the default): appends with pool_clients clients, "
             "direct and through a managed PgBouncer in transaction mode; standby (not in the "
             "default): hot standbys (streaming replication) beside the primary, reads spread "
             "over them and the read-your-writes lag; latency (not in the default): "
             "single-writer append latency at latency_rate, open loop, a percentile spectrum per "
             "builder beside pgbench --rate"},
        {.name = "builders",
         .type = ParamType::SubsetOf,
         .default_value = all_builders,
         .choices = builders,
         .help = "statement builders to compare"},
        {.name = "transports",
         .type = ParamType::SubsetOf,
         .default_value = "round_trips,pipeline",
         .choices = transport_names(),
         .help =
             "how an append's statements travel: round_trips (BEGIN, check, INSERT, COMMIT: one "
             "round trip each) or pipeline (all in one flight, libpq's pipeline mode)"},
        {.name = "synchronous_commit",
         .type = ParamType::SubsetOf,
         .default_value = "on,off",
         .choices = {"on", "off"},
         .help =
             "off: iolist appends also with SET LOCAL synchronous_commit = off (COMMIT does not "
             "wait for the WAL flush: a crash may lose the last transactions). Managed servers "
             "only: skipped on a server Perflab does not manage"},
        {.name = "network_rtt_ms",
         .type = ParamType::SubsetOf,
         .default_value = "0,1",
         .choices = {"0", "0.2", "1", "5"},
         .help =
             "round trip time between Perflab and PostgreSQL for appends: 0 is the direct "
             "connection; others go through a relay in process that delays each direction by half "
             "(0.2 ms: a LAN, 5 ms: across a region)"},
        {.name = "rtt_writers",
         .type = ParamType::IntList,
         .default_value = "1",
         .min = 1,
         .max = 200,
         .help =
             "concurrent writers measured through the relay (network_rtt_ms above 0), each a run; "
             "e.g. 1,10,100 to see many writers across a network (slow)"},
        {.name = "events",
         .type = ParamType::Int,
         .default_value = "100",
         .min = 1,
         .max = double(kMaxEventsPerStatement),
         .help = "events per append and per read"},
        {.name = "writers",
         .type = ParamType::IntList,
         .default_value = "1,10,100",
         .min = 1,
         .max = 200,
         .help = "concurrent writers, each a run"},
        {.name = "readers",
         .type = ParamType::IntList,
         .default_value = "1,10,100",
         .min = 1,
         .max = 200,
         .help = "concurrent readers, each a run"},
        {.name = "build_sizes",
         .type = ParamType::IntList,
         .default_value = "1,10,100,1000,8191",
         .min = 1,
         .max = double(kMaxEventsPerStatement),
         .help = "events per statement for the build micro-benchmark"},
        {.name = "build_sample_ms",
         .type = ParamType::Int,
         .default_value = "20",
         .min = 1,
         .max = 10000,
         .help = "time per build micro-benchmark sample (many statements per sample)"},
        {.name = "pgbench_ms",
         .type = ParamType::Int,
         .default_value = "1000",
         .min = 10,
         .max = 600000,
         .help =
             "target duration of one pgbench invocation (one sample); at least 10 transactions per "
             "client",
         .label = "pgbench duration"},
        {.name = "pgbench_repetitions",
         .type = ParamType::Int,
         .default_value = "6",
         .min = 1,
         .max = 1000,
         .help =
             "measured pgbench invocations per writer count, each the average of many transactions "
             "(at least 6 for a 95% interval); warm-up as for appends"},
        {.name = "payload_bytes",
         .type = ParamType::IntList,
         .default_value = "1024,65536,1048576",
         .min = 64,
         .max = double(kMaxPayloadBytes),
         .help = "bytes of JSON per event for the payload sweep (an append carries at most 4 MiB: "
                 "fewer events per append above 40 KiB); more sizes, e.g. 256 B to 4 MiB in steps "
                 "of 4, for a finer sweep (slow)"},
        {.name = "payload_repetitions",
         .type = ParamType::Int,
         .default_value = "6",
         .min = 1,
         .max = 1000,
         .help =
             "measured repetitions per payload size (warm-up: 1); 6 is the fewest whose median can "
             "have a 95% interval"},
        {.name = "pool_clients",
         .type = ParamType::IntList,
         .default_value = "10,100,1000",
         .min = 1,
         .max = 1000,
         .help = "concurrent clients of the pooled appends, each a run: every client appends "
                 "directly (a backend each) and through PgBouncer (a few backends shared); "
                 "the builders that work in transaction mode, four round trips"},
        {.name = "pool_size",
         .type = ParamType::Int,
         .default_value = "20",
         .min = 1,
         .max = 1000,
         .help = "server connections of the managed PgBouncer in the pooled appends "
                 "(default_pool_size; 20 is PgBouncer's own default): at most this many "
                 "backends serve the clients, the others wait in PgBouncer"},
        {.name = "pool_driver",
         .type = ParamType::OneOf,
         .default_value = "async",
         .choices = {"async", "threads"},
         .help = "how the appends, reads, pooled appends and standby reads drive their "
                 "clients: async, a thread per core each driving its share of the connections "
                 "with libpq's asynchronous API (as pgbench -j does; the pipeline transport's "
                 "appends keep a thread per writer); threads, a thread per client"},
        {.name = "reset",
         .type = ParamType::Bool,
         .default_value = "true",
         .help = "drop and recreate Perflab's schema before appending (only that schema)"},
        {.name = "standbys",
         .type = ParamType::Int,
         .default_value = "2",
         .min = 1,
         .max = 2,
         .help = "hot standbys of the standby benchmark: managed ones Perflab starts from its "
                 "primary, or the configured standbys of a configured primary"},
        {.name = "latency_rate",
         .type = ParamType::Double,
         .default_value = "100",
         .min = 0.1,
         .max = 1e6,
         .help = "appends per second of the latency benchmark: each append scheduled at its "
                 "intended time, its latency measured from it (pgbench: -R at the same rate)",
         .label = "Latency rate",
         .unit = "req/s"},
        {.name = "latency_seconds",
         .type = ParamType::Double,
         .default_value = "2",
         .min = 0.01,
         .max = 3600,
         .help = "seconds of one latency round per builder and for pgbench",
         .unit = "s"},
        {.name = "latency_rounds",
         .type = ParamType::Int,
         .default_value = "5",
         .min = 1,
         .max = 1000,
         .help = "latency rounds, builders and pgbench alternating; each a fresh histogram"},
        {.name = "latency_lag_limit_ms",
         .type = ParamType::Double,
         .default_value = "1",
         .min = 0.01,
         .max = 10000,
         .help = "a latency round is not valid when the writer's own lag p99 (from an append's "
                 "due time, the writer free, to its send) is above this: it fell behind"},
        {.name = "arrivals",
         .type = ParamType::OneOf,
         .default_value = "poisson",
         .choices = {"uniform", "poisson"},
         .help = "the latency benchmark's arrivals: a Poisson process (as pgbench -R schedules "
                 "its transactions) or evenly spaced"},
        {.name = "seed",
         .type = ParamType::Int,
         .default_value = "42",
         .min = 0,
         .max = 1e15,
         .help = "seed for the generated events"},
    };
    specs = with_runner_params(
        std::move(specs), "readers",
        {.repetitions = "10",
         .repetitions_max = 1000,
         .repetitions_help = "measured repetitions per point (at least, measuring to verdicts; "
                             "6 at least for a 95% interval)",
         .warmup = "1",
         .warmup_max = 100,
         .warmup_help = "unmeasured repetitions before measuring",
         // Each point measures until its comparisons have verdicts, the run within 2 minutes
         // (its points share the budget; each takes at least `repetitions` rounds).
         .verdicts = "true",
         .budget_s = "120"});
    specs.push_back(plan_param(plans()));
    return specs;
  }

  TargetNeeds needs(const Params& p) const override { return iolist_needs(p); }

  // Each benchmark in its file of its own, in this order; the findings from what they measured.
  void run(RunContext& ctx) override {
    IoListRun r(ctx);
    const IoListSettings& set = r.settings;
    // The server first (a managed one starts now), so that the progress counts measurements.
    if (set.needs_server()) r.connect();
    if (set.has("build")) run_build(r);
    if (!set.needs_server()) {
      add_findings(ctx, set, r.measured);
      return;
    }
    try {
      if (set.has("append")) run_append(r);
      if (set.has("pgbench")) run_pgbench_peer(r);
      if (set.has("read")) run_read(r);
      if (set.has("payload")) run_payload(r);
      if (set.has("client")) run_client(r);
      if (set.has("pooled")) run_pooled(r);
      if (set.has("standby")) run_standby_reads(r), run_standby_lag(r);
      if (set.has("latency")) run_append_latency(r);
    } catch (...) {
      // A stopped run keeps the figures of what it completed (the ratios need both points).
      if (ctx.stop_requested()) add_findings(ctx, set, r.measured);
      throw;
    }
    add_findings(ctx, set, r.measured);
  }
};

}  // namespace

std::unique_ptr<Experiment> make_iolist_experiment() {
  return std::make_unique<IoListExperiment>();
}

}  // namespace perflab
