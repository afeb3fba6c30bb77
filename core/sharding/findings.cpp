// The sharding experiment's findings: the sweep's ratios of requests/s (the collapse, the proxy
// against twemproxy, direct Redis and Redis Cluster), the collapse judged against the article.
#include <optional>
#include <string>

#include "common/text.h"
#include "sharding/sharding_run.h"

namespace perflab::sharding {

namespace {

// lazy / strict at -P 2: the collapse as published (none for MGET, which the seed did not run).
// The article's collapse (lazy / strict at -P 2, about 1/130) as its claim: "pipelining through
// a naive proxy collapses throughput by about two orders of magnitude", judged as a ratio of at
// most 1/30 (docs/sharding.md) — not as the figure 0.0075 within a few percent.
std::optional<Claim> published_collapse(BenchTest t) {
  const double lazy = seed_figure("lazy", 2).of(t), strict = seed_figure("strict", 2).of(t);
  if (lazy <= 0 || strict <= 0) return std::nullopt;
  return claim_below(lazy / strict, 1.0 / 30);
}

// What a sweep variant is called in a finding's sentence.
std::string variant_name(const std::string& v) {
  if (v == "per-reply") return "proxy with per-reply writes, no TCP_NODELAY";
  if (v == "coalesced") return "proxy with coalesced writes, no TCP_NODELAY";
  if (v == "coalesced+nodelay") return "proxy with coalesced writes + TCP_NODELAY";
  if (v == "direct") return "Redis direct";
  if (v == "cluster") return "Redis Cluster (Perflab's cluster client)";
  if (v == "proxy-cluster") return "perflab-proxy over Redis Cluster";
  if (v == "redis-benchmark-cluster") return "redis-benchmark --cluster";
  return v;
}

constexpr SweepRatio kSweepRatios[] = {{2, "per-reply", "coalesced+nodelay"},
                                       {2, "coalesced", "coalesced+nodelay"},
                                       {1, "coalesced+nodelay", "twemproxy"},
                                       {16, "coalesced+nodelay", "twemproxy"},
                                       {1, "coalesced+nodelay", "direct"},
                                       {1, "cluster", "direct"},
                                       {16, "cluster", "direct"},
                                       {1, "cluster", "redis-benchmark-cluster"},
                                       {16, "cluster", "redis-benchmark-cluster"},
                                       {1, "proxy-cluster", "cluster"},
                                       {16, "proxy-cluster", "cluster"}};

}  // namespace

std::span<const SweepRatio> sweep_ratios() {
  return kSweepRatios;
}

void sweep_findings(RunContext& ctx, const std::vector<BenchTest>& tests, const SweepRates& rps,
                    const SweepSeconds& shortest) {
  for (BenchTest t : tests) {
    const std::string test = to_lower(to_string(t));
    // The variants of a point took turns repetition by repetition: paired ratios of req/s
    // (higher is better).
    auto ratio = [&](std::int64_t d, const std::string& a, const std::string& b, std::string id,
                     std::optional<Claim> claim, std::string subject = {}) {
      auto ia = rps.find(rate_key(t, d, a)), ib = rps.find(rate_key(t, d, b));
      if (ia == rps.end() || ib == rps.end()) return;
      std::string not_judged;
      if (b == "redis-benchmark-cluster") {
        const auto run = shortest.find(rate_key(t, d, b));
        const double seconds = run == shortest.end() ? 0 : run->second;
        if (seconds < kRedisBenchmarkMinSeconds)
          not_judged = "a redis-benchmark run lasted " + format_fixed(seconds, 2) +
                       " s, too short for its 250 ms tick";
      }
      ctx.add_comparison({std::move(id), bench_title(t) + " at -P " + std::to_string(d),
                          ComparedPair{subject.empty() ? variant_name(a) : subject, variant_name(b),
                                       "requests/s", Quantity::Throughput, Better::Higher},
                          true, std::move(not_judged), std::move(claim), false, sweep_group_id(t)},
                         ia->second, ib->second);
    };
    ratio(2, "per-reply", "coalesced+nodelay", "collapse_p2." + test, published_collapse(t));
    ratio(2, "coalesced", "coalesced+nodelay", "coalesced_no_nodelay_p2." + test, std::nullopt);
    for (std::int64_t d : {1, 16})
      ratio(d, "coalesced+nodelay", "twemproxy", "vs_twemproxy_p" + std::to_string(d) + "." + test,
            std::nullopt);
    ratio(1, "coalesced+nodelay", "direct", "vs_direct_p1." + test, std::nullopt);
    for (std::int64_t d : {1, 16}) {
      const std::string p = "_p" + std::to_string(d) + "." + test;
      ratio(d, "cluster", "direct", "cluster_vs_direct" + p, std::nullopt);
      ratio(d, "proxy-cluster", "cluster", "proxy_cluster_vs_cluster" + p, std::nullopt);
      ratio(d, "cluster", "redis-benchmark-cluster", "cluster_vs_redis_benchmark" + p, std::nullopt,
            "Perflab's load generator --cluster");
    }
  }
}

}  // namespace perflab::sharding
