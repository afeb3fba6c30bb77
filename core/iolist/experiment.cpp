#include "iolist/experiment.h"

#include <algorithm>
#include <array>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "common/alloc_counter.h"
#include "common/clock.h"
#include "common/figure_format.h"
#include "common/significance.h"
#include "common/text.h"
#include "iolist/builders.h"
#include "iolist/event_store.h"
#include "iolist/pgbench.h"
#include "iolist/pqxx_store.h"
#include "runner/rounds.h"
#include "targets/delay_relay.h"
#include "targets/managed.h"
#include "targets/postgres.h"
#include "targets/targets.h"

namespace perflab {
namespace {

using namespace perflab::iolist;

std::string writers_label(std::int64_t n, bool readers) {
  if (n == 1) return readers ? "single reader" : "single writer";
  return std::to_string(n) + (readers ? " concurrent readers" : " concurrent writers");
}

// The article's figures (Elixir EventStore, Benchfella, µs per operation, 100 events per
// append), written once: the findings carry the ratios, article() the published tables.
struct Published {
  bool read;  // read events (else append events)
  std::int64_t clients;
  double before_us, after_us;  // string interpolation, IO list
  double ratio;                // after / before as published
};
constexpr Published kPublished[] = {
    {false, 1, 15787.46, 12239.92, 0.78},       {false, 10, 137400.10, 108868.50, 0.79},
    {false, 100, 1495547.00, 1116299.00, 0.75}, {true, 1, 2151.71, 1928.22, 0.90},
    {true, 10, 20172.47, 20102.93, 1.00},       {true, 100, 202203.20, 201094.80, 0.99},
};
// An earlier change in the same project: one prepared INSERT per event -> one multi-row INSERT.
constexpr Published kPublishedMultiRow = {false, 1, 24479.62, 9738.10, 0.40};

std::optional<double> published_ratio(bool read, std::int64_t clients) {
  for (const auto& p : kPublished)
    if (p.read == read && p.clients == clients) return p.ratio;
  return std::nullopt;
}

std::vector<std::string> published_row(std::string benchmark, const Published& p) {
  return {std::move(benchmark), format_fixed(p.before_us, 2), format_fixed(p.after_us, 2),
          format_fixed(p.ratio, 2)};
}

// One operation of a client pool: wall time from release until the last worker is done, and
// the CPU time the workers' threads used (µs).
struct ClientPoolSample {
  double wall_us = 0, cpu_us = 0;
};

// N worker threads, each with its own connection, released together for one operation; the
// sample is the wall time from release until the last one is done (Benchfella's µs/op for
// its concurrent benches), plus the CPU time the workers' threads used.
class ClientPool {
 public:
  using Work = std::function<void(std::size_t worker, EventStore& store)>;

  // Every connection's waits are bounded and end on a stop (PgConnection), so the workers always
  // come back to the barrier.
  ClientPool(std::size_t n, const PgTarget& pg, EventIdAllocator& ids, std::stop_token stop)
      : start_(static_cast<std::ptrdiff_t>(n + 1)), done_(static_cast<std::ptrdiff_t>(n + 1)) {
    conns_.reserve(n);
    for (std::size_t i = 0; i < n; ++i) conns_.push_back(pg.connect(stop));
    for (auto& c : conns_) stores_.emplace_back(std::make_unique<EventStore>(c, pg.schema, ids));
    cpu_.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) threads_.emplace_back([this, i] { loop(i); });
  }

  ~ClientPool() {
    quit_ = true;
    start_.arrive_and_wait();
    for (auto& t : threads_) t.join();
  }

  using Sample = ClientPoolSample;

  Sample run(const Work& work) {
    work_ = &work;
    error_ = nullptr;
    const std::int64_t t0 = wall_ns();
    start_.arrive_and_wait();
    done_.arrive_and_wait();
    const std::int64_t t1 = wall_ns();
    if (error_) std::rethrow_exception(error_);
    Sample s;
    s.wall_us = static_cast<double>(t1 - t0) / 1000.0;
    for (auto c : cpu_) s.cpu_us += static_cast<double>(c) / 1000.0;
    return s;
  }

  EventStore& store(std::size_t i) { return *stores_[i]; }
  std::size_t size() const { return conns_.size(); }

  // CPU time the server's backends of these connections have used so far (schedstat clock),
  // or -1 when it cannot be read. Meaningful only for a server on this machine.
  std::int64_t backend_cpu_ns() const {
    std::int64_t sum = 0;
    for (const auto& c : conns_) {
      const std::int64_t ns = other_process_cpu_ns(c.backend_pid());
      if (ns < 0) return -1;
      sum += ns;
    }
    return sum;
  }

 private:
  void loop(std::size_t i) {
    for (;;) {
      start_.arrive_and_wait();
      if (quit_) return;
      const std::int64_t c0 = thread_cpu_ns();
      try {
        (*work_)(i, *stores_[i]);
      } catch (...) {
        std::lock_guard lock(mu_);
        if (!error_) error_ = std::current_exception();
      }
      cpu_[i] = thread_cpu_ns() - c0;
      done_.arrive_and_wait();
    }
  }

  std::vector<PgConnection> conns_;
  std::vector<std::unique_ptr<EventStore>> stores_;
  std::vector<std::thread> threads_;
  std::vector<std::int64_t> cpu_;
  std::barrier<> start_, done_;
  const Work* work_ = nullptr;
  std::atomic<bool> quit_{false};
  std::mutex mu_;
  std::exception_ptr error_;
};

struct Samples {
  std::vector<double> wall, cpu;
};

// Transactions per pgbench client and invocation, at least: with fewer, the clients' ramp-up and
// uneven finish weigh on pgbench's latency average (measured: 100 clients at -t 5 reported 45%
// more than at -t 20).
constexpr std::int64_t kMinPgbenchTransactions = 10;

// The append chart; with pgbench, its description says what that series is and how it differs.
Group append_group(std::size_t events, bool with_pgbench) {
  std::string d =
      "Wall time for every writer to append one batch to a new stream in one transaction "
      "(expected-version check + multi-row INSERT + COMMIT).";
  if (with_pgbench) {
    d +=
        " pgbench: PostgreSQL's own load tool (-M extended, N clients, 2 threads) running the same "
        "transaction with the same statement text and events; its sample is pgbench's latency "
        "average, the per-transaction time with N clients running concurrently. Unlike Perflab, "
        "pgbench sends every parameter as text (data and metadata as \\x hex, a missing "
        "correlation id as '-' because it can bind neither NULL nor ''), all its clients send the "
        "same events, and it binds at most 255 parameters per statement";
    if (events > kPgbenchMaxEventsPerStatement)
      d += ", so its " + std::to_string(events) + " events go as " +
           std::to_string(pgbench_chunks(events).size()) +
           " INSERTs (each the builder's text for its size) in one pipeline";
    d += ".";
  }
  Group g{"append", "Append " + std::to_string(events) + " events", "us/op", "", false, true, d};
  g.headline = true;  // the article's table
  return g;
}

// The payload sweep's events: at most this many bytes of data per append (fewer events per
// append above 40 KiB: the share of a large append is set by its bytes, not by its events, and
// 4 MiB keeps the default sweep to seconds), and per event.
constexpr std::size_t kMaxAppendPayload = 4u << 20;
constexpr std::size_t kMaxPayloadBytes = 16u << 20;

// Events per append of the payload sweep: `events`, fewer when they would carry more than
// kMaxAppendPayload.
std::size_t payload_events(std::size_t events, std::size_t bytes) {
  return std::clamp<std::size_t>(kMaxAppendPayload / bytes, 1, events);
}

// "1 KiB", "64 KiB", "1 MiB", "1500 B".
std::string format_bytes(std::size_t b) {
  if (b >= (1u << 20) && b % (1u << 20) == 0) return std::to_string(b >> 20) + " MiB";
  if (b >= 1024 && b % 1024 == 0) return std::to_string(b >> 10) + " KiB";
  return std::to_string(b) + " B";
}

constexpr const char* kAsyncCommitSkipped =
    "synchronous_commit=off was not measured: the server is not one Perflab manages, and Perflab "
    "never changes the settings of a server it does not own.";

// A network_rtt_ms choice ("0", "0.2", "1", "5") in nanoseconds.
std::int64_t rtt_ns(const std::string& ms) {
  return std::llround(std::stod(ms) * 1e6);
}

// ", RTT 1 ms" for a relayed point's label; nothing for the direct connection.
std::string rtt_suffix(const std::string& ms) {
  return rtt_ns(ms) > 0 ? ", RTT " + ms + " ms" : "";
}

// What one append variant sends: builder, transport, synchronous commit; its series' name.
struct Variant {
  AppendOptions options;
  std::string series;
};

std::string variant_series(const AppendOptions& o) {
  std::string name = to_string(o.builder);
  if (o.transport == Transport::Pipeline) name += " pipelined";
  if (!o.synchronous_commit) name += ", synchronous_commit off";
  return name;
}

// The phases of the round-trip transport, in the order they run.
constexpr Phase kRoundTripPhases[] = {Phase::Begin, Phase::Check, Phase::Build, Phase::Insert,
                                      Phase::Commit};

// One variant's appends at one writer count: the pool's samples (wall from release to the last
// writer done, the writers' CPU) and where each writer's time went, per repetition: the
// phases' times averaged over the writers.
struct AppendSamples {
  Samples total;
  std::array<std::vector<double>, kPhases> phase_wall_us, phase_cpu_us;
  std::vector<double> writer_wall_us;  // all phases of one writer's append, mean over writers
  std::vector<double> server_cpu_us;   // the server's backend CPU per append (local server)

