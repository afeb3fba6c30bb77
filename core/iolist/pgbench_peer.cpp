// The IO-list experiment's peer: pgbench, PostgreSQL's own load tool, running the same append
// transaction (iolist/pgbench.h) with N clients, one invocation per sample.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>

#include "iolist/iolist_run.h"
#include "iolist/pgbench.h"
#include "targets/owned_folder.h"
#include "targets/pg_text.h"
#include "targets/server_binary.h"

namespace perflab::iolist {

namespace {

// Transactions per pgbench client and invocation, at least: with fewer, the clients' ramp-up and
// uneven finish weigh on pgbench's latency average (measured: 100 clients at -t 5 reported 45%
// more than at -t 20).
constexpr std::int64_t kMinPgbenchTransactions = 10;

}  // namespace

std::optional<PgbenchPeer> pgbench_peer(IoListRun& r) {
  try {
    return PgbenchPeer{
        find_server_binary("pgbench"),
        make_pgbench_script(r.pg().schema, make_events(r.settings.events, r.settings.seed),
                            pg_timestamp_text(unix_us_now()))};
  } catch (const std::exception& e) {
    r.ctx.progress(r.fraction(), std::string("skipping the pgbench peer: ") + e.what());
    return std::nullopt;
  }
}

namespace {

// One writer count: an unmeasured invocation calibrates the transactions per client, then
// warm-up and measured invocations, one sample each. What was measured is published also
// when a stop or a failure ends it.
void pgbench_point(IoListRun& r, const PgbenchPeer& peer, const std::filesystem::path& work_dir,
                   std::int64_t n64) {
  RunContext& ctx = r.ctx;
  const PgTarget& pg = r.pg();
  const std::size_t events = r.settings.events;
  const int reps = r.settings.pgbench_reps, warmup = r.settings.warmup;
  const std::string label = writers_label(n64, false);
  const double target_us = double(r.settings.pgbench_ms) * 1000.0;
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
    inv.id_base = r.ids().take(n64 * t * static_cast<std::int64_t>(events));
    auto report = run_pgbench(inv, peer.script, ctx.stop_token());
    if (!report) {
      ctx.check_stop();
      throw Cancelled{};
    }
    committed += report->processed;
    return *report;
  };
  publish_after(publish, [&] {
    ctx.progress(r.begin_point(PointKind::Pgbench, n64), "pgbench, " + label + ": calibrating");
    const PgbenchReport cal = once(2);
    latency_ms = cal.latency_avg_ms;
    r.step("pgbench, " + label + ": calibrated");
    per_client = std::clamp<std::int64_t>(
        std::llround(target_us / std::max(1.0, cal.latency_avg_ms * 1000.0)),
        kMinPgbenchTransactions, 1'000'000);
    const int total = std::max(warmup, 1) - 1 + reps;
    for (int i = 0; i < total; ++i) {
      const PgbenchReport rep = once(per_client);
      if (i >= total - reps) {
        s.wall.push_back(rep.latency_avg_ms * 1000.0);
        tps.push_back(rep.tps);
      }
      r.step("pgbench, " + label + ": repetition " + std::to_string(i + 2) + "/" +
             std::to_string(total + 1));
    }
  });
}

}  // namespace

// Its latency average (per-transaction time with N clients running concurrently) is the
// quantity of Perflab's append samples. Event ids come from the run's allocator, so they never
// collide with Perflab's writers.
void run_pgbench_peer(IoListRun& r) {
  const IoListSettings& set = r.settings;
  r.ctx.add_group(append_group(set.events, true));
  const std::optional<PgbenchPeer> peer = pgbench_peer(r);
  if (!peer) return;
  r.ctx.progress(r.fraction(), "pgbench peer: " + pgbench_version(peer->exe));
  TempFolder dir("perflab-pgbench-");
  for (auto n64 : set.writers) pgbench_point(r, *peer, dir.path(), n64);
}

}  // namespace perflab::iolist
