// The IO-list experiment's append latency at a fixed rate: a single writer appends open loop
// (each append at its intended time, its latency from that time) with each builder, and pgbench
// runs the same transaction under -R at the same rate as the peer, rounds alternating: a
// percentile spectrum per builder and for pgbench, its schedule lag beside it.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/text.h"
#include "iolist/iolist_run.h"
#include "iolist/pgbench.h"
#include "runner/open_loop_series.h"
#include "targets/owned_folder.h"

namespace perflab::iolist {

namespace {

OpenLoopGroups latency_groups(const IoListSettings& set) {
  const std::string rate = open_loop_rate_text(set.latency_rate);
  Group g{
      "append_latency",
      "Append latency at " + rate + ": " + std::to_string(set.events) + " events, single writer",
      "us",
      "percentile",
      true,
      true,
      "Open loop: each append of " + std::to_string(set.events) +
          " events to a new stream (four round trips) scheduled at " + rate + " (" +
          to_string(set.arrivals) +
          " arrivals) and its latency measured from its intended start, so a slow append "
          "counts for every one due while it ran. pgbench: the same transaction under -R at "
          "the same rate (Poisson arrivals), its --log latencies, which pgbench measures "
          "from each transaction's scheduled start. One point per percentile, its interval "
          "over " +
          std::to_string(set.latency_rounds) +
          " rounds; a round whose client fell behind or whose rate was not held is left "
          "out.",
      true};
  g.percentile_x = true;
  g.baseline_series = "interpolate";
  g.first_series = {"interpolate", "iolist", "pgbench"};
  return {g, "append_latency_rate", set.latency_rate, "single writer at " + rate};
}

// A pgbench invocation as an open-loop round: its log's latencies, the rate its schedule offered
// and the rate it completed. pgbench's schedule lag includes the wait for the transaction before
// (one connection), so it cannot say whether pgbench itself fell behind: only the rate judges.
OpenLoopRound pgbench_round(const PgbenchLog& log, double rate) {
  OpenLoopRound r;
  r.latency.merge(log.latency);
  r.requests = log.transactions;
  // Poisson arrivals: the first transaction is one mean gap after the schedule's start.
  const double start_us = static_cast<double>(log.first_start_us) - 1e6 / rate;
  const double n = static_cast<double>(log.transactions);
  const double offered_us = static_cast<double>(log.last_start_us) - start_us;
  const double achieved_us = static_cast<double>(log.last_end_us) - start_us;
  r.offered_rps = offered_us > 0 ? n * 1e6 / offered_us : rate;
  r.achieved_rps = achieved_us > 0 ? n * 1e6 / achieved_us : 0;
  r.rate_held = r.achieved_rps >= kRateHeldShare * r.offered_rps;
  return r;
}

// subject / baseline of one percentile over the valid rounds.
void compare(RunContext& ctx, const OpenLoopGroups& g, const OpenLoopSeries* subject,
             const OpenLoopSeries* baseline, double percent) {
  if (!subject || !baseline) return;
  std::string pct = "p";  // appended, not concatenated: GCC 12 warns (-Wrestrict) on "p" + s
  pct += format_fixed(percent, 0);
  ComparisonSpec spec{"append_latency." + subject->series + "_vs_" + baseline->series + "." + pct,
                      g.context,
                      ComparedPair{subject->title, baseline->title, pct + " append latency",
                                   Quantity::Time, Better::Lower}};
  spec.group = g.spectrum.id;
  ctx.add_comparison(spec, subject->at_percentile(percent, 1e3),
                     baseline->at_percentile(percent, 1e3));
}

}  // namespace

void run_append_latency(IoListRun& r) {
  RunContext& ctx = r.ctx;
  const IoListSettings& set = r.settings;
  const OpenLoopGroups groups = latency_groups(set);
  ctx.add_group(groups.spectrum);
  ctx.add_group(open_loop_rate_group(groups.rate_group, "append latency", set.latency_rate));
  const auto requests =
      std::max<std::int64_t>(1, std::llround(set.latency_rate * set.latency_seconds));
  std::vector<OpenLoopSeries> series;
  for (Builder b : set.builders) series.push_back({to_string(b), to_string(b), {}, {}, {}});
  const std::optional<PgbenchPeer> peer = pgbench_peer(r);
  std::optional<TempFolder> dir;
  std::vector<double> lag_p99_ms;  // pgbench's schedule lag, per round
  if (peer) {
    series.push_back({"pgbench", "pgbench", {}, {}, {}});
    dir.emplace("perflab-pgbench-rate-");
  }
  PgConnection conn = r.pg().connect(ctx.stop_token());
  EventStore store(conn, r.pg().schema, r.ids());
  const std::vector<EventData> events = make_events(set.events, set.seed);
  const std::string rate = open_loop_rate_text(set.latency_rate);

  const auto round_of_builder = [&](Builder b, int round) {
    store.reserve_stream_ids(static_cast<std::size_t>(requests) + 5);
    for (int w = 0; w < 5; ++w)  // the statements prepared, the caches warm
      store.append_to_stream(make_uuid(r.uuid_state()), 0, events, AppendOptions{b});
    return run_open_loop(
        {.rate = set.latency_rate,
         .arrivals = set.arrivals,
         .requests = requests,
         .seed = set.seed + static_cast<std::uint64_t>(round),
         .lag_limit_ms = set.latency_lag_limit_ms},
        [&] { store.append_to_stream(make_uuid(r.uuid_state()), 0, events, AppendOptions{b}); },
        ctx.stop_token());
  };
  const auto round_of_pgbench = [&] {
    PgbenchInvocation inv;
    inv.exe = peer->exe;
    inv.conninfo = r.pg().conninfo;
    inv.clients = 1;
    inv.transactions = requests;
    inv.rate = set.latency_rate;
    inv.log = true;
    inv.work_dir = dir->path();
    inv.id_base = r.ids().take(requests * static_cast<std::int64_t>(set.events));
    inv.time_limit = r.pg().limits.reply_timeout() +
                     std::chrono::milliseconds(std::llround(10'000 * set.latency_seconds));
    auto report = run_pgbench(inv, peer->script, ctx.stop_token());
    if (!report) {
      ctx.check_stop();
      throw Cancelled{};
    }
    lag_p99_ms.push_back(static_cast<double>(report->log->schedule_lag.value_at_percentile_ns(99)) /
                         1e6);
    return pgbench_round(*report->log, set.latency_rate);
  };

  const auto publish = [&] {
    std::map<std::string, const OpenLoopSeries*> by_name;
    for (const auto& s : series) {
      publish_open_loop_series(ctx, groups, s, 1e3);
      by_name[s.series] = &s;
    }
    const auto find = [&](const char* name) -> const OpenLoopSeries* {
      const auto it = by_name.find(name);
      return it == by_name.end() ? nullptr : it->second;
    };
    for (const double pct : {99.0, 50.0}) {
      compare(ctx, groups, find("iolist"), find("interpolate"), pct);
      compare(ctx, groups, find("iolist"), find("pgbench"), pct);
    }
    if (!lag_p99_ms.empty())
      ctx.add_finding(figure_finding(
          {.id = "append_latency.pgbench.schedule_lag_p99",
           .context = groups.context,
           .what = "pgbench's schedule lag p99 (scheduled to actual start, median of " +
                   std::to_string(lag_p99_ms.size()) + " rounds)",
           .unit = "ms",
           .group = groups.spectrum.id},
          summarize(lag_p99_ms).median));
  };
  publish_after(publish, [&] {
    r.begin_point(PointKind::Latency);
    for (int round = 0; round < set.latency_rounds; ++round) {
      // Rotated so that no series always follows the same one.
      for (std::size_t i = 0; i < series.size(); ++i) {
        ctx.check_stop();
        const std::size_t s = (i + static_cast<std::size_t>(round)) % series.size();
        ctx.progress(r.fraction(), "append latency at " + rate + ", " + series[s].title +
                                       ": round " + std::to_string(round + 1) + "/" +
                                       std::to_string(set.latency_rounds));
        series[s].add(
            s < set.builders.size() ? round_of_builder(set.builders[s], round) : round_of_pgbench(),
            round);
        r.step("append latency, " + series[s].title);
      }
    }
  });
}

}  // namespace perflab::iolist