  void add(const ClientPoolSample& s, const std::vector<AppendTiming>& timings, double server_us) {
    total.wall.push_back(s.wall_us);
    total.cpu.push_back(s.cpu_us);
    const double n = double(timings.size());
    double all = 0;
    for (std::size_t ph = 0; ph < kPhases; ++ph) {
      double wall = 0, cpu = 0;
      for (const auto& t : timings) wall += double(t.wall_ns[ph]), cpu += double(t.cpu_ns[ph]);
      phase_wall_us[ph].push_back(wall / n / 1000.0);
      phase_cpu_us[ph].push_back(cpu / n / 1000.0);
      all += wall / n / 1000.0;
    }
    writer_wall_us.push_back(all);
    if (server_us >= 0) server_cpu_us.push_back(server_us / n);
  }
  const std::vector<double>& wall(Phase p) const {
    return phase_wall_us[static_cast<std::size_t>(p)];
  }
  const std::vector<double>& cpu(Phase p) const {
    return phase_cpu_us[static_cast<std::size_t>(p)];
  }
  // The median share of the writers' append time that phase p took.
  double share(Phase p) const {
    std::vector<double> shares;
    for (std::size_t i = 0; i < writer_wall_us.size(); ++i)
      if (writer_wall_us[i] > 0) shares.push_back(wall(p)[i] / writer_wall_us[i]);
    return shares.empty() ? 0.0 : summarize(shares).median;
  }
  // The sum of the medians of `phases`' times (µs): the height of the breakdown's stack.
  template <std::size_t N>
  double median_sum(const Phase (&phases)[N]) const {
    double sum = 0;
    for (Phase ph : phases)
      if (!wall(ph).empty()) sum += summarize(wall(ph)).median;
    return sum;
  }
};

Group breakdown_group(std::size_t events) {
  Group g{"append_breakdown",
          "Where an append's time goes (" + std::to_string(events) + " events)",
          "% of one append",
          "",
          false,
          true,
          "Each phase of one append as timed by the writer (wall clock, mean over the writers): "
          "BEGIN, the expected-version check, building the INSERT (the builder's work: text and "
          "parameters), sending the INSERT, COMMIT — each its own round trip. A part is its "
          "phase's median time; the stack (100%) is the sum of the five medians, which is close "
          "to the median append (the append group). The label gives the build's part; a point's "
          "figures also hold each phase's µs and thread CPU. The findings' shares are ratios of "
          "medians over the same repetitions, with their intervals."};
  g.stacked = true;
  return g;
}

// "iolist, 10 writers, RTT 1 ms: build 0.91%": short, as a stack's label stands upright under
// it.
std::string breakdown_label(Builder b, std::int64_t writers, const std::string& rtt,
                            double build_share) {
  return std::string(to_string(b)) + ", " + std::to_string(writers) +
         (writers == 1 ? " writer" : " writers") + rtt_suffix(rtt) + ": build " +
         format_percent(build_share);
}

Point make_point(std::string label, const Samples& s) {
  Point p;
  p.label = std::move(label);
  p.samples = s.wall;
  if (!s.cpu.empty()) p.extra["cpu"] = summarize(s.cpu).median;
  return p;
}

class IoListExperiment final : public Experiment {
 public:
  std::string id() const override { return "iolist"; }
  std::string title() const override { return "IO lists: building the event store's INSERT"; }
  std::string purpose() const override {
    return "Concatenating vs. referencing fragments (an IO list) to build a 100-row INSERT, and "
           "what it does to appends and reads with 1, 10 and 100 concurrent clients.";
  }

  Article article() const override {
    Article a;
    a.source =
        "Elixir EventStore, Benchfella results as published in the article (seed 000), µs per "
        "operation, 100 events per append.";
    const std::vector<std::string> columns{"benchmark", "before", "after", "ratio"};
    ArticleTable t{
        "Published figures: before (interpolation) → after (IO list)", "µs per op", columns, {}};
    for (const auto& p : kPublished)
      t.rows.push_back(published_row(std::string(p.read ? "read events, " : "append events, ") +
                                         writers_label(p.clients, p.read),
                                     p));
    a.tables.push_back(std::move(t));
    a.tables.push_back(
        {"An earlier change in the same project: one prepared INSERT per event → "
         "one multi-row INSERT",
         "µs per op",
         columns,
         {published_row("append 100 events", kPublishedMultiRow)}});
    return a;
  }

