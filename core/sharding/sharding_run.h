#pragma once
// One sharding run as its parts share it: the sweep's variants and plan, the rates it measured
// (which the findings read), and the seed article's figures. Internal to the experiment.
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "proxy/proxy.h"
#include "runner/experiment.h"
#include "sharding/loadgen.h"
#include "sharding/settings.h"

namespace perflab::sharding {

// The seed article's figures (RedisSharding through 4 nodes, redis-benchmark -c 10 -n 10000,
// requests/s), written once: the collapse findings carry lazy/strict at -P 2, article() the table.
struct SeedFigure {
  const char* version;  // the lazy Haskell proxy, or the strict (fixed) one
  int pipeline;
  double set, get, mset;
  double of(BenchTest t) const {
    return t == BenchTest::Set ? set : t == BenchTest::Get ? get : t == BenchTest::Mset ? mset : 0;
  }
};

// The published figure of one version at one depth (sharding/article.cpp).
const SeedFigure& seed_figure(const std::string& version, int pipeline);

// The seed article's tables and notes.
Article sharding_article();

// Cluster: the load generator's --cluster straight to the masters; RedisBenchmarkCluster:
// redis-benchmark --cluster on the same cluster (a peer, managed clusters only: its keys are not
// under Perflab's prefix; it has no MGET).
// ProxyOverCluster: perflab-proxy with the cluster as its upstream (--cluster), the load
// generator as a plain client.
enum class VariantKind {
  Direct,
  Proxy,
  Twemproxy,
  Cluster,
  RedisBenchmarkCluster,
  ProxyOverCluster
};

struct Variant {
  std::string token;   // in the `variants` parameter
  std::string series;  // in the charts
  VariantKind kind;
  proxy::WriteStrategy write = proxy::WriteStrategy::Coalesced;
  bool nodelay = true;
};

// Every variant of the `variants` parameter, in its order (sharding/sweep.cpp).
const std::vector<Variant>& all_variants();
std::vector<std::string> variant_tokens();
const Variant& variant(const std::string& token);
std::vector<std::string> test_tokens();
bool uses_cluster(const Variant& v);

// What a run sweeps, from its settings.
struct SweepPlan {
  std::vector<BenchTest> tests;
  std::vector<Variant> variants;
  std::vector<std::int64_t> depths;  // ascending, each once
  // The share of the run done when the sweep starts (the key distribution before it).
  double progress_from = 0.05;
};

SweepPlan make_plan(const ShardingSettings& s);

// req/s samples per "test|depth|variant", in the order of the repetitions, for the findings.
using SweepRates = std::map<std::string, std::vector<double>>;

std::string rate_key(BenchTest t, std::int64_t d, const std::string& v);
// The chart of one test's sweep, "sweep_set" (sharding/sweep.cpp).
std::string sweep_group_id(BenchTest t);

// The ratios the sweep is for: the collapse, and the proxy against twemproxy and direct Redis
// (a / b of req/s at a depth). sweep_findings() states them; a precision watches them.
struct SweepRatio {
  std::int64_t depth;
  const char *a, *b;
};
// The table of them (sharding/findings.cpp).
std::span<const SweepRatio> sweep_ratios();

// redis-benchmark's threads (--cluster) end a run on a 250 ms timer tick (its elapsed time
// carries 0.125 s on average): the sweep gives each of its runs enough requests to last this
// long (a shorter run is run again with more), and a ratio against a shorter one is not judged.
inline constexpr double kRedisBenchmarkMinSeconds = 2.5;

// The shortest run of each "test|depth|variant" (seconds).
using SweepSeconds = std::map<std::string, double>;

// The comparisons of the sweep: the collapse, the proxy against its peers (sharding/findings.cpp).
void sweep_findings(RunContext& ctx, const std::vector<BenchTest>& tests, const SweepRates& rps,
                    const SweepSeconds& shortest);

// The pipeline sweep: its servers started, every (test, depth) point measured with the variants
// taking turns, then the findings (sharding/sweep.cpp).
void run_sweep(RunContext& ctx, const ShardingSettings& s, const SweepPlan& plan,
               const TargetNeeds& need);

// The key distribution tables over the synthetic keys key:000000000000... on `nodes` nodes and
// one more (sharding/distribution.cpp).
void distribution(RunContext& ctx, int nkeys, int nodes);

// Checks, before anything runs, that the user's keys can be asked for as the parameters say
// (keys_file given for `file`, a configured Redis for `redis`, nothing else asked of the run);
// throws ParamError naming the parameter. Nothing for synthetic keys.
void check_user_keys(const ShardingSettings& s, const TargetsConfig& cfg);
// The key distribution tables over the user's keys (SCAN of the configured Redis, or the file),
// and what was read: how many keys, SCAN calls, whether all of them, a fingerprint of the set.
void user_distribution(RunContext& ctx, const ShardingSettings& s);

}  // namespace perflab::sharding
