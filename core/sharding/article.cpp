// The seed article's figures (RedisSharding through 4 nodes, redis-benchmark -c 10 -n 10000,
// requests/s), written once: the collapse findings carry lazy/strict at -P 2, article() the table.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "common/text.h"
#include "sharding/sharding_run.h"

namespace perflab::sharding {

namespace {

constexpr SeedFigure kSeed[] = {
    {"lazy", 1, 20000.00, 19801.98, 9891.20},
    {"lazy", 2, 195.46, 196.31, 196.29},
    {"strict", 1, 16103.06, 15898.25, 9337.07},
    {"strict", 2, 25906.74, 25839.79, 12285.01},
};

}  // namespace

const SeedFigure& seed_figure(const std::string& version, int pipeline) {
  for (const auto& s : kSeed)
    if (s.version == version && s.pipeline == pipeline) return s;
  throw std::logic_error("no published figure for " + version);
}

Article sharding_article() {
  Article a;
  a.source =
      "RedisSharding benchmarks as published in the article (seed 002): redis-benchmark -n "
      "10000 -c 10 -q -t set,get,mset -P 1|2 through the proxy, 4 Redis nodes, requests/s.";
  ArticleTable seed{"Published figures: lazy vs strict proxy, without and with pipelining",
                    "requests/s",
                    {"version", "-P", "SET", "GET", "MSET (10 keys)"},
                    {}};
  for (const auto& s : kSeed)
    seed.rows.push_back({s.version, std::to_string(s.pipeline), format_fixed(s.set, 2),
                         format_fixed(s.get, 2), format_fixed(s.mset, 2)});
  a.tables.push_back(std::move(seed));
  a.tables.push_back(
      {"Peers measured on this kind of machine (2 cores), 4 backends, -c 10 -n 100000 (noisy "
       "single samples)",
       "requests/s",
       {"target", "test", "-P 1", "-P 2", "-P 16"},
       {{"direct Redis", "SET", "≈ 42k", "≈ 74k", "≈ 613k"},
        {"twemproxy (nutcracker 0.5)", "SET", "≈ 25k", "≈ 49k", "≈ 134k"},
        {"twemproxy (nutcracker 0.5)", "GET", "≈ 26k", "≈ 45k", "≈ 220k"},
        {"twemproxy (nutcracker 0.5)", "MSET", "≈ 24k", "≈ 42k", "≈ 125k"}}});
  a.tables.push_back(
      {"Other published points",
       "",
       {"what", "figure"},
       {{"twemproxy against direct Redis, client on a separate machine", "4–6% slower"},
        {"predixy (one thread) vs direct Redis, no pipelining", "≈ 174k vs 167k requests/s"},
        {"predixy vs direct Redis at -P 20", "935k vs 1,708k requests/s"},
        {"twemproxy's MGET of 10k keys when its splitting was quadratic",
         "1.7 s vs 16 ms direct"}}});
  const double lazy_set_ratio =
      seed_figure("lazy", 2).set / seed_figure("lazy", 1).set;  // the 100x collapse
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2g", lazy_set_ratio);
  a.notes.push_back(std::string("lazy at -P 2 / lazy at -P 1 ≈ ") + ratio +
                    " for SET: a 100× collapse, the signature of Nagle + delayed ACK.");
  return a;
}

}  // namespace perflab::sharding