  std::vector<ParamSpec> params() const override {
    std::vector<std::string> builders = builder_names();
    std::string all_builders;
    for (const auto& b : builders) all_builders += (all_builders.empty() ? "" : ",") + b;
    std::vector<ParamSpec> specs{
        {"benchmarks",
         ParamType::SubsetOf,
         "build,append,pgbench,read,payload,client",
         {},
         {},
         {"build", "append", "pgbench", "read", "payload", "client"},
         "which benchmarks to run; pgbench: PostgreSQL's own load tool "
         "running the same append transaction, as a peer; payload: single-writer appends with "
         "events of payload_bytes each, and the build's share of them; client: single-writer "
         "appends "
         "through libpqxx 6.4 beside libpq (interpolate, iolist, prepared), time and "
         "allocations"},
        {"builders",
         ParamType::SubsetOf,
         all_builders,
         {},
         {},
         builders,
         "statement builders to compare"},
        {"transports",
         ParamType::SubsetOf,
         "round_trips,pipeline",
         {},
         {},
         transport_names(),
         "how an append's statements travel: round_trips (BEGIN, check, INSERT, COMMIT: one "
         "round trip each) or pipeline (all in one flight, libpq's pipeline mode)"},
        {"synchronous_commit",
         ParamType::SubsetOf,
         "on,off",
         {},
         {},
         {"on", "off"},
         "off: iolist appends also with SET LOCAL synchronous_commit = off (COMMIT does not wait "
         "for the WAL flush: a crash may lose the last transactions). Managed servers only: "
         "skipped on a server Perflab does not manage"},
        {"network_rtt_ms",
         ParamType::SubsetOf,
         "0,1",
         {},
         {},
         {"0", "0.2", "1", "5"},
         "round trip time between Perflab and PostgreSQL for appends: 0 is the direct "
         "connection; others go through a relay in process that delays each direction by half "
         "(0.2 ms: a LAN, 5 ms: across a region)"},
        {"rtt_writers",
         ParamType::IntList,
         "1",
         1,
         200,
         {},
         "concurrent writers measured through the relay (network_rtt_ms above 0), each a run; "
         "e.g. 1,10,100 to see many writers across a network (slow)"},
        {"events",
         ParamType::Int,
         "100",
         1,
         double(kMaxEventsPerStatement),
         {},
         "events per append and per read"},
        {"writers", ParamType::IntList, "1,10,100", 1, 200, {}, "concurrent writers, each a run"},
        {"readers", ParamType::IntList, "1,10,100", 1, 200, {}, "concurrent readers, each a run"},
        {"repetitions",
         ParamType::Int,
         "10",
         1,
         1000,
         {},
         "measured repetitions per point (at least 6 for a 95% interval)"},
        {"warmup", ParamType::Int, "1", 0, 100, {}, "unmeasured repetitions before measuring"},
        {"build_sizes",
         ParamType::IntList,
         "1,10,100,1000,8191",
         1,
         double(kMaxEventsPerStatement),
         {},
         "events per statement for the build micro-benchmark"},
        {"build_sample_ms",
         ParamType::Int,
         "20",
         1,
         10000,
         {},
         "time per build micro-benchmark sample (many statements per sample)"},
        {"pgbench_ms",
         ParamType::Int,
         "1000",
         10,
         600000,
         {},
         "target duration of one pgbench invocation (one sample); at least 10 transactions per "
         "client",
         "pgbench duration"},
        {"pgbench_repetitions",
         ParamType::Int,
         "6",
         1,
         1000,
         {},
         "measured pgbench invocations per writer count, each the average of many transactions "
         "(at least 6 for a 95% interval); warm-up as for appends"},
        {"payload_bytes",
         ParamType::IntList,
         "1024,65536,1048576",
         64,
         double(kMaxPayloadBytes),
         {},
         "bytes of JSON per event for the payload sweep (an append carries at most 4 MiB: "
         "fewer events per append above 40 KiB); more sizes, e.g. 256 B to 4 MiB in steps of 4, "
         "for a finer sweep (slow)"},
        {"payload_repetitions",
         ParamType::Int,
         "6",
         1,
         1000,
         {},
         "measured repetitions per payload size (warm-up: 1); 6 is the fewest whose median can "
         "have a 95% interval"},
        {"reset",
         ParamType::Bool,
         "true",
         {},
         {},
         {},
         "drop and recreate Perflab's schema before appending (only that schema)"},
        {"seed", ParamType::Int, "42", 0, 1e15, {}, "seed for the generated events"},
    };
    for (auto& spec : statistics_params()) specs.push_back(std::move(spec));
    return specs;
  }

  TargetNeeds needs(const Params& p) const override {
    const auto benches = p.get_subset("benchmarks");
    return {std::any_of(benches.begin(), benches.end(),
                        [](const std::string& b) { return b != "build"; }),
            0};
  }

  void run(RunContext& ctx) override {
    const Params& p = ctx.params();
    const auto benches = p.get_subset("benchmarks");
    auto has = [&](const char* b) {
      return std::find(benches.begin(), benches.end(), b) != benches.end();
    };
    std::vector<Builder> builders;
    for (const auto& b : p.get_subset("builders")) builders.push_back(builder_from_string(b));
    std::vector<Transport> transports;
    for (const auto& t : p.get_subset("transports")) transports.push_back(transport_from_string(t));
    std::vector<Variant> variants;
    for (Transport t : transports)
      for (Builder b : builders) {
        const AppendOptions o{b, t};
        variants.push_back({o, variant_series(o)});
      }
    const auto commits = p.get_subset("synchronous_commit");
    const bool async_commit = std::find(commits.begin(), commits.end(), "off") != commits.end();
    const auto events = static_cast<std::size_t>(p.get_int("events"));
    const auto reps = static_cast<int>(p.get_int("repetitions"));
    const auto warmup = static_cast<int>(p.get_int("warmup"));
    const auto writers = p.get_int_list("writers");
    const auto readers = p.get_int_list("readers");
    const auto sizes = p.get_int_list("build_sizes");
    seed_ = static_cast<std::uint64_t>(p.get_int("seed"));
    uuid_state_ = seed_ ^ 0x9e3779b97f4a7c15ULL;
    measured_.clear();
    client_allocs_.clear();

    // Progress: one step per measured configuration.
    total_steps_ = 0;
    done_steps_ = 0;
    if (has("build")) total_steps_ += sizes.size() * 2;
    const auto rtts = p.get_subset("network_rtt_ms");
    const bool relayed =
        std::any_of(rtts.begin(), rtts.end(), [](auto& r) { return rtt_ns(r) > 0; });
    const auto rtt_writers = p.get_int_list("rtt_writers");
    if (has("append"))
      for (const auto& rtt : rtts)
        total_steps_ += (rtt_ns(rtt) > 0 ? rtt_writers.size() : writers.size()) *
                        static_cast<std::size_t>(reps + warmup);
    if (has("append") && relayed) total_steps_ += static_cast<std::size_t>(reps + warmup);
    const auto pgbench_reps = static_cast<int>(p.get_int("pgbench_repetitions"));
    if (has("pgbench"))
      total_steps_ += writers.size() * static_cast<std::size_t>(pgbench_reps + std::max(warmup, 1));
    if (has("read")) total_steps_ += readers.size() * static_cast<std::size_t>(reps + warmup) + 1;
    const auto payload_sizes = p.get_int_list("payload_bytes");
    const auto payload_reps = static_cast<int>(p.get_int("payload_repetitions"));
    if (has("payload"))
      total_steps_ += payload_sizes.size() * static_cast<std::size_t>(payload_reps + 1);
    if (has("client")) total_steps_ += static_cast<std::size_t>(reps + warmup);

    if (has("build")) run_build(ctx, sizes, reps);
    if (!has("append") && !has("read") && !has("pgbench") && !has("payload") && !has("client")) {
      finish_findings(ctx, builders, writers, readers, events);
      return;
    }

    const PgTarget pg = ctx.targets().postgres(ctx.stop_token());
    ctx.progress(fraction(), "connecting to PostgreSQL");
    PgConnection admin = pg.connect(ctx.stop_token());
    if (p.get_bool("reset")) {
      ctx.progress(fraction(), "resetting schema " + pg.schema);
      reset_schema(admin, pg.schema);
    } else {
      if (pg_schema_state(admin, pg.schema) != SchemaState::Owned)  // it would be written into
        throw TargetError(TargetField::PgSchema,
                          "reset=false needs Perflab's schema \"" + pg.schema +
                              "\" from an earlier run; it does not exist or is not Perflab's");
      admin.exec("SELECT 1 FROM " + pg_quote_ident(pg.schema) + ".events LIMIT 1");
    }
    EventIdAllocator ids(EventIdAllocator::last_used(admin, pg.schema));
    // synchronous_commit=off only where Perflab owns the whole server: never on another's.
    if (async_commit && !pg.managed) {
      ctx.progress(fraction(), kAsyncCommitSkipped);
    } else if (async_commit) {
      const AppendOptions o{Builder::IoList, Transport::RoundTrips, false};
      variants.push_back({o, variant_series(o)});
    }
    async_skipped_ = async_commit && !pg.managed;
    server_host_ = admin.host();
    server_port_ = admin.port();
    if (has("append") && relayed && (server_host_.empty() || server_host_.front() == '/'))
      throw std::invalid_argument(
          "network_rtt_ms above 0 needs PostgreSQL over TCP; this target is a Unix socket (" +
          server_host_ + "): set network_rtt_ms=0 or give a host");

    try {
      if (has("append"))
        run_append(ctx, pg, ids, variants, writers, rtt_writers, rtts, events, reps, warmup,
                   has("pgbench"));
      if (has("pgbench")) run_pgbench_peer(ctx, pg, ids, writers, events, pgbench_reps, warmup);
      if (has("read")) run_read(ctx, pg, ids, builders, readers, events, reps, warmup);
      if (has("payload")) run_payload(ctx, pg, ids, builders, payload_sizes, events, payload_reps);
      if (has("client")) run_client(ctx, pg, ids, builders, events, reps, warmup);
    } catch (...) {
      // A stopped run keeps the figures of what it completed (the ratios need both points).
      if (ctx.stop_requested()) finish_findings(ctx, builders, writers, readers, events);
      throw;
    }
    finish_findings(ctx, builders, writers, readers, events);
  }

