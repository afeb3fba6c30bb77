// The IO-list experiment's findings: every ratio and share it reports, from what the run
// measured (the samples of its appends, the client libraries' allocations, its points).
#include <algorithm>
#include <optional>

#include "common/figure_format.h"
#include "common/significance.h"
#include "iolist/iolist_run.h"
#include "iolist/pgbench.h"

namespace perflab::iolist {

namespace {

// A ratio of two variants measured side by side, with its interval and verdict.
void judged_finding(RunContext& ctx, const std::string& id, const std::string& text,
                    const AppendSamples* a, const AppendSamples* b) {
  if (!a || !b) return;
  if (auto f = ratio_finding({id, text, Better::Lower, ctx.threshold(), true, true}, a->total.wall,
                             b->total.wall))
    ctx.add_finding(std::move(*f));
}

// A share, part / whole of the same repetitions (paired): its interval, no verdict.
void share_finding(RunContext& ctx, const std::string& id, const std::string& text,
                   const std::vector<double>& part, const std::vector<double>& whole) {
  if (auto f = ratio_finding({id, text, Better::Lower, ctx.threshold(), true, false}, part, whole))
    ctx.add_finding(std::move(*f));
}

std::string label_cap(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

// The writer counts the breakdown speaks of: one writer, and the most measured.
std::vector<std::int64_t> breakdown_counts(const std::vector<std::int64_t>& writers) {
  const std::int64_t most = *std::max_element(writers.begin(), writers.end());
  std::vector<std::int64_t> counts{1};
  if (most != 1) counts.push_back(most);
  return counts;
}

// Where an append's time goes (build, COMMIT, the server's CPU), and what the transport changes,
// direct and at every RTT.
void phase_findings(RunContext& ctx, const IoListMeasured& m, std::int64_t n,
                    const std::vector<std::string>& rtts) {
  const std::string label = writers_label(n, false);
  for (Builder b : {Builder::Interpolate, Builder::IoList}) {
    const AppendSamples* s = m.find(variant_series({b}), label);
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
    const std::string id =
        "append_" + std::to_string(n) + (rtt_ns(rtt) > 0 ? ".rtt_" + rtt + "ms" : std::string());
    judged_finding(ctx, id + ".pipeline_vs_round_trips.iolist",
                   label_cap(at) + ", iolist: pipelined (one flight) / four round trips",
                   m.find(variant_series({Builder::IoList, Transport::Pipeline}), at),
                   m.find(variant_series({Builder::IoList}), at));
    if (rtt_ns(rtt) == 0) continue;
    if (const AppendSamples* s = m.find(variant_series({Builder::IoList}), at))
      share_finding(ctx, id + ".build_share.iolist",
                    label_cap(at) +
                        ": share of one append spent building the statement "
                        "(iolist)",
                    s->wall(Phase::Build), s->writer_wall_us);
  }
}

// synchronous_commit off / on, judged; and 1 - off / on: the part of an append that waits for
// the flush.
void synchronous_commit_findings(RunContext& ctx, const IoListMeasured& m, std::int64_t n) {
  const std::string label = writers_label(n, false);
  const AppendSamples* off =
      m.find(variant_series({Builder::IoList, Transport::RoundTrips, false}), label);
  const AppendSamples* on = m.find(variant_series({Builder::IoList}), label);
  if (!off || !on) return;
  const std::string id = "append_" + std::to_string(n);
  auto f = ratio_finding({id + ".synchronous_commit.off_vs_on.iolist",
                          label_cap(label) + ", iolist: synchronous_commit off / on", Better::Lower,
                          ctx.threshold(), true, true},
                         off->total.wall, on->total.wall);
  if (!f) return;
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

// The build share at the largest payload, and the smallest payload at which it reaches the
// article's 20% (where building matters as much as it did in 2016), per builder.
void payload_findings(RunContext& ctx, const IoListSettings& set, const IoListMeasured& m) {
  auto sizes = set.payload_sizes;
  if (sizes.empty()) return;
  std::sort(sizes.begin(), sizes.end());
  for (const std::string& b : set.builder_names) {
    std::optional<std::int64_t> reached;  // the smallest payload where the share is >= 20%
    const AppendSamples* at_reached = nullptr;
    double most = 0;
    for (auto bytes : sizes) {
      const AppendSamples* s = m.find(b, "payload " + std::to_string(bytes));
      if (!s) continue;
      const double share = s->share(Phase::Build);
      most = std::max(most, share);
      if (!reached && share >= 0.2) {
        reached = bytes;
        at_reached = s;
      }
    }
    const AppendSamples* last = m.find(b, "payload " + std::to_string(sizes.back()));
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

// libpqxx against libpq: time, judged, and allocations per append (exact counts).
void client_findings(RunContext& ctx, const IoListSettings& set, const IoListMeasured& m) {
  for (const std::string& b : set.builder_names) {
    judged_finding(ctx, "client.time.libpqxx_vs_libpq." + b,
                   "Single writer, " + b + ": append time through libpqxx / through libpq",
                   m.find("libpqxx", "client " + b), m.find("libpq", "client " + b));
    auto x = m.client_allocs.find({"libpqxx", b}), y = m.client_allocs.find({"libpq", b});
    if (x == m.client_allocs.end() || y == m.client_allocs.end()) continue;
    const double ax = summarize(x->second).median, ay = summarize(y->second).median;
    ctx.add_finding({"client.allocs.libpqxx_vs_libpq." + b,
                     "Single writer, " + b + ": allocations per append through libpqxx (" +
                         format_figure(ax) + ") / through libpq (" + format_figure(ay) + ")",
                     ay > 0 ? ax / ay : 0.0,
                     {}});
  }
}

// Where an append's time goes, and what the transport changes: from the phases and samples
// measured side by side (appended first in the panel: the teaching panel leads with them).
void breakdown_findings(RunContext& ctx, const IoListSettings& set, const IoListMeasured& m) {
  if (set.writers.empty()) return;
  const std::vector<std::int64_t> counts = breakdown_counts(set.writers);
  for (std::int64_t n : counts) phase_findings(ctx, m, n, set.rtts);
  for (std::int64_t n : counts) synchronous_commit_findings(ctx, m, n);
  payload_findings(ctx, set, m);
  client_findings(ctx, set, m);
  judged_finding(ctx, "relay.overhead",
                 "The relay's own cost: an append through the relay at 0 ms / straight to the "
                 "server (iolist, single writer, four round trips)",
                 m.find("relay at 0 ms", "relay"), m.find("direct", "relay"));
}

// Every ratio of the run's points with its interval: append and read builders were interleaved
// round by round (paired); the builds of one size, and pgbench against Perflab, ran one after
// the other.
void point_findings(RunContext& ctx, const IoListSettings& set) {
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
    ctx.add_finding({"build_100.allocs.iolist_vs_interpolate",
                     "Building a 100-event statement: iolist allocations / interpolate allocations",
                     a->stats.median / b->stats.median,
                     {}});
  for (auto n : set.writers)
    ratio({"append_" + std::to_string(n) + ".iolist_vs_interpolate",
           "Append, " + writers_label(n, false) + ": iolist / interpolate", Better::Lower, 0, true,
           true, published_ratio(false, n)},
          "append", writers_label(n, false), "iolist", "interpolate");
  for (auto n : set.writers) {
    const std::string how = set.events <= kPgbenchMaxEventsPerStatement
                                ? "same statement"
                                : "same rows; pgbench sends them as " +
                                      std::to_string(pgbench_chunks(set.events).size()) +
                                      " pipelined INSERTs";
    ratio({"append_" + std::to_string(n) + ".iolist_vs_pgbench",
           "Append, " + writers_label(n, false) + ": Perflab iolist / pgbench, " + how},
          "append", writers_label(n, false), "iolist", "pgbench");
  }
  for (auto n : set.readers)
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
    for (Builder b : set.builders)
      if (const Point* p = point("append", to_string(b), one))
        if (best.empty() || p->stats.median < best_us)
          best = to_string(b), best_us = p->stats.median;
    if (!best.empty() && best_us > 0)
      ratio({"append_1.best_vs_iolist_events_per_s",
             "Single writer: events/s of the fastest builder (" + best + ") / events/s of iolist",
             Better::Higher, 0, true},
            "append", one, "iolist", best);
  }
}

}  // namespace

void add_findings(RunContext& ctx, const IoListSettings& settings, const IoListMeasured& measured) {
  breakdown_findings(ctx, settings, measured);  // first: the panel leads
  point_findings(ctx, settings);
}

}  // namespace perflab::iolist
