// The IO-list experiment's pooled appends: N clients appending directly (a backend each) and
// through a managed PgBouncer in transaction mode (a few backends shared), round by round; the
// server's backends and their memory beside the times; the prepared builder through PgBouncer.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include "common/figure_format.h"
#include "common/process_memory.h"
#include "iolist/iolist_run.h"
#include "targets/pg_backends.h"

namespace perflab::iolist {

namespace {

// Client connections kept free besides the pool: Perflab's own admin connections.
constexpr std::int64_t kSpareConnections = 3;
// How long the backends of a point's closed connections may take to exit before the next point
// counts the server's free connections.
constexpr std::chrono::milliseconds kBackendExitWait{10'000};
// The prepared builder through PgBouncer: the most clients of the run, each appending this many
// times. With fewer clients than the pool, each may keep a backend of its own and never fail;
// with more, a client's PREPARE meets a backend where another client's already is.
constexpr int kProbeRounds = 3;

std::string pooled_series(Builder b, bool pooled) {
  return std::string(to_string(b)) + (pooled ? " pooled" : " direct");
}

std::string pooled_label(std::int64_t clients) {
  return "pooled " + std::to_string(clients);
}

std::string clients_text(std::int64_t n) {
  return n == 1 ? "single client" : std::to_string(n) + " concurrent clients";
}

// The builders measured through PgBouncer: all but prepared (named statements live on one
// backend; the probe below reports what happens to them).
std::vector<Builder> pooled_builders(const IoListSettings& set) {
  std::vector<Builder> out;
  for (Builder b : set.builders)
    if (b != Builder::Prepared) out.push_back(b);
  return out;
}

Group pooled_group(const IoListSettings& set, const std::string& pooler) {
  Group g{"pooled",
          "Append " + std::to_string(set.events) + " events: direct vs through PgBouncer",
          "us/op",
          "concurrent clients",
          true,
          true,
          "Time per append: the wall time for N clients to append one batch each at once, "
          "divided by N. Direct: N connections, each a backend of the server (a process with "
          "its own memory). Pooled: the same N clients connect to " +
              pooler +
              ": a client holds a backend only for its transaction, the others wait in "
              "PgBouncer. Beside it: the server's backends and, on a server of this machine, "
              "their private memory, in charts of their own. Transaction mode "
              "keeps no session state: a SET, a named prepared statement or a temporary table "
              "stays on the backend that ran it, and the client's next transaction may run on "
              "another; the prepared builder is therefore not measured here (see its finding).",
          true};
  g.log_x = true;
  g.log_y = true;
  g.interleaved = true;
  const std::vector<Builder> builders = pooled_builders(set);
  const Builder first =
      std::find(builders.begin(), builders.end(), Builder::IoList) != builders.end()
          ? Builder::IoList
          : builders.front();
  g.baseline_series = pooled_series(first, false);
  g.first_series = {pooled_series(first, false), pooled_series(first, true)};
  return g;
}

// What the server pays for N clients, direct and pooled: its backends, and their memory.
void add_server_use_groups(RunContext& ctx, bool local) {
  Group backends{"pooled_backends",
                 "Server backends serving N clients",
                 "backends",
                 "concurrent clients",
                 true,
                 true,
                 "The server's backends (processes) serving the clients of the pooled appends "
                 "once every client has appended: one per client connected directly; through "
                 "PgBouncer, the server connections it opened, at most its pool.",
                 true};
  backends.log_x = true;
  backends.y_label = "backends";
  ctx.add_group(backends);
  if (!local) return;
  Group memory{"pooled_memory",
               "Private memory of those backends",
               "MiB",
               "concurrent clients",
               true,
               true,
               "The sum of the backends' private memory (Private_Clean + Private_Dirty in "
               "/proc/<pid>/smaps_rollup: what each process holds for itself, the shared "
               "buffers left out), read once every client has appended. PgBouncer's own is "
               "in the point's tooltip (time chart) and the findings.",
               true};
  memory.log_x = true;
  memory.y_label = "MiB";
  ctx.add_group(memory);
}

// One exact figure as a point of a numeric group.
void add_count(RunContext& ctx, const std::string& group, bool through, std::int64_t clients,
               double value) {
  Point p;
  p.label = std::to_string(clients);
  p.x = double(clients);
  p.samples = {value};
  ctx.add_point(group, through ? "pooled" : "direct", std::move(p));
}

// Client connections the server admits now, less what PgBouncer may still open and Perflab's
// own spares; with the reason in words for a note.
struct Room {
  std::int64_t free = 0, max_connections = 0, reserved = 0, in_use = 0;
};
Room connection_room(PgConnection& admin, int pool_size) {
  PgResult res = admin.exec(
      "SELECT current_setting('max_connections')::int, "
      "current_setting('superuser_reserved_connections')::int, "
      "(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')");
  Room r;
  r.max_connections = std::stoll(std::string(res.value(0, 0)));
  r.reserved = std::stoll(std::string(res.value(0, 1)));
  r.in_use = std::stoll(std::string(res.value(0, 2)));
  r.free = r.max_connections - r.reserved - r.in_use - pool_size - kSpareConnections;
  return r;
}

// The backends serving the clients (distinct pids) and, when the server runs here, their
// private memory.
ServerUse server_use(const std::vector<int>& pids, bool local) {
  ServerUse u;
  const std::set<int> distinct(pids.begin(), pids.end());
  u.backends = static_cast<std::int64_t>(distinct.size());
  if (!local) return u;
  double bytes = 0;
  for (int pid : distinct) {
    const std::int64_t b = process_private_bytes(pid);
    if (b < 0) return u;  // a backend gone or unreadable: no figure rather than a partial sum
    bytes += double(b);
  }
  u.private_mib = bytes / double(1u << 20);
  return u;
}

// The prepared builder through PgBouncer: what happens, counted, with the first failure.
void probe_prepared(IoListRun& r, const PgTarget& pooled, std::size_t clients) {
  RunContext& ctx = r.ctx;
  PooledMeasured& m = r.measured.pooled;
  ctx.progress(r.begin_point(PointKind::Pooled, 0, "prepared"),
               "prepared builder through PgBouncer");
  ClientPool pool(clients, pooled, r.ids(), ctx.stop_token());
  std::vector<std::vector<EventData>> batches;
  for (std::size_t w = 0; w < clients; ++w)
    batches.push_back(make_events(r.settings.events, r.settings.seed + w));
  std::atomic<std::int64_t> failed{0};
  std::mutex mu;
  for (int round = 0; round < kProbeRounds; ++round) {
    ctx.check_stop();
    std::vector<std::string> uuids;
    for (std::size_t w = 0; w < clients; ++w) uuids.push_back(make_uuid(r.uuid_state()));
    pool.run([&](std::size_t w, EventStore& store) {
      try {
        store.append_to_stream(uuids[w], 0, batches[w], AppendOptions{Builder::Prepared});
      } catch (const PgError& e) {
        ++failed;
        std::lock_guard lock(mu);
        // The server's words, without the target PgError names first.
        const std::string what = e.what();
        const std::size_t at = what.find("ERROR:");
        if (m.prepared_error.empty())
          m.prepared_error = at == std::string::npos ? what : what.substr(at);
      }
    });
    m.prepared_appends += static_cast<std::int64_t>(clients);
    m.prepared_clients = static_cast<std::int64_t>(clients);
  }
  m.prepared_failed = failed;
  r.step("prepared builder through PgBouncer");
}

}  // namespace

void run_pooled(IoListRun& r) {
  RunContext& ctx = r.ctx;
  const IoListSettings& set = r.settings;
  const PgTarget pooled = ctx.targets().pg_pooler(ctx.stop_token(), set.pool_size);
  const ManagedPgBouncer& bouncer = *ctx.targets().managed_pgbouncer();
  PooledMeasured& m = r.measured.pooled;
  const int pool_size = bouncer.options().default_pool_size;  // set.pool_size
  m.pooler = bouncer.version() + " in transaction mode with " + std::to_string(pool_size) +
             " server connections";
  m.driver = driver_text(set.pool_async);
  const std::vector<Builder> builders = pooled_builders(set);
  // The managed server runs here: its backends' memory can be read.
  const bool local = r.pg().managed;
  if (!builders.empty()) {
    ctx.add_group(pooled_group(set, m.pooler));
    add_server_use_groups(ctx, local);
  }
  PgConnection admin = r.pg().connect(ctx.stop_token());
  std::vector<int> closed;  // the backends of the last point's direct connections
  for (auto n64 : builders.empty() ? std::vector<std::int64_t>{} : set.pool_clients) {
    const auto n = static_cast<std::size_t>(n64);
    // A pool's connections, closed, leave their backends exiting for a moment: counted as in
    // use, 100 of them left the next point of 1,000 clients no room for its direct connections.
    pg_await_backends_exit(admin, closed, kBackendExitWait, ctx.stop_token());
    ctx.check_stop();
    const Room room = connection_room(admin, pool_size);
    const bool direct = n64 <= room.free;
    if (!direct)
      m.notes.push_back(
          "The direct point at " + clients_text(n64) + " was not measured: the server admits " +
          std::to_string(room.max_connections) + " connections (max_connections, " +
          std::to_string(room.reserved) + " reserved for superusers), " +
          std::to_string(room.in_use) + " are in use, and " + std::to_string(pool_size) +
          " are PgBouncer's. Perflab never changes the settings of a server it does not own "
          "(a managed server it starts has room for them).");
    std::vector<Variant> variants;
    for (Builder b : builders) {
      if (direct) variants.push_back({AppendOptions{b}, pooled_series(b, false)});
      variants.push_back({AppendOptions{b}, pooled_series(b, true)});
    }
    ctx.progress(r.begin_point(PointKind::Pooled, n64),
                 "opening " + std::to_string(direct ? 2 * n : n) + " connections");
    std::unique_ptr<ClientDriver> direct_pool;
    if (direct) direct_pool = make_clients(r, n, {r.pg()});
    const std::unique_ptr<ClientDriver> pooled_pool = make_clients(r, n, {pooled});
    std::vector<ClientDriver*> pools;
    for (std::size_t v = 0; v < variants.size(); ++v)
      pools.push_back(direct && v % 2 == 0 ? direct_pool.get() : pooled_pool.get());
    std::vector<std::vector<EventData>> batches;
    for (std::size_t w = 0; w < n; ++w) batches.push_back(make_events(set.events, set.seed + w));
    std::vector<AppendSamples> samples(variants.size());
    std::optional<PointPrecision> precision;
    auto publish = [&] {
      for (std::size_t v = 0; v < variants.size(); ++v) {
        if (samples[v].total.wall.empty()) continue;
        r.measured.appends[{variants[v].series, pooled_label(n64)}] = samples[v];
        Samples per_append = samples[v].total;  // the pool's wall and CPU, per client
        for (double& w : per_append.wall) w /= double(n);
        for (double& c : per_append.cpu) c /= double(n);
        Point p = make_point(std::to_string(n64), per_append);
        p.x = double(n64);
        p.precision = precision;
        if (p.precision) p.precision->rounds = static_cast<int>(samples[v].total.wall.size());
        add_client_use(p, samples[v].total, n, pools[v]->threads());
        const bool through = pools[v] == pooled_pool.get();
        if (auto it = m.use.find({through, n64}); it != m.use.end()) {
          p.extra["backends"] = double(it->second.backends);
          if (it->second.private_mib) p.extra["backends_private_mib"] = *it->second.private_mib;
          if (it->second.pooler_mib) p.extra["pgbouncer_private_mib"] = *it->second.pooler_mib;
        }
        ctx.add_point("pooled", variants[v].series, std::move(p));
      }
    };
    publish_after(publish, [&] {
      ComparedSeries compared;  // through PgBouncer / direct, per builder (the findings')
      for (Builder b : builders)
        compared.emplace_back(pooled_series(b, true), pooled_series(b, false));
      measure_appends(r, pools, false, variants, batches, "pooled, " + clients_text(n64), set.reps,
                      set.warmup, compared, samples, precision);
      // After the rounds, every connection has had its backend (PgBouncer's opened on demand).
      if (direct) {
        closed = direct_pool->backend_pids();
        m.use[{false, n64}] = server_use(closed, local);
      }
      ServerUse through = server_use(bouncer.server_pids(), local);
      if (const std::int64_t b = process_private_bytes(bouncer.pid()); b >= 0)
        through.pooler_mib = double(b) / double(1u << 20);
      m.use[{true, n64}] = through;
      for (const auto& [key, use] : m.use) {
        if (key.second != n64) continue;
        add_count(ctx, "pooled_backends", key.first, n64, double(use.backends));
        if (use.private_mib) add_count(ctx, "pooled_memory", key.first, n64, *use.private_mib);
      }
    });
  }
  const std::int64_t most = *std::max_element(set.pool_clients.begin(), set.pool_clients.end());
  if (std::find(set.builders.begin(), set.builders.end(), Builder::Prepared) != set.builders.end())
    probe_prepared(r, pooled, static_cast<std::size_t>(most));
}

void pooled_findings(RunContext& ctx, const IoListSettings& set, const IoListMeasured& m) {
  const PooledMeasured& pm = m.pooled;
  for (auto n : set.pool_clients) {
    const std::string id = "pooled_" + std::to_string(n);
    for (Builder b : pooled_builders(set)) {
      const AppendSamples* through = m.find(pooled_series(b, true), pooled_label(n));
      const AppendSamples* direct = m.find(pooled_series(b, false), pooled_label(n));
      if (!through || !direct) continue;
      ComparisonSpec spec{
          id + ".pooled_vs_direct." + to_string(b),
          "Append, " + clients_text(n) + ", " + to_string(b),
          {"through PgBouncer", "direct", "time per append", Quantity::Time, Better::Lower},
          true};
      spec.group = "pooled";
      ctx.add_comparison(spec, through->total.wall, direct->total.wall);
      for (const bool via : {false, true}) {
        const std::string how = via ? "pooled" : "direct";
        client_cpu_findings(ctx,
                            {id + ".client_cpu." + how + "." + to_string(b),
                             id + ".client_share." + how + "." + to_string(b),
                             "Append, " + clients_text(n) + ", " + to_string(b) +
                                 (via ? ", through PgBouncer" : ", direct"),
                             "pooled", "append", id + ".machine_idle." + how + "." + to_string(b)},
                            n, (via ? *through : *direct).total);
      }
    }
    for (bool through : {false, true}) {
      auto it = pm.use.find({through, n});
      if (it == pm.use.end()) continue;
      const std::string how = through ? "pooled" : "direct";
      const std::string context =
          clients_text(n) + ", " + (through ? "through PgBouncer" : "direct");
      ctx.add_finding(
          figure_finding({id + ".backends." + how, context, "the server's backends serving them",
                          "backends", "pooled_backends"},
                         double(it->second.backends)));
      if (it->second.private_mib)
        ctx.add_finding(figure_finding({id + ".backends_memory." + how, context,
                                        "private memory of those backends", "MiB", "pooled_memory"},
                                       *it->second.private_mib));
      if (it->second.pooler_mib)
        ctx.add_finding(
            figure_finding({id + ".pgbouncer_memory", context, "private memory of PgBouncer itself",
                            "MiB", "pooled_memory"},
                           *it->second.pooler_mib));
    }
  }
  if (!pm.driver.empty())
    ctx.add_finding(note_finding({"pooled.driver", "", pm.driver, "", "pooled"}));
  for (std::size_t i = 0; i < pm.notes.size(); ++i)
    ctx.add_finding(
        note_finding({"pooled.skipped." + std::to_string(i), "", pm.notes[i], "", "pooled"}));
  if (pm.prepared_appends > 0) {
    const std::string context = "Prepared builder through " + pm.pooler;
    ctx.add_finding(
        figure_finding({"pooled.prepared.failed", context,
                        "appends that failed, of " + std::to_string(pm.prepared_appends) + " (" +
                            std::to_string(pm.prepared_clients) + " clients at once)",
                        "appends", "pooled"},
                       double(pm.prepared_failed)));
    if (!pm.prepared_error.empty())
      ctx.add_finding(note_finding({"pooled.prepared.error", context,
                                    "the first failure: " + pm.prepared_error, "", "pooled"}));
  }
}

}  // namespace perflab::iolist