 private:
  double fraction() const {
    return total_steps_ ? std::min(1.0, double(done_steps_) / double(total_steps_)) : 0.0;
  }
  void step(RunContext& ctx, const std::string& what) {
    ++done_steps_;
    ctx.progress(fraction(), what);
  }

  void run_build(RunContext& ctx, const std::vector<std::int64_t>& sizes, int reps) {
    ctx.add_group({"build_time", "Build one INSERT statement (no server)", "ns/statement",
                   "events per statement", true, true,
                   "Time to build the statement text for N events; log-log shows the growth.", true,
                   true});
    ctx.add_group({"build_allocs", "Allocations per statement", "allocations/statement",
                   "events per statement", true, true,
                   "Heap allocations made while building one statement.", true, true});
    ctx.add_group({"build_bytes", "Bytes allocated per statement", "bytes/statement",
                   "events per statement", true, true,
                   "Bytes requested from the heap while building one statement.", true, true});
    const std::string head = insert_head("\"perflab\".events");
    const auto sample_ns = ctx.params().get_int("build_sample_ms") * 1'000'000;
    std::size_t sink = 0;
    for (auto n64 : sizes) {
      const auto n = static_cast<std::size_t>(n64);
      for (Builder b : {Builder::Interpolate, Builder::IoList}) {
        ctx.check_stop();
        auto build = [&] {
          if (b == Builder::Interpolate) return build_interpolate(head, n);
          return build_iolist(head, n).flatten();
        };
        // Allocations are deterministic: count one build.
        AllocCount allocs;
        {
          AllocScope scope;
          sink += build().size();
          allocs = scope.delta();
        }
        // Calibrate the statements per sample, then take `reps` samples.
        const std::int64_t t0 = wall_ns();
        sink += build().size();
        const std::int64_t one = std::max<std::int64_t>(1, wall_ns() - t0);
        const std::int64_t per_sample = std::clamp<std::int64_t>(sample_ns / one, 1, 10'000'000);
        Samples s;
        for (int r = 0; r < reps; ++r) {
          ctx.check_stop();
          Stopwatch sw;
          for (std::int64_t k = 0; k < per_sample; ++k) sink += build().size();
          s.wall.push_back(double(sw.wall_elapsed_ns()) / double(per_sample));
          s.cpu.push_back(double(sw.cpu_elapsed_ns()) / double(per_sample));
        }
        const std::string label = std::to_string(n);
        Point t = make_point(label, s);
        t.x = double(n);
        t.extra["statements_per_sample"] = double(per_sample);
        ctx.add_point("build_time", to_string(b), std::move(t));
        Point a;
        a.label = label;
        a.x = double(n);
        a.samples = {double(allocs.allocations)};
        ctx.add_point("build_allocs", to_string(b), std::move(a));
        Point by;
        by.label = label;
        by.x = double(n);
        by.samples = {double(allocs.bytes)};
        ctx.add_point("build_bytes", to_string(b), std::move(by));
        step(ctx, "built " + label + "-event statements with " + to_string(b));
      }
    }
    if (sink == 42) ctx.progress(fraction(), "");  // keeps the builds observable
  }

  // The rounds of one append or read point; a precision watches the finding's ratio iolist /
  // interpolate when both builders run, else every builder's median.
  static PointRounds point_rounds(const RunContext& ctx, const std::vector<Builder>& builders,
                                  int reps, int warmup) {
    PointRounds rounds(ctx, warmup, reps, builders.size());
    const auto at = [&](Builder b) {
      return static_cast<std::size_t>(std::find(builders.begin(), builders.end(), b) -
                                      builders.begin());
    };
    if (at(Builder::IoList) < builders.size() && at(Builder::Interpolate) < builders.size())
      rounds.track_ratio(at(Builder::IoList), at(Builder::Interpolate));
    return rounds;
  }

  // Measures (writers × variants) with the variants interleaved in every repetition (order
  // rotated) so drifts of a shared machine hit every variant alike. Every append also times its
  // phases (appendix: the breakdown group). Publishes what it has on stop.
  void run_append(RunContext& ctx, const PgTarget& pg, EventIdAllocator& ids,
                  const std::vector<Variant>& variants, const std::vector<std::int64_t>& writers,
                  const std::vector<std::int64_t>& rtt_writers,
                  const std::vector<std::string>& rtts, std::size_t events, int reps, int warmup,
                  bool with_pgbench) {
    Group g = append_group(events, with_pgbench);
    if (async_skipped_) g.description += std::string(" ") + kAsyncCommitSkipped;
    ctx.add_group(g);
    ctx.add_group(breakdown_group(events));
    if (std::any_of(rtts.begin(), rtts.end(), [](const auto& r) { return rtt_ns(r) > 0; }))
      measure_relay_overhead(ctx, pg, ids, events, reps, warmup);
    for (const std::string& rtt : rtts) {
      // Through a relay that delays each direction by half the round trip; 0: direct.
      std::optional<DelayRelay> relay;
      PgTarget target = pg;
      if (rtt_ns(rtt) > 0) {
        relay.emplace(server_host_, server_port_, std::chrono::nanoseconds(rtt_ns(rtt)));
        target.conninfo = conninfo_with_address(pg.conninfo, "127.0.0.1", relay->port());
      }
      // Many writers across a network are opt-in (rtt_writers): slow, and what they add is
      // what one writer shows, multiplied.
      for (auto n64 : relay ? rtt_writers : writers) {
        const auto n = static_cast<std::size_t>(n64);
        ctx.progress(fraction(), "opening " + std::to_string(n) + " connections" + rtt_suffix(rtt));
        ClientPool pool(n, target, ids, ctx.stop_token());
        std::vector<std::vector<EventData>> batches;
        for (std::size_t w = 0; w < n; ++w) batches.push_back(make_events(events, seed_ + w));
        const std::string label = writers_label(n64, false) + rtt_suffix(rtt);
        std::vector<AppendSamples> samples(variants.size());
        std::optional<PointPrecision> precision;
        auto publish = [&] {
          for (std::size_t v = 0; v < variants.size(); ++v) {
            publish_append(ctx, variants[v], label, n64, rtt, samples[v], precision);
            measured_[{variants[v].series, label}] = samples[v];
          }
        };
        try {
          measure_appends(ctx, pool, pg.managed, variants, batches, "append, " + label, reps,
                          warmup, samples, precision);
        } catch (...) {
          publish();
          throw;
        }
        publish();
      }
    }
  }

  // The relay's own cost: iolist, one writer, four round trips, direct and through the relay at
  // 0 ms, interleaved repetition by repetition.
  void measure_relay_overhead(RunContext& ctx, const PgTarget& pg, EventIdAllocator& ids,
                              std::size_t events, int reps, int warmup) {
    ctx.add_group({"relay_overhead", "The relay's own cost (iolist, single writer)", "us/op", "",
                   false, true,
                   "One append through the delaying relay set to 0 ms against the same append "
                   "straight to the server: what the relay itself adds to every figure measured "
                   "through it."});
    DelayRelay relay(server_host_, server_port_, std::chrono::nanoseconds(0));
    PgTarget via = pg;
    via.conninfo = conninfo_with_address(pg.conninfo, "127.0.0.1", relay.port());
    ClientPool direct(1, pg, ids, ctx.stop_token()), relayed(1, via, ids, ctx.stop_token());
    for (ClientPool* p : {&direct, &relayed})
      p->run([&](std::size_t, EventStore& store) {
        store.reserve_stream_ids(std::size_t(warmup + reps));
      });
    const std::vector<std::vector<EventData>> batch{make_events(events, seed_)};
    const AppendOptions iolist{Builder::IoList};
    std::vector<AppendTiming> timings(1);
    AppendSamples a, b;  // direct, relayed
    PointRounds rounds(ctx, warmup, reps, 2);
    auto publish = [&] {
      for (const auto& [s, name] : {std::pair{&a, "direct"}, std::pair{&b, "relay at 0 ms"}}) {
        if (s->total.wall.empty()) continue;
        Point p = make_point(writers_label(1, false), s->total);
        p.precision = rounds.precision();
        ctx.add_point("relay_overhead", name, std::move(p));
        measured_[{name, "relay"}] = *s;
      }
    };
    try {
      while (rounds.next()) {
        std::vector<double> round(2);
        for (int k = 0; k < 2; ++k) {
          ctx.check_stop();
          const int i = (k + rounds.round()) % 2;  // order rotated
          const ClientPoolSample s = append_once(i == 0 ? direct : relayed, iolist, batch, timings);
          if (!rounds.warmup()) (i == 0 ? a : b).add(s, timings, -1.0);
          round[std::size_t(i)] = s.wall_us;
        }
        rounds.record(round);
        step(ctx, "relay overhead: " + rounds.progress_text());
      }
    } catch (...) {
      publish();
      throw;
    }
    publish();
  }

