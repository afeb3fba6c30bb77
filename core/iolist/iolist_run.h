#pragma once
// One IO-list run as its benchmarks share it: the server, the progress of its points and what was
// measured (which the findings read); its settings: iolist/settings.h. Internal to the experiment.
#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/open_loop_schedule.h"
#include "common/run.h"
#include "iolist/client_pool.h"
#include "iolist/event_store.h"
#include "iolist/pgbench.h"
#include "iolist/point_progress.h"
#include "iolist/settings.h"
#include "runner/experiment.h"
#include "runner/rounds.h"
#include "targets/postgres.h"
#include "targets/targets.h"

namespace perflab::iolist {

// Bytes of JSON per event of the payload sweep, at most.
inline constexpr std::size_t kMaxPayloadBytes = 16u << 20;

inline constexpr const char* kAsyncCommitSkipped =
    "synchronous_commit=off was not measured: the server is not one Perflab manages, and Perflab "
    "never changes the settings of a server it does not own.";

// "single writer", "10 concurrent writers", "single reader", ...
std::string writers_label(std::int64_t n, bool readers);
// The label with its first letter capitalised, as a finding's context: "Single writer".
std::string label_cap(std::string s);

// ", RTT 1 ms" for a relayed point's label; nothing for the direct connection.
std::string rtt_suffix(const std::string& ms);

// "1 KiB", "64 KiB", "1 MiB", "1500 B".
std::string format_bytes(std::size_t b);

struct Samples {
  std::vector<double> wall, cpu;
  std::vector<double> wait;  // the clients' threads waiting for a CPU (µs), where it was read
  // The machine's clock ticks over all CPUs during each operation, all and idle, where read.
  std::vector<double> machine_ticks, idle_ticks;
  void add(const ClientPoolSample& s);  // one operation of a client pool
};

// A point of the wall samples, with the median CPU as its figure "cpu".
Point make_point(std::string label, const Samples& s);

// What one append variant sends: builder, transport, synchronous commit; its series' name.
struct Variant {
  AppendOptions options;
  std::string series;
};

std::string variant_series(const AppendOptions& o);

// One variant's appends at one writer count: the pool's samples (wall from release to the last
// writer done, the writers' CPU) and where each writer's time went, per repetition: the
// phases' times averaged over the writers.
struct AppendSamples {
  Samples total;
  std::array<std::vector<double>, kPhases> phase_wall_us, phase_cpu_us;
  std::vector<double> writer_wall_us;  // all phases of one writer's append, mean over writers
  std::vector<double> server_cpu_us;   // the server's backend CPU per append (local server)
  std::size_t client_threads = 0;      // the OS threads that drove the writers

  void add(const ClientPoolSample& s, const std::vector<AppendTiming>& timings, double server_us);
  const std::vector<double>& wall(Phase p) const {
    return phase_wall_us[static_cast<std::size_t>(p)];
  }
  const std::vector<double>& cpu(Phase p) const {
    return phase_cpu_us[static_cast<std::size_t>(p)];
  }
  // The median share of the writers' append time that phase p took.
  double share(Phase p) const;
  // The sum of the medians of `phases`' times (µs): the height of the breakdown's stack.
  template <std::size_t N>
  double median_sum(const Phase (&phases)[N]) const {
    double sum = 0;
    for (Phase ph : phases)
      if (!wall(ph).empty()) sum += summarize(wall(ph)).median;
    return sum;
  }
};

// The pooled appends beside their times (pooled.cpp): the server's backends serving N clients
// and, on a server of this machine, their private memory; the prepared builder's appends
// through PgBouncer; what was not measured, and why.
struct ServerUse {
  std::int64_t backends = 0;
  std::optional<double> private_mib;  // absent on a server Perflab does not run here
  std::optional<double> pooler_mib;   // through PgBouncer: PgBouncer's own private memory
};
struct PooledMeasured {
  std::map<std::pair<bool, std::int64_t>, ServerUse> use;  // (through PgBouncer, clients)
  std::int64_t prepared_appends = 0, prepared_failed = 0, prepared_clients = 0;
  std::string prepared_error;  // the first failure's message
  std::string pooler;          // "PgBouncer 1.18.0, transaction mode, 20 server connections"
  std::string driver;          // how the clients were driven (pool_driver), in words
  std::vector<std::string> notes;
};

// One read point's samples (wall and the readers' CPU) and the threads that drove the readers.
struct ReadSamples {
  Samples total;
  std::size_t client_threads = 0;
};

// What the run measured, by (series, label), for the findings.
struct IoListMeasured {
  std::map<std::pair<std::string, std::string>, AppendSamples> appends;
  std::map<std::pair<std::string, std::string>, ReadSamples> reads;
  // The allocations per append of the client libraries, by (library, builder).
  std::map<std::pair<std::string, std::string>, std::vector<double>> client_allocs;
  PooledMeasured pooled;

