#include "iolist/experiment.h"

#include <algorithm>
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
#include "common/text.h"
#include "iolist/builders.h"
#include "iolist/event_store.h"
#include "iolist/pgbench.h"
#include "runner/rounds.h"
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

  struct Sample {
    double wall_us = 0, cpu_us = 0;
  };

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
         "build,append,pgbench,read",
         {},
         {},
         {"build", "append", "pgbench", "read"},
         "which benchmarks to run; pgbench: PostgreSQL's own load tool "
         "running the same append transaction, as a peer"},
        {"builders",
         ParamType::SubsetOf,
         all_builders,
         {},
         {},
         builders,
         "statement builders to compare"},
        {"events",
         ParamType::Int,
         "100",
         1,
         double(kMaxEventsPerStatement),
         {},
         "events per append and per read"},
        {"writers", ParamType::IntList, "1,10,100", 1, 200, {}, "concurrent writers, each a run"},
        {"readers", ParamType::IntList, "1,10,100", 1, 200, {}, "concurrent readers, each a run"},
        {"repetitions", ParamType::Int, "15", 1, 1000, {}, "measured repetitions per point"},
        {"warmup", ParamType::Int, "2", 0, 100, {}, "unmeasured repetitions before measuring"},
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
    const auto events = static_cast<std::size_t>(p.get_int("events"));
    const auto reps = static_cast<int>(p.get_int("repetitions"));
    const auto warmup = static_cast<int>(p.get_int("warmup"));
    const auto writers = p.get_int_list("writers");
    const auto readers = p.get_int_list("readers");
    const auto sizes = p.get_int_list("build_sizes");
    seed_ = static_cast<std::uint64_t>(p.get_int("seed"));

    // Progress: one step per measured configuration.
    total_steps_ = 0;
    done_steps_ = 0;
    if (has("build")) total_steps_ += sizes.size() * 2;
    if (has("append")) total_steps_ += writers.size() * static_cast<std::size_t>(reps + warmup);
    if (has("pgbench"))
      total_steps_ += writers.size() * static_cast<std::size_t>(reps + std::max(warmup, 1));
    if (has("read")) total_steps_ += readers.size() * static_cast<std::size_t>(reps + warmup) + 1;

    if (has("build")) run_build(ctx, sizes, reps);
    if (!has("append") && !has("read") && !has("pgbench")) {
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

    try {
      if (has("append"))
        run_append(ctx, pg, ids, builders, writers, events, reps, warmup, has("pgbench"));
      if (has("pgbench")) run_pgbench_peer(ctx, pg, ids, writers, events, reps, warmup);
      if (has("read")) run_read(ctx, pg, ids, builders, readers, events, reps, warmup);
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

  // Measures (writers × builders) with builders interleaved in every repetition (order rotated)
  // so drifts of a shared machine hit every builder alike. Publishes what it has on stop.
  void run_append(RunContext& ctx, const PgTarget& pg, EventIdAllocator& ids,
                  const std::vector<Builder>& builders, const std::vector<std::int64_t>& writers,
                  std::size_t events, int reps, int warmup, bool with_pgbench) {
    ctx.add_group(append_group(events, with_pgbench));
    for (auto n64 : writers) {
      const auto n = static_cast<std::size_t>(n64);
      ctx.progress(fraction(), "opening " + std::to_string(n) + " connections");
      ClientPool pool(n, pg, ids, ctx.stop_token());
      std::vector<std::vector<EventData>> batches;
      for (std::size_t w = 0; w < n; ++w) batches.push_back(make_events(events, seed_ + w));
      std::map<Builder, Samples> samples;
      std::uint64_t uuid_state = seed_ ^ (0x9e3779b97f4a7c15ULL * (n + 1));
      PointRounds rounds = point_rounds(ctx, builders, reps, warmup);
      auto publish = [&] {
        for (Builder b : builders)
          if (!samples[b].wall.empty()) {
            Point p = make_point(writers_label(n64, false), samples[b]);
            p.precision = rounds.precision();
            ctx.add_point("append", to_string(b), std::move(p));
          }
      };
      try {
        while (rounds.next()) {
          std::vector<double> round(builders.size());
          for (std::size_t k = 0; k < builders.size(); ++k) {
            ctx.check_stop();
            const std::size_t i = (k + static_cast<std::size_t>(rounds.round())) % builders.size();
            const Builder b = builders[i];
            std::vector<std::string> uuids;
            for (std::size_t w = 0; w < n; ++w) uuids.push_back(make_uuid(uuid_state));
            auto s = pool.run([&](std::size_t w, EventStore& store) {
              store.append_to_stream(uuids[w], 0, batches[w], b);
            });
            if (!rounds.warmup()) {
              samples[b].wall.push_back(s.wall_us);
              samples[b].cpu.push_back(s.cpu_us);
            }
            round[i] = s.wall_us;
          }
          rounds.record(round);
          step(ctx, "append, " + writers_label(n64, false) + ": " + rounds.progress_text());
        }
      } catch (...) {
        publish();
        throw;
      }
      publish();
    }
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
    // Why the builder hardly shows in appends here: the share of one single-writer append that
    // building its statement takes (both measured in this run, same number of events; not a
    // comparison, so no verdict).
    for (const char* b : {"interpolate", "iolist"}) {
      const Point* build = point("build_time", b, std::to_string(events));
      const Point* append = point("append", b, one);
      if (!build || !append) continue;
      std::vector<double> build_us;
      for (double ns : build->samples) build_us.push_back(ns / 1000.0);
      if (auto f = ratio_finding({std::string("append_1.build_share.") + b,
                                  "Single writer: share of one append spent building the "
                                  "statement (" +
                                      std::string(b) + ")",
                                  Better::Lower, ctx.threshold(), false, false},
                                 build_us, append->samples))
        ctx.add_finding(std::move(*f));
    }
  }

  std::uint64_t seed_ = 42;
  std::size_t total_steps_ = 0, done_steps_ = 0;
};

}  // namespace

std::unique_ptr<Experiment> make_iolist_experiment() {
  return std::make_unique<IoListExperiment>();
}

}  // namespace perflab