  // The rounds of one append point over variants: the precision watches iolist / interpolate
  // when both are among them, else every variant's median.
  static PointRounds variant_rounds(const RunContext& ctx, const std::vector<Variant>& variants,
                                    int reps, int warmup) {
    PointRounds rounds(ctx, warmup, reps, variants.size());
    const auto at = [&](const char* series) {
      std::size_t i = 0;
      while (i < variants.size() && variants[i].series != series) ++i;
      return i;
    };
    if (at("iolist") < variants.size() && at("interpolate") < variants.size())
      rounds.track_ratio(at("iolist"), at("interpolate"));
    return rounds;
  }

  // One round-trip or pipelined append per writer of the pool, its phases into `timings`.
  ClientPoolSample append_once(ClientPool& pool, const AppendOptions& o,
                               const std::vector<std::vector<EventData>>& batches,
                               std::vector<AppendTiming>& timings) {
    std::vector<std::string> uuids;
    for (std::size_t w = 0; w < pool.size(); ++w) uuids.push_back(make_uuid(uuid_state_));
    return pool.run([&](std::size_t w, EventStore& store) {
      store.append_to_stream(uuids[w], 0, batches[w], o, &timings[w]);
    });
  }

  // The rounds of one point: every variant once per round, order rotated. The precision of the
  // point goes to `precision` (for its published points).
  void measure_appends(RunContext& ctx, ClientPool& pool, bool local_server,
                       const std::vector<Variant>& variants,
                       const std::vector<std::vector<EventData>>& batches, const std::string& label,
                       int reps, int warmup, std::vector<AppendSamples>& samples,
                       std::optional<PointPrecision>& precision) {
    PointRounds rounds = variant_rounds(ctx, variants, reps, warmup);
    // New streams of the pipeline transport take reserved ids: reserved here, unmeasured (a
    // refill, if rounds go on to a precision, is one round trip in an append).
    const std::size_t appends = static_cast<std::size_t>(warmup + reps) * variants.size();
    pool.run([&](std::size_t, EventStore& store) { store.reserve_stream_ids(appends); });
    std::vector<AppendTiming> timings(pool.size());
    std::int64_t server0 = local_server ? pool.backend_cpu_ns() : -1;
    while (rounds.next()) {
      std::vector<double> round(variants.size());
      for (std::size_t k = 0; k < variants.size(); ++k) {
        ctx.check_stop();
        const std::size_t vi = (k + static_cast<std::size_t>(rounds.round())) % variants.size();
        const ClientPoolSample s = append_once(pool, variants[vi].options, batches, timings);
        // The backends idle between appends: the difference is this append's server CPU.
        const std::int64_t server1 = server0 >= 0 ? pool.backend_cpu_ns() : -1;
        if (!rounds.warmup())
          samples[vi].add(s, timings,
                          server0 >= 0 && server1 >= 0 ? double(server1 - server0) / 1000.0 : -1.0);
        server0 = server1;
        round[vi] = s.wall_us;
      }
      rounds.record(round);
      precision = rounds.precision();
      step(ctx, label + ": " + rounds.progress_text());
    }
  }

  // A variant's append point, and for the round-trip transport with synchronous commit its
  // stack in the breakdown group: the phases' shares of one append, the build share in the label.
  static void publish_append(RunContext& ctx, const Variant& v, const std::string& label,
                             std::int64_t writers, const std::string& rtt, const AppendSamples& s,
                             const std::optional<PointPrecision>& precision) {
    if (s.total.wall.empty()) return;
    Point p = make_point(label, s.total);
    p.precision = precision;
    if (!s.server_cpu_us.empty()) p.extra["server_cpu"] = summarize(s.server_cpu_us).median;
    ctx.add_point("append", v.series, std::move(p));
    if (v.options.transport != Transport::RoundTrips || !v.options.synchronous_commit) return;
    // Each repetition's phase time in % of the sum of the phases' medians: a part's median is
    // its phase's median time in % of that sum, so the parts add up to exactly 100%.
    const double whole = s.median_sum(kRoundTripPhases);
    if (!(whole > 0)) return;
    const std::string stack = breakdown_label(v.options.builder, writers, rtt,
                                              summarize(s.wall(Phase::Build)).median / whole);
    for (Phase ph : kRoundTripPhases) {
      Point q;
      q.label = stack;
      for (double us : s.wall(ph)) q.samples.push_back(100.0 * us / whole);
      q.extra["us"] = summarize(s.wall(ph)).median;
      q.extra["cpu_us"] = summarize(s.cpu(ph)).median;
      ctx.add_point("append_breakdown", to_string(ph), std::move(q));
    }
  }

  // Where building matters: single-writer appends (four round trips, direct) of events with
  // `sizes` bytes of JSON each, builders interleaved; the build's share of each append.
  void run_payload(RunContext& ctx, const PgTarget& pg, EventIdAllocator& ids,
                   const std::vector<Builder>& builders, const std::vector<std::int64_t>& sizes,
                   std::size_t events, int reps) {
    ctx.add_group({"payload_append", "Append by payload size (single writer)", "us/op",
                   "bytes of JSON per event", true, true,
                   "One append of " + std::to_string(events) +
                       " events (fewer above 40 KiB per event: at most 4 MiB per append) with "
                       "events of growing size, four round trips."});
    ctx.add_group({"payload_build_share", "Build share by payload size (single writer)",
                   "% of one append", "bytes of JSON per event", true, true,
                   "The share of one append spent building its INSERT (text and parameters), by "
                   "payload size. interpolate, iolist and prepared bind the data as it is (its "
                   "size does not reach the builder); unnest and copy encode every byte as hex "
                   "text, so their build grows with the payload."});
    std::vector<Variant> variants;
    for (Builder b : builders) variants.push_back({AppendOptions{b}, to_string(b)});
    ClientPool pool(1, pg, ids, ctx.stop_token());
    for (auto bytes64 : sizes) {
      const auto bytes = static_cast<std::size_t>(bytes64);
      const std::size_t n = payload_events(events, bytes);
      const std::vector<std::vector<EventData>> batch{make_events(n, seed_, bytes)};
      const std::string label = std::to_string(bytes);
      std::vector<AppendSamples> samples(variants.size());
      std::optional<PointPrecision> precision;
      auto publish = [&] {
        for (std::size_t v = 0; v < variants.size(); ++v) {
          const AppendSamples& s = samples[v];
          if (s.total.wall.empty()) continue;
          Point t = make_point(label, s.total);
          t.precision = precision;
          t.x = double(bytes);
          t.extra["events"] = double(n);
          ctx.add_point("payload_append", variants[v].series, std::move(t));
          Point q;
          q.label = label;
          q.x = double(bytes);
          for (std::size_t i = 0; i < s.writer_wall_us.size(); ++i)
            q.samples.push_back(100.0 * s.wall(Phase::Build)[i] / s.writer_wall_us[i]);
          q.extra["build_us"] = summarize(s.wall(Phase::Build)).median;
          ctx.add_point("payload_build_share", variants[v].series, std::move(q));
          measured_[{variants[v].series, "payload " + label}] = s;
        }
      };
      try {
        measure_appends(ctx, pool, false, variants, batch,
                        "payload " + format_bytes(bytes) + " per event", reps, 1, samples,
                        precision);
      } catch (...) {
        publish();
        throw;
      }
      publish();
    }
  }