  // The samples of a point, or null when it was not measured.
  const AppendSamples* find(const std::string& series, const std::string& label) const;
};

// One run: its settings, its server once connected, its progress and what it measured.
class IoListRun {
 public:
  explicit IoListRun(RunContext& ctx);  // plans the points of the settings
  IoListRun(const IoListRun&) = delete;
  IoListRun& operator=(const IoListRun&) = delete;

  RunContext& ctx;
  const IoListSettings settings;
  IoListMeasured measured;

  // Connects to PostgreSQL, resets (or checks) Perflab's schema and adds the synchronous_commit
  // off variant where the server is Perflab's own.
  void connect();

  const PgTarget& pg() const { return pg_; }
  EventIdAllocator& ids() { return *ids_; }
  // The append variants: transports × builders, and synchronous_commit off once connected.
  const std::vector<Variant>& variants() const { return variants_; }
  bool async_skipped() const { return async_skipped_; }  // off asked for on another's server
  const std::string& server_host() const { return server_host_; }  // for the relay
  int server_port() const { return server_port_; }
  std::uint64_t& uuid_state() { return uuid_state_; }  // new streams' uuids, for the whole run

  // Progress in proportion to time (iolist/point_progress.h): a point begins (the fraction
  // done is returned), then advances step by step, each reported as `what`.
  double begin_point(PointKind kind, std::int64_t n = 0, const std::string& tag = {});
  double fraction() const { return progress_.fraction(); }
  void step(const std::string& what);
  // One more round of the current point, as far as `rounds` says it is (PointRounds::done).
  void step(const PointRounds& rounds, const std::string& what);

