// The IO-list experiment's appends: writers × variants (builder, transport, synchronous commit)
// interleaved round by round, direct and through the delaying relay; each append's phases timed.
#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>

#include "iolist/iolist_run.h"
#include "iolist/pgbench.h"
#include "targets/delay_relay.h"
#include "targets/pg_conninfo.h"

namespace perflab::iolist {

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
  // The article's comparison: iolist against interpolate, the builder it replaced.
  g.baseline_series = "interpolate";
  g.first_series = {"interpolate", "iolist"};
  g.interleaved = true;  // the variants of a point, round by round
  return g;
}

namespace {

// The rounds of one append point over variants, tracking the ratios its findings state.
PointRounds variant_rounds(const RunContext& ctx, const std::vector<Variant>& variants, int reps,
                           int warmup, const ComparedSeries& compared) {
  PointRounds rounds(ctx, warmup, reps, variants.size());
  const auto at = [&](const std::string& series) {
    std::size_t i = 0;
    while (i < variants.size() && variants[i].series != series) ++i;
    return i;
  };
  for (const auto& [subject, baseline] : compared)
    if (at(subject) < variants.size() && at(baseline) < variants.size())
      rounds.track_ratio(at(subject), at(baseline));
  // After the minimum rounds only what an open comparison needs: at 100 writers a round of every
  // builder and transport takes seconds, and the run's budget is better spent on its verdicts.
  rounds.focus();
  return rounds;
}

// A variant's append point, and for the round-trip transport with synchronous commit its
// stack in the breakdown group.
void publish_append(RunContext& ctx, const Variant& v, const std::string& label,
                    std::int64_t writers, const std::string& rtt, const AppendSamples& s,
                    const std::optional<PointPrecision>& precision) {
  if (s.total.wall.empty()) return;
  Point p = make_point(label, s.total);
  p.precision = precision;
  // Its own rounds: a variant no open comparison needed stopped at the minimum.
  if (p.precision) p.precision->rounds = static_cast<int>(s.total.wall.size());
  if (!s.server_cpu_us.empty()) p.extra["server_cpu"] = summarize(s.server_cpu_us).median;
  add_client_use(p, s.total, static_cast<std::size_t>(writers), s.client_threads);
  ctx.add_point("append", v.series, std::move(p));
  if (v.options.transport != Transport::RoundTrips || !v.options.synchronous_commit) return;
  publish_breakdown(ctx, v.options.builder, writers, rtt, s);
}

// What the findings compare at an append point (findings.cpp): iolist / interpolate (the
// article's), and for iolist pipelined / four round trips and synchronous_commit off / on.
ComparedSeries append_comparisons() {
  const std::string iolist = variant_series({Builder::IoList});
  return {{iolist, variant_series({Builder::Interpolate})},
          {variant_series({Builder::IoList, Transport::Pipeline}), iolist},
          {variant_series({Builder::IoList, Transport::RoundTrips, false}), iolist}};
}

}  // namespace

void run_append(IoListRun& r) {
  RunContext& ctx = r.ctx;
  const IoListSettings& set = r.settings;
  const std::vector<Variant>& variants = r.variants();
  Group g = append_group(set.events, set.has("pgbench"));
  if (r.async_skipped()) g.description += std::string(" ") + kAsyncCommitSkipped;
  ctx.add_group(g);
  ctx.add_group(breakdown_group(set.events));
  if (set.relayed) run_relay_overhead(r);
  for (const std::string& rtt : set.rtts) {
    // Through a relay that delays each direction by half the round trip; 0: direct.
    std::optional<DelayRelay> relay;
    PgTarget target = r.pg();
    if (rtt_ns(rtt) > 0) {
      relay.emplace(r.server_host(), r.server_port(), std::chrono::nanoseconds(rtt_ns(rtt)));
      target.conninfo = conninfo_with_address(r.pg().conninfo, "127.0.0.1", relay->port());
    }
    // Many writers across a network are opt-in (rtt_writers): slow, and what they add is
    // what one writer shows, multiplied.
    for (auto n64 : relay ? set.rtt_writers : set.writers) {
      const auto n = static_cast<std::size_t>(n64);
      ctx.progress(r.begin_point(PointKind::Append, n64, rtt),
                   "opening " + std::to_string(n) + " connections" + rtt_suffix(rtt));
      const WriterDrivers drivers = writer_drivers(r, n, target, variants);
      std::vector<std::vector<EventData>> batches;
      for (std::size_t w = 0; w < n; ++w) batches.push_back(make_events(set.events, set.seed + w));
      const std::string label = writers_label(n64, false) + rtt_suffix(rtt);
      std::vector<AppendSamples> samples(variants.size());
      for (std::size_t v = 0; v < variants.size(); ++v)
        samples[v].client_threads = drivers.of_variant[v]->threads();
      std::optional<PointPrecision> precision;
      auto publish = [&] {
        for (std::size_t v = 0; v < variants.size(); ++v) {
          publish_append(ctx, variants[v], label, n64, rtt, samples[v], precision);
          r.measured.appends[{variants[v].series, label}] = samples[v];
        }
      };
      publish_after(publish, [&] {
        measure_appends(r, drivers.of_variant, r.pg().managed, variants, batches,
                        "append, " + label, set.reps, set.warmup, append_comparisons(), samples,
                        precision);
      });
    }
  }
}