  // The client library as a variable: one writer appends the same events through libpq
  // (EventStore) and through libpqxx (PqxxEventStore), builders and libraries interleaved; time
  // and the allocations the writer's thread makes per append (operator new: libpqxx's and
  // Perflab's; libpq's own malloc calls are not counted).
  void run_client(RunContext& ctx, const PgTarget& pg, EventIdAllocator& ids,
                  const std::vector<Builder>& builders, std::size_t events, int reps, int warmup) {
    std::vector<Builder> bs;
    for (Builder b : builders)
      if (PqxxEventStore::supports(b)) bs.push_back(b);
    if (bs.empty()) {
      done_steps_ += static_cast<std::size_t>(reps + warmup);
      return;
    }
    ctx.add_group({"client_time", "Append through libpq and libpqxx (single writer)", "us/op", "",
                   false, true,
                   "The same statements and rows through libpq directly (the builder's pointers, "
                   "data in binary) and through libpqxx 6.4 (pqxx::work, exec_params / "
                   "exec_prepared with dynamic parameters: every value converted to a string of "
                   "its own, bytea as hex text), four round trips."});
    ctx.add_group({"client_allocs", "Allocations per append: libpq and libpqxx",
                   "allocations/append", "", false, true,
                   "Heap allocations (operator new) of the writer's thread during one append: "
                   "Perflab's and libpqxx's; libpq allocates with malloc, not counted here."});
    ctx.progress(fraction(), "client libraries: connecting");
    PgConnection conn = pg.connect(ctx.stop_token());
    EventStore libpq(conn, pg.schema, ids);
    PqxxEventStore libpqxx(pg.conninfo, pg.limits, pg.schema, ids, ctx.stop_token());
    const auto batch = make_events(events, seed_);
    struct Measured {
      Samples time;
      std::vector<double> allocs;
    };
    std::map<std::pair<Builder, bool>, Measured> m;  // (builder, libpqxx)
    // Variant j: builder bs[j / 2], through libpqxx when j is odd; the precision watches
    // libpqxx / libpq for each builder.
    const std::size_t k = bs.size() * 2;
    PointRounds rounds(ctx, warmup, reps, k);
    for (std::size_t j = 0; j < k; j += 2) rounds.track_ratio(j + 1, j);
    auto publish = [&] {
      for (auto& [key, v] : m) {
        if (v.time.wall.empty()) continue;
        const char* series = key.second ? "libpqxx" : "libpq";
        Point t = make_point(to_string(key.first), v.time);
        t.precision = rounds.precision();
        ctx.add_point("client_time", series, std::move(t));
        Point a;
        a.label = to_string(key.first);
        a.samples = v.allocs;
        ctx.add_point("client_allocs", series, std::move(a));
        AppendSamples as;
        as.total = v.time;
        measured_[{series, std::string("client ") + to_string(key.first)}] = as;
        client_allocs_[{series, to_string(key.first)}] = v.allocs;
      }
    };
    try {
      while (rounds.next()) {
        std::vector<double> round(k);
        for (std::size_t i = 0; i < k; ++i) {
          ctx.check_stop();
          const std::size_t j = (i + static_cast<std::size_t>(rounds.round())) % k;
          const Builder b = bs[j / 2];
          const bool pqxx = j % 2 == 1;
          const std::string uuid = make_uuid(uuid_state_);
          AllocScope scope;
          Stopwatch sw;
          if (pqxx)
            libpqxx.append_to_stream(uuid, 0, batch, b);
          else
            libpq.append_to_stream(uuid, 0, batch, b);
          const double wall = double(sw.wall_elapsed_ns()) / 1000.0;
          const double cpu = double(sw.cpu_elapsed_ns()) / 1000.0;
          const double allocs = double(scope.delta().allocations);
          round[j] = wall;
          if (rounds.warmup()) continue;
          Measured& x = m[{b, pqxx}];
          x.time.wall.push_back(wall);
          x.time.cpu.push_back(cpu);
          x.allocs.push_back(allocs);
        }
        rounds.record(round);
        step(ctx, "client libraries: " + rounds.progress_text());
      }
    } catch (...) {
      publish();
      throw;
    }
    publish();
  }

  // The peer: pgbench running the same append transaction (iolist/pgbench.h) with N clients,
  // one invocation per sample; its latency average (per-transaction time with N clients running
  // concurrently) is the quantity of Perflab's append samples. Event ids come from the run's
  // allocator, so they never collide with Perflab's writers.
  void run_pgbench_peer(RunContext& ctx, const PgTarget& pg, EventIdAllocator& ids,
                        const std::vector<std::int64_t>& writers, std::size_t events, int reps,
                        int warmup) {
    ctx.add_group(append_group(events, true));
    const std::size_t steps = writers.size() * static_cast<std::size_t>(reps + std::max(warmup, 1));
    const std::optional<PgbenchPeer> peer = pgbench_peer(ctx, pg, events, steps);
    if (!peer) return;
    ctx.progress(fraction(), "pgbench peer: " + pgbench_version(peer->exe));
    TempFolder dir("perflab-pgbench-");
    for (auto n64 : writers)
      pgbench_point(ctx, pg, ids, *peer, dir.path(), n64, events, reps, warmup);
  }

  // What every pgbench invocation of a run shares.
  struct PgbenchPeer {
    std::filesystem::path exe;
    PgbenchScript script;
  };

  // pgbench and the append transaction as its script, or nothing when the peer is left out
  // (not installed, or the schema's name cannot go into a script): its steps count as done.
  std::optional<PgbenchPeer> pgbench_peer(RunContext& ctx, const PgTarget& pg, std::size_t events,
                                          std::size_t steps) {
    try {
      return PgbenchPeer{find_server_binary("pgbench"),
                         make_pgbench_script(pg.schema, make_events(events, seed_),
                                             pg_timestamp_text(unix_us_now()))};
    } catch (const std::exception& e) {
      done_steps_ += steps;
      ctx.progress(fraction(), std::string("skipping the pgbench peer: ") + e.what());
      return std::nullopt;
    }
  }

  // One writer count: an unmeasured invocation calibrates the transactions per client, then
  // warm-up and measured invocations, one sample each. What was measured is published also
  // when a stop or a failure ends it.
  void pgbench_point(RunContext& ctx, const PgTarget& pg, EventIdAllocator& ids,
                     const PgbenchPeer& peer, const std::filesystem::path& work_dir,
                     std::int64_t n64, std::size_t events, int reps, int warmup) {
    const std::string label = writers_label(n64, false);
    const double target_us = double(ctx.params().get_int("pgbench_ms")) * 1000.0;
    PgbenchInvocation inv;
    inv.exe = peer.exe;
    inv.conninfo = pg.conninfo;
    inv.clients = static_cast<int>(n64);
    inv.work_dir = work_dir;
    Samples s;
    std::vector<double> tps;
    std::int64_t committed = 0, per_client = 0;
    auto publish = [&] {
      if (s.wall.empty()) return;
      Point p = make_point(label, s);
      p.extra["tps"] = summarize(tps).median;
      p.extra["transactions_per_client"] = double(per_client);
      // Every transaction pgbench committed for this point, unmeasured ones included.
      p.extra["transactions"] = double(committed);
      ctx.add_point("append", "pgbench", std::move(p));
    };
    double latency_ms = 0;  // per transaction, once calibrated
    auto once = [&](std::int64_t t) {
      ctx.check_stop();
      inv.transactions = t;
      // Bounded like every server operation, plus ten times the expected duration.
      inv.time_limit = pg.limits.reply_timeout() +
                       std::chrono::milliseconds(std::llround(10 * latency_ms * double(t)));
      inv.id_base = ids.take(n64 * t * static_cast<std::int64_t>(events));
      auto r = run_pgbench(inv, peer.script, ctx.stop_token());
      if (!r) {
        ctx.check_stop();
        throw Cancelled{};
      }
      committed += r->processed;
      return *r;
    };
    try {
      ctx.progress(fraction(), "pgbench, " + label + ": calibrating");
      const PgbenchReport cal = once(2);
      latency_ms = cal.latency_avg_ms;
      step(ctx, "pgbench, " + label + ": calibrated");
      per_client = std::clamp<std::int64_t>(
          std::llround(target_us / std::max(1.0, cal.latency_avg_ms * 1000.0)),
          kMinPgbenchTransactions, 1'000'000);
      const int total = std::max(warmup, 1) - 1 + reps;
      for (int r = 0; r < total; ++r) {
        const PgbenchReport rep = once(per_client);
        if (r >= total - reps) {
          s.wall.push_back(rep.latency_avg_ms * 1000.0);
          tps.push_back(rep.tps);
        }
        step(ctx, "pgbench, " + label + ": repetition " + std::to_string(r + 2) + "/" +
                      std::to_string(total + 1));
      }
    } catch (...) {
      publish();  // keeps what was measured, on stop or failure
      throw;
    }
    publish();
  }

