// The IO-list experiment's read-your-writes lag: 1, 10, 100 concurrent writers append on the
// primary, and each then reads its stream on a hot standby until the append is there; with
// asynchronous replication, and with synchronous_commit = remote_apply, which removes the lag
// and makes the append wait for it.
#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>

#include "common/clock.h"
#include "common/confidence.h"
#include "common/latency_percentiles.h"
#include "common/latency_recorder.h"
#include "iolist/iolist_run.h"
#include "iolist/read_your_writes.h"
#include "targets/replication.h"

namespace perflab::iolist {

namespace {

// Lags measured per round and point: at least this many appends, so that a round's p99 is a
// percentile, not its largest lag.
constexpr std::size_t kLagsPerRound = 100;

// How commits wait: asynchronous replication (the commit waits for the primary's own WAL flush
// only), or remote_apply (until the standbys have applied it).
struct LagVariant {
  std::string name;
  std::string set_sql;  // run in each writer's session before its appends; may be empty
};

// One variant's figures at one writer count, one entry per measured round: the round's lags
// (a latency recorder) and its mean time per append (µs).
struct LagSamples {
  std::vector<LatencyRecorder> lags;
  std::vector<double> append_us;
};

// The percentiles a lag chart and its findings show (kLatencyQuantiles' first three).
constexpr std::size_t kLagQuantiles = 3;

// Each round's lag at kLatencyQuantiles[q], in ms.
std::vector<double> round_lags_ms(const LagSamples& s, std::size_t q) {
  std::vector<double> out;
  for (const auto& r : s.lags)
    out.push_back(double(r.value_at_quantile_ns(kLatencyQuantiles[q])) / 1e6);
  return out;
}

Estimate in_ms(Estimate e) {
  e.value /= 1e6, e.lo /= 1e6, e.hi /= 1e6;
  return e;
}

Group lag_group(std::size_t standbys, bool remote_apply) {
  Group g{
      "standby_lag",
      "Read-your-writes lag on " + standbys_series(standbys),
      "ms",
      "",
      false,
      true,
      "Time from an append's COMMIT returning on the primary until a read of its stream on a "
      "hot standby returns it, by concurrent writers each appending and then polling (every " +
          std::to_string(StandbyProbe::kPause.count()) +
          " µs, one read's round trip included): the percentiles of each round's lags (a latency "
          "recorder), the median over rounds. Asynchronous replication: the standby replays the "
          "WAL after the commit, so a read right after a write may not see it (a stale read)."};
  if (remote_apply)
    g.description +=
        " remote_apply: the commit returns once every standby has applied it, so the first "
        "read sees it.";
  g.log_y = true;
  g.first_series = {"asynchronous p50", "asynchronous p99"};
  if (remote_apply) g.first_series.push_back("remote_apply p99");
  return g;
}

Group append_cost_group(std::size_t events) {
  Group g{"standby_append",
          "Append " + std::to_string(events) + " events with hot standbys",
          "us/op",
          "",
          false,
          true,
          "Time per append (one writer's mean in a round) on the primary while the standbys "
          "stream: asynchronous replication against synchronous_commit = remote_apply, whose "
          "COMMIT waits until the standbys have applied the append."};
  g.baseline_series = "asynchronous";
  g.interleaved = true;
  return g;
}

void publish_lag(RunContext& ctx, const std::string& variant, const std::string& label,
                 const LagSamples& s, const std::optional<PointPrecision>& precision) {
  if (s.lags.empty()) return;
  for (std::size_t q = 0; q < kLagQuantiles; ++q) {
    Point p;
    p.label = label;
    p.samples = round_lags_ms(s, q);
    p.precision = precision;
    if (q + 1 == kLagQuantiles)
      p.extra["max"] = summarize(round_lags_ms(s, kLatencyQuantiles.size() - 1)).median;
    ctx.add_point("standby_lag", variant + " " + latency_quantile_label(kLatencyQuantiles[q]),
                  std::move(p));
  }
  Point a;
  a.label = label;
  a.samples = s.append_us;
  a.precision = precision;
  ctx.add_point("standby_append", variant, std::move(a));
}

void lag_findings(RunContext& ctx, std::int64_t writers, const std::vector<LagVariant>& variants,
                  const std::vector<LagSamples>& samples) {
  const std::string label = writers_label(writers, false);
  const std::string id = "standby_lag_" + std::to_string(writers);
  for (std::size_t v = 0; v < variants.size(); ++v) {
    if (samples[v].lags.empty()) continue;
    const auto percentiles = latency_percentiles(samples[v].lags);
    for (std::size_t q = 0; q < kLagQuantiles; ++q) {
      const std::string name = latency_quantile_label(kLatencyQuantiles[q]);
      const Estimate e = in_ms(percentiles[q].across_rounds);
      ctx.add_finding(figure_finding({id + "." + name + "." + variants[v].name, label_cap(label),
                                      name + " of the read-your-writes lag on a standby, " +
                                          variants[v].name + " (median over rounds)",
                                      "ms", "standby_lag"},
                                     e.value, e));
    }
  }
  if (samples.size() == 2 && !samples[1].append_us.empty()) {
    ComparisonSpec spec{"standby_append_" + std::to_string(writers) + ".remote_apply_vs_async",
                        label_cap(label),
                        {"synchronous_commit remote_apply", "asynchronous replication",
                         "time per append", Quantity::Time, Better::Lower},
                        true};
    spec.group = "standby_append";
    ctx.add_comparison(spec, samples[1].append_us, samples[0].append_us);
  }
}

// Each writer's appends of one round, then their lags: what the pool's workers fill.
struct WriterRound {
  LatencyRecorder lags;
  std::vector<double> append_us;
};

}  // namespace

void run_standby_lag(IoListRun& r) {
  RunContext& ctx = r.ctx;
  const IoListSettings& set = r.settings;
  const std::vector<PgTarget> standbys = start_standbys(r);
  // remote_apply where commits can wait for the standbys: on a managed primary Perflab makes
  // them synchronous for this benchmark (and resets it); on another's server only where its
  // owner already has (Perflab never reconfigures it).
  std::optional<SynchronousStandbys> synchronous;
  std::vector<LagVariant> variants;
  std::string skipped;
  if (r.pg().managed) {
    ctx.progress(r.fraction(), "making the standbys synchronous for remote_apply");
    // Its superuser reconfigures it (ALTER SYSTEM); the measuring role only sets its sessions'
    // synchronous_commit.
    const ManagedPostgres* primary = ctx.targets().managed_postgres();
    if (!primary) throw std::logic_error("the managed primary is not running");
    synchronous.emplace(*primary, standbys.size(), r.pg().limits.reply_timeout());
    variants = {{"asynchronous", "SET synchronous_commit = local"},
                {"remote_apply", "SET synchronous_commit = remote_apply"}};
  } else {
    PgConnection c = r.pg().connect(ctx.stop_token());
    const bool has_sync = !c.exec("SHOW synchronous_standby_names").value(0, 0).empty();
    variants = {{"asynchronous", has_sync ? "SET synchronous_commit = local" : ""}};
    if (has_sync)
      variants.push_back({"remote_apply", "SET synchronous_commit = remote_apply"});
    else
      skipped =
          "remote_apply was not measured: the primary names no synchronous standbys "
          "(synchronous_standby_names), and Perflab never changes the settings of a server it "
          "does not manage.";
  }
  Group lag = lag_group(standbys.size(), variants.size() == 2);
  Group cost = append_cost_group(set.events);
  if (!skipped.empty()) lag.description += " " + skipped, cost.description += " " + skipped;
  ctx.add_group(lag);
  ctx.add_group(cost);
  if (!skipped.empty())
    ctx.add_finding(note_finding({"standby_lag.remote_apply_skipped", "", skipped, "", ""}));
  const auto limit =
      std::chrono::duration_cast<std::chrono::milliseconds>(r.pg().limits.reply_timeout());
  for (auto n64 : set.writers) {
    const auto n = static_cast<std::size_t>(n64);
    const std::size_t per_writer = (kLagsPerRound + n - 1) / n;
    const std::string label = writers_label(n64, false);
    ctx.progress(r.begin_point(PointKind::StandbyLag, n64),
                 "opening " + std::to_string(2 * n) + " connections");
    ClientPool pool(n, r.pg(), r.ids(), ctx.stop_token());
    std::vector<PgConnection> standby_conns;
    std::vector<std::unique_ptr<StandbyProbe>> probes;
    for (std::size_t w = 0; w < n; ++w)
      standby_conns.push_back(standbys[w % standbys.size()].connect(ctx.stop_token()));
    for (std::size_t w = 0; w < n; ++w)
      probes.push_back(std::make_unique<StandbyProbe>(standby_conns[w], r.pg().schema));
    std::vector<std::vector<EventData>> batches;
    for (std::size_t w = 0; w < n; ++w) batches.push_back(make_events(set.events, set.seed + w));
    std::vector<LagSamples> samples(variants.size());
    PointRounds rounds(ctx, set.warmup, set.reps, variants.size());
    if (variants.size() == 2) rounds.track_ratio(1, 0);
    auto publish = [&] {
      for (std::size_t v = 0; v < variants.size(); ++v)
        publish_lag(ctx, variants[v].name, label, samples[v], rounds.precision());
      lag_findings(ctx, n64, variants, samples);
    };
    publish_after(publish, [&] {
      while (rounds.next()) {
        std::vector<double> round(variants.size());
        for (std::size_t k = 0; k < variants.size(); ++k) {
          ctx.check_stop();
          const std::size_t v = (k + static_cast<std::size_t>(rounds.round())) % variants.size();
          std::vector<std::vector<std::string>> uuids(n);
          for (auto& u : uuids)
            for (std::size_t j = 0; j < per_writer; ++j) u.push_back(make_uuid(r.uuid_state()));
          std::vector<WriterRound> got(n);
          pool.run([&](std::size_t w, EventStore& store) {
            if (!variants[v].set_sql.empty()) pool.connection(w).exec(variants[v].set_sql);
            for (std::size_t j = 0; j < per_writer; ++j) {
              const std::int64_t t0 = wall_ns();
              const AppendResult a = store.append_to_stream(uuids[w][j], 0, batches[w],
                                                            AppendOptions{Builder::IoList});
              const std::int64_t t1 = wall_ns();
              const std::int64_t last = a.first_version + std::int64_t(batches[w].size()) - 1;
              const std::int64_t lag =
                  probes[w]->wait_visible(a.stream_id, last, t1, limit, ctx.stop_token());
              got[w].append_us.push_back(double(t1 - t0) / 1e3);
              got[w].lags.record_ns(lag);
            }
          });
          LatencyRecorder lags;
          std::vector<double> appends;
          for (const auto& g : got) {
            lags.merge(g.lags);
            appends.insert(appends.end(), g.append_us.begin(), g.append_us.end());
          }
          double mean = 0;
          for (double a : appends) mean += a / double(appends.size());
          round[v] = mean;
          if (rounds.warmup()) continue;
          samples[v].lags.push_back(std::move(lags));
          samples[v].append_us.push_back(mean);
        }
        rounds.record(round);
        r.step(rounds, "read-your-writes lag, " + label + ": " + rounds.progress_text());
      }
    });
  }
}

}  // namespace perflab::iolist