ClientPoolSample append_once(IoListRun& r, ClientDriver& pool, const AppendOptions& o,
                             const std::vector<std::vector<EventData>>& batches,
                             std::vector<AppendTiming>& timings) {
  std::vector<ClientAppend> appends;
  for (std::size_t w = 0; w < pool.size(); ++w)
    appends.push_back({make_uuid(r.uuid_state()), 0, &batches[w]});
  return pool.append(appends, o, timings);
}

void measure_appends(IoListRun& r, ClientDriver& pool, bool local_server,
                     const std::vector<Variant>& variants,
                     const std::vector<std::vector<EventData>>& batches, const std::string& label,
                     int reps, int warmup, const ComparedSeries& compared,
                     std::vector<AppendSamples>& samples,
                     std::optional<PointPrecision>& precision) {
  ClientDriver* const pools[] = {&pool};
  measure_appends(r, pools, local_server, variants, batches, label, reps, warmup, compared, samples,
                  precision);
}

void measure_appends(IoListRun& r, std::span<ClientDriver* const> pools, bool local_server,
                     const std::vector<Variant>& variants,
                     const std::vector<std::vector<EventData>>& batches, const std::string& label,
                     int reps, int warmup, const ComparedSeries& compared,
                     std::vector<AppendSamples>& samples,
                     std::optional<PointPrecision>& precision) {
  RunContext& ctx = r.ctx;
  PointRounds rounds = variant_rounds(ctx, variants, reps, warmup, compared);
  const auto pool_of = [&](std::size_t vi) -> ClientDriver& {
    return pools.size() == 1 ? *pools[0] : *pools[vi];
  };
  // New streams of the pipeline transport take reserved ids: reserved here, unmeasured (a
  // refill, if rounds go on to a precision, is one round trip in an append).
  const std::size_t appends = static_cast<std::size_t>(warmup + reps) * variants.size();
  for (ClientDriver* pool : pools) pool->reserve_stream_ids(appends);
  std::vector<AppendTiming> timings(pool_of(0).size());
  // The server's CPU per append: the backends of every pool idle between appends.
  std::vector<ClientDriver*> distinct(pools.begin(), pools.end());
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  const auto backend_cpu_ns = [&]() -> std::int64_t {
    std::int64_t sum = 0;
    for (ClientDriver* d : distinct) {
      const std::int64_t ns = d->backend_cpu_ns();
      if (ns < 0) return -1;
      sum += ns;
    }
    return sum;
  };
  std::int64_t server0 = local_server ? backend_cpu_ns() : -1;
  while (rounds.next()) {
    std::vector<double> round(variants.size());
    for (std::size_t k = 0; k < variants.size(); ++k) {
      ctx.check_stop();
      const std::size_t vi = (k + static_cast<std::size_t>(rounds.round())) % variants.size();
      if (!rounds.needs(vi)) {  // its comparisons have their verdicts: not measured again
        round[vi] = std::numeric_limits<double>::quiet_NaN();
        continue;
      }
      const ClientPoolSample s =
          append_once(r, pool_of(vi), variants[vi].options, batches, timings);
      // The backends idle between appends: the difference is this append's server CPU.
      const std::int64_t server1 = server0 >= 0 ? backend_cpu_ns() : -1;
      if (!rounds.warmup())
        samples[vi].add(s, timings,
                        server0 >= 0 && server1 >= 0 ? double(server1 - server0) / 1000.0 : -1.0);
      server0 = server1;
      round[vi] = s.wall_us;
    }
    rounds.record(round);
    precision = rounds.precision();
    r.step(rounds, label + ": " + rounds.progress_text());
  }
}

}  // namespace perflab::iolist