  void run_read(RunContext& ctx, const PgTarget& pg, EventIdAllocator& ids,
                const std::vector<Builder>& builders, const std::vector<std::int64_t>& readers,
                std::size_t events, int reps, int warmup) {
    ctx.add_group({"read", "Read " + std::to_string(events) + " events", "us/op", "", false, true,
                   "Wall time for every reader to read a stream's events forward and decode them; "
                   "each builder's readers read streams that builder wrote."});
    const std::int64_t max_readers = *std::max_element(readers.begin(), readers.end());
    // One stream per (builder, reader), written by that builder.
    ctx.progress(fraction(), "writing the streams to read");
    std::map<Builder, std::vector<std::string>> streams;
    {
      PgConnection conn = pg.connect(ctx.stop_token());
      EventStore store(conn, pg.schema, ids);
      std::uint64_t uuid_state = seed_ ^ 0x5bd1e995ULL;
      for (Builder b : builders) {
        for (std::int64_t rd = 0; rd < max_readers; ++rd) {
          ctx.check_stop();
          std::string uuid = make_uuid(uuid_state);
          store.append_to_stream(uuid, 0, make_events(events, seed_ + 1000 + std::uint64_t(rd)), b);
          streams[b].push_back(std::move(uuid));
        }
      }
    }
    step(ctx, "streams written");
    for (auto n64 : readers) {
      const auto n = static_cast<std::size_t>(n64);
      ctx.progress(fraction(), "opening " + std::to_string(n) + " connections");
      ClientPool pool(n, pg, ids, ctx.stop_token());
      std::map<Builder, Samples> samples;
      PointRounds rounds = point_rounds(ctx, builders, reps, warmup);
      auto publish = [&] {
        for (Builder b : builders)
          if (!samples[b].wall.empty()) {
            Point p = make_point(writers_label(n64, true), samples[b]);
            p.precision = rounds.precision();
            ctx.add_point("read", to_string(b), std::move(p));
          }
      };
      try {
        while (rounds.next()) {
          std::vector<double> round(builders.size());
          for (std::size_t k = 0; k < builders.size(); ++k) {
            ctx.check_stop();
            const std::size_t i = (k + static_cast<std::size_t>(rounds.round())) % builders.size();
            const Builder b = builders[i];
            const auto& ids_for_b = streams[b];
            auto s = pool.run([&](std::size_t w, EventStore& store) {
              auto got = store.read_stream_forward(ids_for_b[w], 1, static_cast<int>(events));
              if (got.size() != events)
                throw std::runtime_error("read " + std::to_string(got.size()) +
                                         " events, expected " + std::to_string(events));
            });
            if (!rounds.warmup()) {
              samples[b].wall.push_back(s.wall_us);
              samples[b].cpu.push_back(s.cpu_us);
            }
            round[i] = s.wall_us;
          }
          rounds.record(round);
          step(ctx, "read, " + writers_label(n64, true) + ": " + rounds.progress_text());
        }
      } catch (...) {
        publish();
        throw;
      }
      publish();
    }
  }

  // Every ratio with its interval: append and read builders were interleaved round by round
  // (paired); the builds of one size, and pgbench against Perflab, ran one after the other.
  void finish_findings(RunContext& ctx, const std::vector<Builder>& builders,
                       const std::vector<std::int64_t>& writers,
                       const std::vector<std::int64_t>& readers, std::size_t events) {
    breakdown_findings(ctx, writers, ctx.params().get_subset("network_rtt_ms"));  // first: the
                                                                                  // panel leads
    const Run run = ctx.snapshot();
    auto point = [&](const char* group, const std::string& series,
                     const std::string& label) -> const Point* {
      const Point* pt = run.find_point(group, series, label);
      return pt && pt->stats.n > 0 ? pt : nullptr;
    };
    auto ratio = [&](RatioFindingSpec spec, const char* group, const std::string& label,
                     const std::string& a, const std::string& b) {
      ctx.add_ratio_finding(std::move(spec), point(group, a, label), point(group, b, label));
    };
    ratio({"build_100.time.iolist_vs_interpolate",
           "Building a 100-event statement: iolist time / interpolate time"},
          "build_time", "100", "iolist", "interpolate");
    // One deterministic count per builder: exact, no interval.
    if (const Point* a = point("build_allocs", "iolist", "100"),
        *b = point("build_allocs", "interpolate", "100");
        a && b && b->stats.median > 0)
      ctx.add_finding(
          {"build_100.allocs.iolist_vs_interpolate",
           "Building a 100-event statement: iolist allocations / interpolate allocations",
           a->stats.median / b->stats.median,
           {}});
    for (auto n : writers)
      ratio({"append_" + std::to_string(n) + ".iolist_vs_interpolate",
             "Append, " + writers_label(n, false) + ": iolist / interpolate", Better::Lower, 0,
             true, true, published_ratio(false, n)},
            "append", writers_label(n, false), "iolist", "interpolate");
    for (auto n : writers) {
      const std::string how = events <= kPgbenchMaxEventsPerStatement
                                  ? "same statement"
                                  : "same rows; pgbench sends them as " +
                                        std::to_string(pgbench_chunks(events).size()) +
                                        " pipelined INSERTs";
      ratio({"append_" + std::to_string(n) + ".iolist_vs_pgbench",
             "Append, " + writers_label(n, false) + ": Perflab iolist / pgbench, " + how},
            "append", writers_label(n, false), "iolist", "pgbench");
    }
    for (auto n : readers)
      ratio({"read_" + std::to_string(n) + ".iolist_vs_interpolate",
             "Read, " + writers_label(n, true) + ": iolist / interpolate", Better::Lower, 0, true,
             true, published_ratio(true, n)},
            "read", writers_label(n, true), "iolist", "interpolate");
    // The best builder's events/s against iolist's, for a single writer: time(iolist) /
    // time(best), a ratio of events/s (higher is better).
    const std::string one = writers_label(1, false);
    if (point("append", "iolist", one)) {
      std::string best;
      double best_us = 0;
      for (Builder b : builders)
        if (const Point* m = point("append", to_string(b), one))
          if (best.empty() || m->stats.median < best_us)
            best = to_string(b), best_us = m->stats.median;
      if (!best.empty() && best_us > 0)
        ratio({"append_1.best_vs_iolist_events_per_s",
               "Single writer: events/s of the fastest builder (" + best + ") / events/s of iolist",
               Better::Higher, 0, true},
              "append", one, "iolist", best);
    }
  }

