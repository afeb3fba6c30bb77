// The IO-list experiment's findings: every ratio and share it reports, from what the run
// measured (the samples of its appends, the client libraries' allocations, its points).
#include <algorithm>
#include <cmath>
#include <optional>

#include "common/figure_format.h"
#include "common/significance.h"
#include "iolist/iolist_run.h"
#include "iolist/pgbench.h"

namespace perflab::iolist {

namespace {

// What an append's time is measured as: the time per append, lower is better.
ComparedPair appends(std::string subject, std::string baseline) {
  return {std::move(subject), std::move(baseline), "time per append", Quantity::Time,
          Better::Lower};
}

// Two variants of the chart `group` measured side by side (paired), with their interval and
// verdict.
void judged_finding(RunContext& ctx, const std::string& group, const std::string& id,
                    const std::string& context, const ComparedPair& what, const AppendSamples* a,
                    const AppendSamples* b) {
  if (!a || !b) return;
  ComparisonSpec spec{id, context, what, true};
  spec.group = group;
  ctx.add_comparison(spec, a->total.wall, b->total.wall);
}

// A share of the chart `group`, part / whole of the same repetitions (paired): its interval, no
// verdict.
void add_share(RunContext& ctx, const std::string& group, const std::string& id,
               const std::string& context, const std::string& part,
               const std::vector<double>& part_samples, const std::vector<double>& whole) {
  ShareSpec spec{id, context, part, "one append"};
  spec.group = group;
  if (auto f = share_finding(spec, part_samples, whole)) ctx.add_finding(std::move(*f));
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
  const std::string id_n = "append_" + std::to_string(n);
  for (Builder b : {Builder::Interpolate, Builder::IoList}) {
    const AppendSamples* s = m.find(variant_series({b}), label);
    if (!s) continue;
    const std::string context = label_cap(label) + ", " + to_string(b);
    add_share(ctx, "append_breakdown", id_n + ".build_share." + to_string(b), context,
              "spent building the statement", s->wall(Phase::Build), s->writer_wall_us);
    if (b != Builder::IoList) continue;
    add_share(ctx, "append_breakdown", id_n + ".commit_share.iolist", context, "spent in COMMIT",
              s->wall(Phase::Commit), s->writer_wall_us);
    if (!s->server_cpu_us.empty())
      add_share(ctx, "append_breakdown", id_n + ".server_cpu_share.iolist", context,
                "that is the server's CPU (its backend, schedstat clock)", s->server_cpu_us,
                s->writer_wall_us);
  }
  for (const std::string& rtt : rtts) {
    const std::string at = label + rtt_suffix(rtt);
    const std::string id = id_n + (rtt_ns(rtt) > 0 ? ".rtt_" + rtt + "ms" : std::string());
    judged_finding(ctx, "append", id + ".pipeline_vs_round_trips.iolist",
                   label_cap(at) + ", iolist",
                   appends("pipelined (one flight)", "four round trips"),
                   m.find(variant_series({Builder::IoList, Transport::Pipeline}), at),
                   m.find(variant_series({Builder::IoList}), at));
    if (rtt_ns(rtt) == 0) continue;
    if (const AppendSamples* s = m.find(variant_series({Builder::IoList}), at))
      add_share(ctx, "append_breakdown", id + ".build_share.iolist", label_cap(at) + ", iolist",
                "spent building the statement", s->wall(Phase::Build), s->writer_wall_us);
  }
}

// synchronous_commit off / on, judged; and the part of an append that waits for the flush:
// (on - off) / on of the same rounds, a share that noise can push below zero (then it says it
// is below what the run can measure).
void synchronous_commit_findings(RunContext& ctx, const IoListMeasured& m, std::int64_t n) {
  const std::string label = writers_label(n, false);
  const AppendSamples* off =
      m.find(variant_series({Builder::IoList, Transport::RoundTrips, false}), label);
  const AppendSamples* on = m.find(variant_series({Builder::IoList}), label);
  if (!off || !on) return;
  const std::string id = "append_" + std::to_string(n);
  const std::string context = label_cap(label) + ", iolist";
  const auto& w_off = off->total.wall;
  const auto& w_on = on->total.wall;
  std::vector<double> waits;
  for (std::size_t r = 0; r < std::min(w_off.size(), w_on.size()); ++r)
    waits.push_back(w_on[r] - w_off[r]);
  add_share(ctx, "append", id + ".synchronous_commit_share.iolist", context,
            "that waits for the WAL flush at COMMIT (on − off, of on; off gives up the "
            "durability of the last transactions on a crash)",
            waits, std::vector<double>(w_on.begin(), w_on.begin() + waits.size()));
  ComparisonSpec spec{id + ".synchronous_commit.off_vs_on.iolist", context,
                      appends("synchronous_commit off", "synchronous_commit on"), true};
  spec.group = "append";
  ctx.add_comparison(spec, w_off, w_on);
}

// The build's share at the largest payload, and the largest share of the sweep (where building
// matters most), per builder.
void payload_findings(RunContext& ctx, const IoListSettings& set, const IoListMeasured& m) {
  auto sizes = set.payload_sizes;
  if (sizes.empty()) return;
  std::sort(sizes.begin(), sizes.end());
  for (const std::string& b : set.builder_names) {
    const AppendSamples* largest = nullptr;
    std::int64_t largest_at = 0;
    for (auto bytes : sizes) {
      const AppendSamples* s = m.find(b, "payload " + std::to_string(bytes));
      if (s && (!largest || s->share(Phase::Build) > largest->share(Phase::Build)))
        largest = s, largest_at = bytes;
    }
    const AppendSamples* last = m.find(b, "payload " + std::to_string(sizes.back()));
    if (!last) continue;
    add_share(ctx, "payload_build_share", "payload.build_share_at_largest." + b,
              "Single writer, " + format_bytes(std::size_t(sizes.back())) + " per event, " + b,
              "spent building the statement", last->wall(Phase::Build), last->writer_wall_us);
    add_share(ctx, "payload_build_share", "payload.build_share_largest." + b,
              "Single writer, payload sweep, " + b + ", at its largest share (" +
                  format_bytes(std::size_t(largest_at)) + " per event)",
              "spent building the statement", largest->wall(Phase::Build), largest->writer_wall_us);
  }
}

// libpqxx against libpq: time, judged, and allocations per append (exact counts).
void client_findings(RunContext& ctx, const IoListSettings& set, const IoListMeasured& m) {
  for (const std::string& b : set.builder_names) {
    judged_finding(ctx, "client_time", "client.time.libpqxx_vs_libpq." + b, "Single writer, " + b,
                   appends("libpqxx", "libpq"), m.find("libpqxx", "client " + b),
                   m.find("libpq", "client " + b));
    auto x = m.client_allocs.find({"libpqxx", b}), y = m.client_allocs.find({"libpq", b});
    if (x == m.client_allocs.end() || y == m.client_allocs.end()) continue;
    ctx.add_comparison(
        {"client.allocs.libpqxx_vs_libpq." + b, "Single writer, " + b,
         ComparedPair{"libpqxx", "libpq", "allocations per append", Quantity::Count, Better::Lower},
         false, "", std::nullopt, true, "client_allocs"},
        x->second, y->second);
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
  judged_finding(ctx, "relay_overhead", "relay.overhead",
                 "Single writer, iolist, four round trips: the relay's own cost",
                 appends("through the relay at 0 ms", "straight to the server"),
                 m.find("relay at 0 ms", "relay"), m.find("direct", "relay"));
}

// The article's figure for a benchmark as a claim: "20–25% faster" within ±0.08 of its ratio,
// "reads did not change" (a ratio within 5% of 1) as no change within ±5% (docs/iolist.md).
std::optional<Claim> published_claim(bool read, std::int64_t clients) {
  const auto r = published_ratio(read, clients);
  if (!r) return std::nullopt;
  return std::abs(*r - 1) <= 0.05 ? claim_no_change(*r, 0.05) : claim_value(*r, 0.08);
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
  auto ratio = [&](ComparisonSpec spec, const char* group, const std::string& label,
                   const std::string& a, const std::string& b) {
    spec.group = group;
    ctx.add_comparison(spec, point(group, a, label), point(group, b, label));
  };
  ratio(
      {"build_100.time.iolist_vs_interpolate", "Building a 100-event statement",
       ComparedPair{"iolist", "interpolate", "time per statement", Quantity::Time, Better::Lower}},
      "build_time", "100", "iolist", "interpolate");
  ratio({"build_100.allocs.iolist_vs_interpolate", "Building a 100-event statement",
         ComparedPair{"iolist", "interpolate", "allocations per statement", Quantity::Count,
                      Better::Lower},
         false, "", std::nullopt, true},
        "build_allocs", "100", "iolist", "interpolate");
  for (auto n : set.writers)
    ratio({"append_" + std::to_string(n) + ".iolist_vs_interpolate",
           "Append, " + writers_label(n, false), appends("iolist", "interpolate"), true, "",
           published_claim(false, n)},
          "append", writers_label(n, false), "iolist", "interpolate");
  for (auto n : set.writers) {
    const std::string how = set.events <= kPgbenchMaxEventsPerStatement
                                ? "same statement"
                                : "same rows; pgbench sends them as " +
                                      std::to_string(pgbench_chunks(set.events).size()) +
                                      " pipelined INSERTs";
    ratio({"append_" + std::to_string(n) + ".iolist_vs_pgbench",
           "Append, " + writers_label(n, false) + ", " + how, appends("Perflab iolist", "pgbench")},
          "append", writers_label(n, false), "iolist", "pgbench");
  }
  for (auto n : set.readers)
    ratio(
        {"read_" + std::to_string(n) + ".iolist_vs_interpolate", "Read, " + writers_label(n, true),
         ComparedPair{"iolist", "interpolate", "time per read", Quantity::Time, Better::Lower},
         true, "", published_claim(true, n)},
        "read", writers_label(n, true), "iolist", "interpolate");
  // The builder with the lowest median time per append against iolist, for a single writer.
  const std::string one = writers_label(1, false);
  if (point("append", "iolist", one)) {
    std::string best;
    double best_us = 0;
    for (Builder b : set.builders)
      if (const Point* p = point("append", to_string(b), one))
        if (best.empty() || p->stats.median < best_us)
          best = to_string(b), best_us = p->stats.median;
    if (!best.empty() && best != "iolist")
      ratio({"append_1.best_vs_iolist", "Single writer, the builder with the lowest median",
             appends(best, "iolist"), true},
            "append", one, best, "iolist");
  }
}

// The client's share of the machine at the most writers and the most readers (direct), for every
// series: near 100%, the client could be what sets the time. Its CPU per operation and the
// threads that drove it are on every point.
void client_use_findings(RunContext& ctx, const IoListSettings& set, const IoListMeasured& m) {
  // Every series at the most clients, of the appends ("append") or the reads ("read").
  const auto at_most = [&](const auto& measured, const std::string& op, bool readers) {
    const std::vector<std::int64_t>& counts = readers ? set.readers : set.writers;
    const std::int64_t n = *std::max_element(counts.begin(), counts.end());
    const std::string label = writers_label(n, readers), id = op + "_" + std::to_string(n);
    for (const auto& [key, s] : measured) {
      if (key.second != label) continue;
      const std::size_t t = s.client_threads;
      client_cpu_findings(ctx,
                          {"", id + ".client_share." + key.first,
                           label_cap(label) + ", " + key.first + ", " + std::to_string(t) +
                               (t == 1 ? " client thread" : " client threads"),
                           op, op, id + ".machine_idle." + key.first},
                          n, s.total);
    }
  };
  if (set.has("append")) at_most(m.appends, "append", false);
  if (set.has("read")) at_most(m.reads, "read", true);
}

}  // namespace

void add_findings(RunContext& ctx, const IoListSettings& settings, const IoListMeasured& measured) {
  breakdown_findings(ctx, settings, measured);  // first: the panel leads
  point_findings(ctx, settings);
  client_use_findings(ctx, settings, measured);
  if (settings.has("pooled")) pooled_findings(ctx, settings, measured);
}

}  // namespace perflab::iolist
