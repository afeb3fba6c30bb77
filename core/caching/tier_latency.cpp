// The caching experiment's read latency at a fixed rate: PostgreSQL, Redis and local memory each
// read the same record open loop (every get at its intended time, its latency from that time),
// round by round, a percentile spectrum per tier: the tail a cache removes.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "caching/caching_run.h"
#include "common/text.h"
#include "runner/open_loop_series.h"

namespace perflab::caching {

namespace {

// What a tier is called in a sentence.
std::string tier_title(const std::string& tier) {
  return tier == "postgres" ? "PostgreSQL" : tier == "redis" ? "Redis" : "local memory";
}

OpenLoopGroups latency_groups(const CachingPlan& plan, const std::string& encoding) {
  const std::string rate = open_loop_rate_text(plan.latency_rate);
  const std::string what = plan.latency_workload == "document"
                               ? "one " + std::to_string(plan.doc_bytes / 1024) + " KB document"
                               : "a list of " + std::to_string(plan.list_size) + " comments";
  Group g{"latency_" + plan.latency_workload,
          "Read latency at " + rate + ": " + what,
          "us",
          "percentile",
          true,
          true,
          "Open loop: each get scheduled at " + rate + " (" + to_string(plan.arrivals) +
              " arrivals, one client per tier, " + encoding +
              " encoding) and its latency measured from its intended start, so a stall counts "
              "for every get due during it. One point per percentile, its interval over " +
              std::to_string(plan.latency_rounds) +
              " rounds; a round whose client fell behind or whose rate was not held is left "
              "out.",
          true};
  g.percentile_x = true;
  return {g, "latency_rate", plan.latency_rate, plan.latency_workload + " at " + rate};
}

// subject / baseline of one percentile over the valid rounds (unpaired: the tiers' rounds
// alternate but are not the same requests).
void compare(RunContext& ctx, const OpenLoopGroups& g,
             const std::map<std::string, const OpenLoopSeries*>& by_name,
             const std::string& subject, const std::string& baseline, double percent) {
  const auto a = by_name.find(subject), b = by_name.find(baseline);
  if (a == by_name.end() || b == by_name.end()) return;
  std::string pct = "p";  // appended, not concatenated: GCC 12 warns (-Wrestrict) on "p" + s
  pct += format_fixed(percent, 0);
  ComparisonSpec spec{"latency." + baseline + "_vs_" + subject + "." + pct, g.context,
                      ComparedPair{tier_title(subject), tier_title(baseline), pct + " read latency",
                                   Quantity::Time, Better::Lower}};
  spec.group = g.spectrum.id;
  ctx.add_comparison(spec, a->second->at_percentile(percent, 1e3),
                     b->second->at_percentile(percent, 1e3));
}

}  // namespace

void run_latency(RunContext& ctx, const CachingPlan& plan, const CachingServers& servers,
                 const Document& doc, const CommentList& list, double from, double to) {
  const Encoding enc = plan.encodings.front();
  const Codec codec{enc, plan.zlib_level};
  const std::string encoding = to_string(enc);
  const OpenLoopGroups groups = latency_groups(plan, encoding);
  ctx.add_group(groups.spectrum);
  ctx.add_group(open_loop_rate_group(groups.rate_group, "read latency", plan.latency_rate));
  std::vector<std::unique_ptr<Tier>> tiers;
  std::vector<OpenLoopSeries> series;
  for (const auto& name : plan.tiers) {
    ctx.check_stop();
    tiers.push_back(make_tier(name, codec, servers, plan.local_budget, ctx.stop_token()));
    store_and_check(*tiers.back(), name, encoding, doc, list);
    series.push_back({name, tier_title(name), {}, {}, {}});
  }
  const auto requests =
      std::max<std::int64_t>(1, std::llround(plan.latency_rate * plan.latency_seconds));
  const double steps = static_cast<double>(plan.latency_rounds) * static_cast<double>(tiers.size());
  double done = 0;
  const auto measure = [&] {
    for (int round = 0; round < plan.latency_rounds; ++round) {
      // Rotated so that no tier always follows the same one.
      for (std::size_t i = 0; i < tiers.size(); ++i) {
        const std::size_t t = (i + static_cast<std::size_t>(round)) % tiers.size();
        ctx.progress(from + (to - from) * done / steps,
                     "read latency at " + open_loop_rate_text(plan.latency_rate) + " from " +
                         series[t].title + ": round " + std::to_string(round + 1) + "/" +
                         std::to_string(plan.latency_rounds));
        WorkloadGet get(*tiers[t], plan.latency_workload, doc, list);
        for (int w = 0; w < 20; ++w) get.get();  // the connection and the caches warm
        series[t].add(run_open_loop(
                          {.rate = plan.latency_rate,
                           .arrivals = plan.arrivals,
                           .requests = requests,
                           .seed = plan.seed + static_cast<std::uint64_t>(round),
                           .lag_limit_ms = plan.latency_lag_limit_ms},
                          [&] {
                            if (!get.get())
                              throw std::runtime_error("the " + series[t].series +
                                                       " tier no longer holds the "
                                                       "record");
                          },
                          ctx.stop_token()),
                      round);
        done += 1;
      }
    }
  };
  const auto publish = [&] {
    std::map<std::string, const OpenLoopSeries*> by_name;
    for (const auto& s : series) {
      publish_open_loop_series(ctx, groups, s, 1e3);
      by_name[s.series] = &s;
    }
    for (const double pct : {99.0, 50.0}) {
      compare(ctx, groups, by_name, "postgres", "redis", pct);
      compare(ctx, groups, by_name, "redis", "local", pct);
    }
  };
  publish_after(publish, measure);
}

}  // namespace perflab::caching