  // Where an append's time goes, and what the transport changes: from the phases and samples
  // measured side by side (appended first in the panel: the teaching panel leads with them).
  void breakdown_findings(RunContext& ctx, const std::vector<std::int64_t>& writers,
                          const std::vector<std::string>& rtts) {
    if (writers.empty()) return;
    const std::int64_t most = *std::max_element(writers.begin(), writers.end());
    std::vector<std::int64_t> counts{1};
    if (most != 1) counts.push_back(most);
    for (std::int64_t n : counts) {
      const std::string label = writers_label(n, false);
      for (Builder b : {Builder::Interpolate, Builder::IoList}) {
        const AppendSamples* s = measured(variant_series({b}), label);
        if (!s) continue;
        share_finding(ctx, "append_" + std::to_string(n) + ".build_share." + to_string(b),
                      label_cap(label) + ": share of one append spent building the statement (" +
                          to_string(b) + ")",
                      s->wall(Phase::Build), s->writer_wall_us);
        if (b != Builder::IoList) continue;
        share_finding(ctx, "append_" + std::to_string(n) + ".commit_share.iolist",
                      label_cap(label) + ": share of one append spent in COMMIT (iolist)",
                      s->wall(Phase::Commit), s->writer_wall_us);
        if (!s->server_cpu_us.empty())
          share_finding(ctx, "append_" + std::to_string(n) + ".server_cpu_share.iolist",
                        label_cap(label) +
                            ": the server's CPU (its backend, schedstat clock) / one append's "
                            "wall time (iolist)",
                        s->server_cpu_us, s->writer_wall_us);
      }
      for (const std::string& rtt : rtts) {
        const std::string at = label + rtt_suffix(rtt);
        const std::string id = "append_" + std::to_string(n) +
                               (rtt_ns(rtt) > 0 ? ".rtt_" + rtt + "ms" : std::string());
        judged_finding(ctx, id + ".pipeline_vs_round_trips.iolist",
                       label_cap(at) + ", iolist: pipelined (one flight) / four round trips",
                       measured(variant_series({Builder::IoList, Transport::Pipeline}), at),
                       measured(variant_series({Builder::IoList}), at));
        if (rtt_ns(rtt) == 0) continue;
        if (const AppendSamples* s = measured(variant_series({Builder::IoList}), at))
          share_finding(ctx, id + ".build_share.iolist",
                        label_cap(at) +
                            ": share of one append spent building the statement "
                            "(iolist)",
                        s->wall(Phase::Build), s->writer_wall_us);
      }
    }
    for (std::int64_t n : counts) {
      const std::string label = writers_label(n, false);
      const AppendSamples* off =
          measured(variant_series({Builder::IoList, Transport::RoundTrips, false}), label);
      const AppendSamples* on = measured(variant_series({Builder::IoList}), label);
      if (!off || !on) continue;
      // off / on, judged; and 1 - off / on: the part of an append that waits for the flush.
      const std::string id = "append_" + std::to_string(n);
      auto f = ratio_finding({id + ".synchronous_commit.off_vs_on.iolist",
                              label_cap(label) + ", iolist: synchronous_commit off / on",
                              Better::Lower, ctx.threshold(), true, true},
                             off->total.wall, on->total.wall);
      if (!f) continue;
      Finding share{id + ".synchronous_commit_share.iolist",
                    label_cap(label) +
                        ", iolist: share of one append that waits for the WAL flush at COMMIT "
                        "(1 − synchronous_commit off / on; off gives up the durability of the "
                        "last transactions on a crash)",
                    1 - f->value,
                    {}};
      if (f->ci) {
        share.ci = *f->ci;
        share.ci->value = 1 - f->ci->value;
        share.ci->lo = 1 - f->ci->hi;
        share.ci->hi = 1 - f->ci->lo;
      }
      ctx.add_finding(std::move(share));
      ctx.add_finding(std::move(*f));
    }
    payload_findings(ctx);
    for (const std::string& b : ctx.params().get_subset("builders")) {
      judged_finding(ctx, "client.time.libpqxx_vs_libpq." + b,
                     "Single writer, " + b + ": append time through libpqxx / through libpq",
                     measured("libpqxx", "client " + b), measured("libpq", "client " + b));
      auto x = client_allocs_.find({"libpqxx", b}), y = client_allocs_.find({"libpq", b});
      if (x == client_allocs_.end() || y == client_allocs_.end()) continue;
      const double ax = summarize(x->second).median, ay = summarize(y->second).median;
      ctx.add_finding({"client.allocs.libpqxx_vs_libpq." + b,
                       "Single writer, " + b + ": allocations per append through libpqxx (" +
                           format_figure(ax) + ") / through libpq (" + format_figure(ay) + ")",
                       ay > 0 ? ax / ay : 0.0,
                       {}});
    }
    judged_finding(ctx, "relay.overhead",
                   "The relay's own cost: an append through the relay at 0 ms / straight to the "
                   "server (iolist, single writer, four round trips)",
                   measured("relay at 0 ms", "relay"), measured("direct", "relay"));
  }

  // The build share at the largest payload, and the smallest payload at which it reaches the
  // article's 20% (where building matters as much as it did in 2016), per builder.
  void payload_findings(RunContext& ctx) {
    auto sizes = ctx.params().get_int_list("payload_bytes");
    if (sizes.empty()) return;
    std::sort(sizes.begin(), sizes.end());
    for (const std::string& b : ctx.params().get_subset("builders")) {
      std::optional<std::int64_t> reached;  // the smallest payload where the share is >= 20%
      const AppendSamples* at_reached = nullptr;
      double most = 0;
      for (auto bytes : sizes) {
        const AppendSamples* s = measured(b, "payload " + std::to_string(bytes));
        if (!s) continue;
        const double share = s->share(Phase::Build);
        most = std::max(most, share);
        if (!reached && share >= 0.2) {
          reached = bytes;
          at_reached = s;
        }
      }
      const AppendSamples* last = measured(b, "payload " + std::to_string(sizes.back()));
      if (!last) continue;
      share_finding(ctx, "payload.build_share_at_largest." + b,
                    "Single writer, " + format_bytes(std::size_t(sizes.back())) +
                        " per event: share of one append spent building the statement (" + b + ")",
                    last->wall(Phase::Build), last->writer_wall_us);
      // Its figure is a share like the others: where it reaches 20%, the share there (with its
      // interval); else the largest share of the sweep.
      if (reached)
        share_finding(ctx, "payload.build_share_20pct." + b,
                      "The build's share of an append (" + b + ") reaches the article's 20% at " +
                          format_bytes(std::size_t(*reached)) + " per event: the share there",
                      at_reached->wall(Phase::Build), at_reached->writer_wall_us);
      else
        ctx.add_finding({"payload.build_share_20pct." + b,
                         "The build's share of an append (" + b +
                             ") stays below the article's 20% up to " +
                             format_bytes(std::size_t(sizes.back())) +
                             " per event: the largest share in the sweep",
                         most,
                         {}});
    }
  }

  // A ratio of two variants measured side by side, with its interval and verdict.
  static void judged_finding(RunContext& ctx, const std::string& id, const std::string& text,
                             const AppendSamples* a, const AppendSamples* b) {
    if (!a || !b) return;
    if (auto f = ratio_finding({id, text, Better::Lower, ctx.threshold(), true, true},
                               a->total.wall, b->total.wall))
      ctx.add_finding(std::move(*f));
  }

  // A share, part / whole of the same repetitions (paired): its interval, no verdict.
  static void share_finding(RunContext& ctx, const std::string& id, const std::string& text,
                            const std::vector<double>& part, const std::vector<double>& whole) {
    if (auto f =
            ratio_finding({id, text, Better::Lower, ctx.threshold(), true, false}, part, whole))
      ctx.add_finding(std::move(*f));
  }

  static std::string label_cap(std::string s) {
    if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
    return s;
  }

  const AppendSamples* measured(const std::string& series, const std::string& label) const {
    auto it = measured_.find({series, label});
    return it == measured_.end() || it->second.total.wall.empty() ? nullptr : &it->second;
  }

  std::map<std::pair<std::string, std::string>, AppendSamples> measured_;  // (series, label)
  std::uint64_t seed_ = 42;
  std::uint64_t uuid_state_ = 0;  // new streams' uuids, for the whole run
  bool async_skipped_ = false;
  std::map<std::pair<std::string, std::string>, std::vector<double>>
      client_allocs_;        // synchronous_commit=off asked for on an external server
  std::string server_host_;  // where the server is, for the relay
  int server_port_ = 0;
  std::size_t total_steps_ = 0, done_steps_ = 0;
};

}  // namespace

std::unique_ptr<Experiment> make_iolist_experiment() {
  return std::make_unique<IoListExperiment>();
}

}  // namespace perflab