 private:
  PgTarget pg_;
  std::optional<PgConnection> admin_;
  std::optional<EventIdAllocator> ids_;
  std::vector<Variant> variants_;
  bool async_skipped_ = false;
  std::string server_host_;
  int server_port_ = 0;
  std::uint64_t uuid_state_ = 0;
  PointProgress progress_;
  // Measuring adaptively within a budget: each point's forecast at its minimum rounds, to
  // foretell the points not begun as the run's budget will share it (foretell_shares).
  std::vector<double> min_forecast_s_;
  void foretell_shares(std::size_t from);
};

// The points a run of these settings measures, in its order, each with its steps and the
// seconds it is foretold to take, into `progress`; `variants`: the append variants.
void plan_points(const IoListSettings& s, std::size_t variants, PointProgress& progress);

// The benchmarks, one file each; every one publishes what it measured also when a stop or a
// failure ends it.
void run_build(IoListRun& r);   // build_bench.cpp: building one INSERT, no server
void run_append(IoListRun& r);  // appends.cpp: writers × variants, direct and through the relay
void run_relay_overhead(IoListRun& r);  // relay_overhead.cpp: the relay's own cost
void run_pgbench_peer(IoListRun& r);    // pgbench_peer.cpp: pgbench running the same append
void run_read(IoListRun& r);            // reads.cpp
void run_payload(IoListRun& r);         // payload_sweep.cpp: single-writer appends by event size
void run_client(IoListRun& r);          // client_libraries.cpp: libpq against libpqxx
void run_pooled(IoListRun& r);          // pooled.cpp: N clients direct and through PgBouncer
void run_standby_reads(IoListRun& r);   // standby_reads.cpp: readers on the primary vs standbys
void run_standby_lag(IoListRun& r);     // standby_lag.cpp: read-your-writes lag on a standby
void run_append_latency(IoListRun& r);  // append_latency.cpp: open loop at a fixed rate

// pgbench_peer.cpp: what every pgbench invocation of a run shares; pgbench and the append
// transaction as its script, or nothing when the peer is left out (not installed, or the schema's
// name cannot go into a script): its points are then skipped by the next one begun.
struct PgbenchPeer {
  std::filesystem::path exe;
  PgbenchScript script;
};
std::optional<PgbenchPeer> pgbench_peer(IoListRun& r);

// standby_reads.cpp: "1 hot standby", "2 hot standbys"; the run's standbys, started (managed) or
// checked (configured) on first use.
std::string standbys_series(std::size_t n);
std::vector<PgTarget> start_standbys(IoListRun& r);

// Ratios of two series of a point that its findings state, (subject, baseline): measuring to
// verdicts, the point's rounds go on until each has one (a series not among the point's
// variants is skipped). None: rounds to the run's precision, else exactly `repetitions`.
using ComparedSeries = std::vector<std::pair<std::string, std::string>>;

// appends.cpp: the append chart (with pgbench, its description says what that series is and how
// it differs); for the benchmarks that append: one append per writer of the pool, and the rounds
// of one point (every variant once per round, order rotated; its precision into `precision`).
Group append_group(std::size_t events, bool with_pgbench);
ClientPoolSample append_once(IoListRun& r, ClientDriver& pool, const AppendOptions& o,
                             const std::vector<std::vector<EventData>>& batches,
                             std::vector<AppendTiming>& timings);
void measure_appends(IoListRun& r, ClientDriver& pool, bool local_server,
                     const std::vector<Variant>& variants,
                     const std::vector<std::vector<EventData>>& batches, const std::string& label,
                     int reps, int warmup, const ComparedSeries& compared,
                     std::vector<AppendSamples>& samples, std::optional<PointPrecision>& precision);
// The same with a pool per variant (pools[v] for variants[v], all of one size), or one pool for
// all; the server's CPU (on a local server) is the sum over the distinct pools' backends.
void measure_appends(IoListRun& r, std::span<ClientDriver* const> pools, bool local_server,
                     const std::vector<Variant>& variants,
                     const std::vector<std::vector<EventData>>& batches, const std::string& label,
                     int reps, int warmup, const ComparedSeries& compared,
                     std::vector<AppendSamples>& samples, std::optional<PointPrecision>& precision);

// client_drivers.cpp: the N clients of a point driven as pool_driver says (client i on
// targets[i % targets.size()]); an append point's drivers, drivers.of_variant[v] for variants[v]:
// pool_driver's for the round-trip transport and, with pool_driver=async, a thread per writer for
// the pipeline transport (the event-driven pool sends no pipeline); the words for a driver.
std::unique_ptr<ClientDriver> make_clients(IoListRun& r, std::size_t n,
                                           const std::vector<PgTarget>& targets);
struct WriterDrivers {
  std::vector<std::unique_ptr<ClientDriver>> owned;
  std::vector<ClientDriver*> of_variant;
};
WriterDrivers writer_drivers(IoListRun& r, std::size_t n, const PgTarget& target,
                             const std::vector<Variant>& variants);
std::string driver_text(bool async);
// The client's own CPU beside a point of n clients: the machine's cores; the clients' CPU time as
// a share of the machine's during each operation, cpu / (wall x cores); the point's extras
// client_cpu_per_op_us, client_machine_share_pct, client_threads, client_cpu_wait_pct (the
// share of the threads' time during an operation that they waited for a CPU: high, a loaded
// machine starves the client although its own share is small) and machine_idle_pct (the share
// of the machine's CPU time during the operations with no thread ready to run: a client that
// waits for a CPU waits while every CPU is busy, so what its waiting could cost an operation
// shows here); and its findings, the CPU per operation (when spec.cpu_id is not empty), the
// share (near 100%, the client, not the server, could set the time) and the idle share (when
// spec.idle_id is not empty and every operation spans kIdleMinTicks).
double machine_cores();
std::vector<double> machine_shares(const Samples& total);
void add_client_use(Point& p, const Samples& total, std::size_t clients, std::size_t threads);
// The clock ticks (all CPUs) an operation spans at least for its idle share to be a finding: a
// tick is 10 ms of one CPU, so 50 of them put the share in steps of at most 2%.
inline constexpr double kIdleMinTicks = 50;
struct ClientCpuSpec {
  std::string cpu_id, share_id, context, group;
  std::string op;            // "append", "read"
  std::string idle_id = "";  // the machine's idle share during the operations
};
void client_cpu_findings(RunContext& ctx, const ClientCpuSpec& spec, std::int64_t n,
                         const Samples& total);

// breakdown.cpp: where an append's time goes, a stacked group of the round-trip phases.
Group breakdown_group(std::size_t events);
void publish_breakdown(RunContext& ctx, Builder builder, std::int64_t writers,
                       const std::string& rtt, const AppendSamples& s);

// findings.cpp: every finding of the run, from what it measured.
void add_findings(RunContext& ctx, const IoListSettings& settings, const IoListMeasured& measured);

// pooled.cpp: the pooled appends' findings (pooled vs direct at every client count, the
// backends and their memory, the prepared builder through PgBouncer, what was skipped).
void pooled_findings(RunContext& ctx, const IoListSettings& settings, const IoListMeasured& m);

// article.cpp: the published figures.
Article iolist_article();
// The published ratio after / before for appends (read false) or reads with `clients`.
std::optional<double> published_ratio(bool read, std::int64_t clients);

}  // namespace perflab::iolist
