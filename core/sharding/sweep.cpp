// The sharding experiment's pipeline sweep: its variants (the proxy's write strategies, direct
// Redis, twemproxy, Redis Cluster, redis-benchmark --cluster) and the measurements.
#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>

#include "common/clock.h"
#include "common/stats.h"
#include "common/text.h"
#include "runner/rounds.h"
#include "sharding/redis_benchmark.h"
#include "sharding/servers.h"
#include "sharding/sweep_progress.h"

namespace perflab::sharding {

const std::vector<Variant>& all_variants() {
  static const std::vector<Variant> v = {
      {"direct", "direct redis", VariantKind::Direct},
      {"coalesced+nodelay", "coalesced+nodelay", VariantKind::Proxy,
       proxy::WriteStrategy::Coalesced, true},
      {"coalesced", "coalesced, no nodelay", VariantKind::Proxy, proxy::WriteStrategy::Coalesced,
       false},
      {"per-reply+nodelay", "per-reply+nodelay", VariantKind::Proxy, proxy::WriteStrategy::PerReply,
       true},
      {"per-reply", "per-reply, no nodelay (lazy)", VariantKind::Proxy,
       proxy::WriteStrategy::PerReply, false},
      {"twemproxy", "twemproxy", VariantKind::Twemproxy},
      {"cluster", "Redis Cluster (cluster client)", VariantKind::Cluster},
      {"redis-benchmark-cluster", "redis-benchmark --cluster", VariantKind::RedisBenchmarkCluster},
      {"proxy-cluster", "perflab-proxy over Redis Cluster", VariantKind::ProxyOverCluster},
  };
  return v;
}

std::vector<std::string> variant_tokens() {
  std::vector<std::string> out;
  for (const auto& v : all_variants()) out.push_back(v.token);
  return out;
}

const Variant& variant(const std::string& token) {
  for (const auto& v : all_variants())
    if (v.token == token) return v;
  throw std::invalid_argument("unknown variant '" + token + "'");
}

std::vector<std::string> test_tokens() {
  std::vector<std::string> out;
  for (BenchTest t : {BenchTest::Set, BenchTest::Get, BenchTest::Mset, BenchTest::Mget})
    out.push_back(to_lower(to_string(t)));
  return out;
}

std::string sweep_group_id(BenchTest t) {
  return "sweep_" + to_lower(to_string(t));
}

SweepPlan make_plan(const ShardingSettings& s) {
  SweepPlan plan;
  for (const auto& t : s.tests) plan.tests.push_back(parse_bench_test(t));
  for (const auto& token : s.variants) plan.variants.push_back(variant(token));
  plan.depths = s.preset == "seed" ? std::vector<std::int64_t>{1, 2} : s.depths;
  std::sort(plan.depths.begin(), plan.depths.end());
  plan.depths.erase(std::unique(plan.depths.begin(), plan.depths.end()), plan.depths.end());
  return plan;
}

bool uses_cluster(const Variant& v) {
  return v.kind == VariantKind::Cluster || v.kind == VariantKind::RedisBenchmarkCluster ||
         v.kind == VariantKind::ProxyOverCluster;
}

namespace {

// Does the variant run this test? (redis-benchmark has no MGET.)
bool runs(const Variant& v, BenchTest t) {
  return v.kind != VariantKind::RedisBenchmarkCluster || redis_benchmark_has(t);
}

void add_sweep_groups(RunContext& ctx, const std::vector<BenchTest>& tests, std::int64_t clients,
                      std::size_t nodes) {
  for (BenchTest t : tests) {
    Group g;
    g.id = sweep_group_id(t);
    g.title = bench_title(t) + " through the proxy, by pipeline depth";
    g.unit = "req/s";
    g.x_label = "pipeline depth (-P)";
    g.numeric_x = true;
    g.lower_is_better = false;
    g.log_y = g.log_x = true;  // depths 1..64, rates over decades: log-log
    g.headline = t == tests.front();
    g.baseline_series = "direct redis";  // what every proxy's rate is read against
    g.description =
        "Requests per second with -c " + std::to_string(clients) +
        " clients, each keeping -P requests in flight, through " + std::to_string(nodes) +
        " Redis nodes. Per-reply writes without TCP_NODELAY stall on Nagle + delayed ACK "
        "(~40 ms per round) as soon as two replies are outstanding.";
    ctx.add_group(g);
  }
}

// The load generator's options for every point of the sweep (port, pipeline and host per point).
BenchOptions base_bench_options(const ShardingSettings& s, const RedisTarget& target,
                                const std::string& key_prefix) {
  BenchOptions o;
  o.password = target.nodes.front().password;
  o.clients = s.clients;
  o.requests = s.requests;
  o.keyspace = s.keyspace;
  o.data_size = s.data_size;
  o.key_prefix = key_prefix;
  o.time_limit = std::chrono::milliseconds(static_cast<std::int64_t>(s.point_budget_s * 1000));
  o.reply_timeout = target.timeout;
  return o;
}

// The measurements of one variant at one point, over the repetitions.
struct PointSamples {
  Point point;
  std::map<std::string, std::vector<double>> extras;  // latency figures and counts
  double shortest_seconds = 0;                        // of the runs (0 before the first)
  void add(const BenchResult& r) {
    shortest_seconds = point.samples.empty() ? r.seconds : std::min(shortest_seconds, r.seconds);
    point.samples.push_back(r.rps);
    extras["p50_ms"].push_back(r.p50_ms);
    extras["p95_ms"].push_back(r.p95_ms);
    extras["p99_ms"].push_back(r.p99_ms);
    extras["max_ms"].push_back(r.max_ms);
    extras["avg_ms"].push_back(r.avg_ms);
    extras["requests"].push_back(static_cast<double>(r.requests));
    extras["seconds"].push_back(r.seconds);
    extras["time_limited"].push_back(r.time_limited ? 1.0 : 0.0);
  }
  // The point at depth d: latency figures are the median over the repetitions (max: the largest).
  Point finish(std::int64_t d) {
    point.label = std::to_string(d);
    point.x = static_cast<double>(d);
    for (auto& [name, vals] : extras)
      point.extra[name] =
          name == "max_ms" ? *std::max_element(vals.begin(), vals.end()) : quantile(vals, 0.5);
    return std::move(point);
  }
};

}  // namespace

std::string rate_key(BenchTest t, std::int64_t d, const std::string& v) {
  return std::string(to_string(t)) + "|" + std::to_string(d) + "|" + v;
}

namespace {

// The sweep's measurements: each (test, depth) point with the variants taking turns.
struct Sweep {
  Sweep(RunContext& c, const ServersUnderTest& s, BenchOptions b, std::string host, int w, int r,
        bool compared)
      : ctx(c),
        servers(s),
        base(std::move(b)),
        direct_host(std::move(host)),
        warmup(w),
        repetitions(r),
        compared_only(compared) {}
  RunContext& ctx;
  const ServersUnderTest& servers;
  BenchOptions base;
  std::string direct_host;
  int warmup = 0, repetitions = 1;
  bool compared_only = false;  // at a depth with findings, only the variants they compare
  std::optional<SweepProgress> progress;  // when each measurement begins
  std::size_t test_i = 0, depth_i = 0;    // the point measured: its test's and depth's index
  std::string rounds_text;  // measuring adaptively: how far the point's rounds have settled
  // The progress when the findings start: after the last measurement of a default run (debug
  // build) they took a tenth of its time while it read 100%.
  static constexpr double kFindingsFrom = 0.97;
  SweepRates rps;
  SweepSeconds shortest;
  std::map<std::string, std::int64_t> redis_benchmark_requests;  // its -n per rate_key

  // The variants take turns, `warmup` rounds unmeasured then `repetitions` measured, so that
  // drifts of a busy machine hit them all; then each variant's point is published.
  // With a precision, rounds go on until the ratios the findings state at this depth (or,
  // at a depth without any, every variant's median) are that precise; with `verdicts`, until
  // those ratios have verdicts. With compared_only, a depth where the findings compare
  // variants measures only those: the others would take its time and settle nothing.
  void measure(BenchTest t, std::int64_t d) {
    std::vector<Variant> running;  // those that run this test
    for (const auto& v : servers.variants)
      if (runs(v, t)) running.push_back(v);
    const auto has = [&](const char* token) {
      return std::any_of(running.begin(), running.end(), [&](auto& v) { return v.token == token; });
    };
    std::vector<std::string> compared;
    for (const SweepRatio& r : sweep_ratios())
      if (compared_only && r.depth == d && has(r.a) && has(r.b))
        compared.insert(compared.end(), {r.a, r.b});
    std::vector<Variant> variants;     // those measured here
    std::vector<std::size_t> indices;  // each one's index among `running` (the progress's)
    for (std::size_t i = 0; i < running.size(); ++i)
      if (compared.empty() ||
          std::find(compared.begin(), compared.end(), running[i].token) != compared.end()) {
        variants.push_back(running[i]);
        indices.push_back(i);
      }
    const std::size_t n = variants.size();
    std::vector<PointSamples> samples(n);
    PointRounds rounds(ctx, warmup, repetitions, n);
    const auto at = [&](const char* token) {
      for (std::size_t vi = 0; vi < n; ++vi)
        if (variants[vi].token == token) return vi;
      return n;
    };
    for (const SweepRatio& r : sweep_ratios())
      if (r.depth == d && at(r.a) < n && at(r.b) < n) rounds.track_ratio(at(r.a), at(r.b));
    rounds.focus();  // after the minimum, only the variants of ratios without a verdict
    while (rounds.next()) {
      const bool warmup_round = rounds.warmup();
      std::vector<double> round(n);
      for (std::size_t vi = 0; vi < n; ++vi) {
        if (!rounds.needs(vi)) {
          round[vi] = std::numeric_limits<double>::quiet_NaN();
          continue;
        }
        const BenchResult r = once(t, d, variants[vi], indices[vi], rounds.round());
        round[vi] = r.rps;
        if (!warmup_round) samples[vi].add(r);
      }
      rounds.record(round);
      rounds_text = rounds.precision() ? rounds.progress_text() : std::string();
    }
    rounds_text.clear();
    for (std::size_t vi = 0; vi < n; ++vi) {
      Point pt = samples[vi].finish(d);
      pt.precision = rounds.precision();
      if (pt.precision) pt.precision->rounds = static_cast<int>(pt.samples.size());
      shortest[rate_key(t, d, variants[vi].token)] = samples[vi].shortest_seconds;
      rps[rate_key(t, d, variants[vi].token)] = pt.samples;
      ctx.add_point(sweep_group_id(t), variants[vi].series, std::move(pt));
    }
  }

  // Before the sweep, each variant runs briefly at each depth (a fifth of its requests, for
  // at most a tenth of its budget and kProbeLimit), so that the progress knows what a depth
  // will take before it is measured (SweepProgress::probed): the rate at -P 1 foretells
  // nothing of the collapse at -P 2, which is most of a lecture sweep's time. Probes are not
  // points. redis-benchmark's cluster runs are not probed: each is a process sized by its own
  // runs.
  static constexpr std::chrono::milliseconds kProbeLimit{50};
  void probe(const std::vector<BenchTest>& tests, const std::vector<std::int64_t>& depths,
             double from) {
    for (std::size_t ti = 0; ti < tests.size(); ++ti) {
      std::size_t vi = 0;  // the variant's index among those that run this test
      for (const auto& v : servers.variants) {
        if (!runs(v, tests[ti])) continue;
        for (std::size_t di = 0; v.kind != VariantKind::RedisBenchmarkCluster && di < depths.size();
             ++di) {
          ctx.check_stop();
          // Not "-P n": the steps of measurements say that.
          ctx.progress(from, "timing depth " + std::to_string(depths[di]) +
                                 " briefly: " + bench_title(tests[ti]) + ", " + v.series);
          BenchOptions o = variant_bench_options(base, servers, v, direct_host);
          o.pipeline = static_cast<int>(depths[di]);
          o.requests = std::max<std::int64_t>(base.requests / 5, o.clients * o.pipeline);
          o.time_limit = base.time_limit.count() > 0 ? std::min(kProbeLimit, base.time_limit / 10)
                                                     : kProbeLimit;
          o.time_limit = std::max(o.time_limit, std::chrono::milliseconds(1));
          const std::int64_t began_ns = wall_ns();
          const BenchResult r = run_bench(o, tests[ti], ctx.stop_token());
          if (r.cancelled) ctx.check_stop();
          const double wall_s = static_cast<double>(wall_ns() - began_ns) / 1e9;
          if (r.errors == 0)  // the measurement says what went wrong
            progress->probed(ti, di, vi, wall_s - r.seconds, r.seconds, r.requests);
        }
        ++vi;
      }
    }
  }

  BenchResult once(BenchTest t, std::int64_t d, const Variant& v, std::size_t vi, int round) {
    ctx.check_stop();
    ctx.progress(progress->begin(test_i, depth_i, vi, round),
                 bench_title(t) + ", -P " + std::to_string(d) + ", " + v.series +
                     (rounds_text.empty() ? "" : " — " + rounds_text));
    const std::int64_t began_ns = wall_ns();
    BenchOptions o = variant_bench_options(base, servers, v, direct_host);
    o.pipeline = static_cast<int>(d);
    BenchResult r = v.kind == VariantKind::RedisBenchmarkCluster
                        ? redis_benchmark_long_enough(o, t, d)
                        : run_bench(o, t, ctx.stop_token());
    if (r.cancelled) ctx.check_stop();
    if (r.errors > 0)
      throw std::runtime_error(v.series + " answered " + std::to_string(r.errors) + " of " +
                               std::to_string(r.requests) + " " + bench_title(t) +
                               " requests with an error, e.g. " + r.first_error);
    progress->measured(test_i, depth_i, vi, static_cast<double>(wall_ns() - began_ns) / 1e9,
                       r.requests);
    return r;
  }

  // redis-benchmark --cluster with -n raised until a run lasts kRedisBenchmarkMinSeconds (its
  // 250 ms tick would make a shorter one read slow); the -n found is kept for the point's
  // later rounds. A shorter run is run again, up to 6 runs in all; should the last still be
  // shorter, it is kept and the ratio against it is not judged (sweep_findings).
  BenchResult redis_benchmark_long_enough(BenchOptions o, BenchTest t, std::int64_t d) {
    constexpr std::int64_t kMaxRequests = 100'000'000;
    std::int64_t& n = redis_benchmark_requests[rate_key(t, d, "redis-benchmark-cluster")];
    n = std::max(n, o.requests);
    // Its whole run is bounded by 4 times the budget + 10 s: the budget of a sized run.
    o.time_limit = std::max<std::chrono::milliseconds>(
        o.time_limit, std::chrono::milliseconds(
                          static_cast<std::int64_t>(kRedisBenchmarkMinSeconds * 1.3 * 1000)));
    for (int attempt = 1;; ++attempt) {
      o.requests = n;
      BenchResult r = run_redis_benchmark(o, t, ctx.stop_token());
      if (r.cancelled || r.errors > 0 || r.seconds >= kRedisBenchmarkMinSeconds || attempt == 6 ||
          n >= kMaxRequests)
        return r;
      // Its rate is at least n / seconds (the tick only adds time): aim 30% past the minimum.
      // A run within its first two ticks says little of the rate: then at least 16 times more.
      const double wanted =
          static_cast<double>(n) * kRedisBenchmarkMinSeconds * 1.3 / std::max(r.seconds, 0.25);
      const std::int64_t grown = r.seconds <= 0.5 ? 16 * n : 2 * n;
      n = std::min(kMaxRequests, std::max(grown, static_cast<std::int64_t>(wanted)));
    }
  }
};

}  // namespace

void run_sweep(RunContext& ctx, const ShardingSettings& s, const SweepPlan& plan,
               const TargetNeeds& need) {
  const RunServers run(ctx, need, "bench:key:", s.keyspace, plan.progress_from * 0.6,
                       plan.progress_from * 0.8);
  const RedisTarget& target = run.target;
  const ServersUnderTest servers = start_servers(ctx, target, run.cluster, plan.variants);
  add_sweep_groups(ctx, plan.tests, s.clients, target.nodes.size());

  Sweep sweep(ctx, servers, base_bench_options(s, target, run.key_prefix),
              target.nodes.front().host, s.runner.warmup, s.runner.repetitions, s.compared_only);
  std::vector<std::size_t> variants_per_test;
  for (BenchTest t : plan.tests)
    variants_per_test.push_back(static_cast<std::size_t>(std::count_if(
        servers.variants.begin(), servers.variants.end(), [&](auto& v) { return runs(v, t); })));
  // Warm-up rounds take their turn like measured ones (PointRounds::round counts them).
  sweep.progress.emplace(variants_per_test, plan.depths, sweep.warmup + sweep.repetitions,
                         s.point_budget_s, s.requests, plan.progress_from, Sweep::kFindingsFrom);
  // redis-benchmark --cluster runs until it has lasted kRedisBenchmarkMinSeconds, 30% past it
  // aimed, after shorter runs that size its -n (about a second, measured at -P 1 and -P 64).
  for (std::size_t ti = 0; ti < plan.tests.size(); ++ti) {
    std::size_t vi = 0;
    for (const auto& v : servers.variants) {
      if (!runs(v, plan.tests[ti])) continue;
      if (v.kind == VariantKind::RedisBenchmarkCluster)
        sweep.progress->timed(ti, vi, kRedisBenchmarkMinSeconds * 1.3 + 1.0);
      ++vi;
    }
  }
  // Every (test, depth) is a point of its own: they share what remains of the run's budget.
  ctx.expect_points(plan.tests.size() * plan.depths.size());
  try {
    sweep.probe(plan.tests, plan.depths, plan.progress_from);
    for (sweep.test_i = 0; sweep.test_i < plan.tests.size(); ++sweep.test_i)
      for (sweep.depth_i = 0; sweep.depth_i < plan.depths.size(); ++sweep.depth_i)
        sweep.measure(plan.tests[sweep.test_i], plan.depths[sweep.depth_i]);
  } catch (...) {
    // A stopped run keeps the figures of the depths it completed.
    if (ctx.stop_requested()) sweep_findings(ctx, plan.tests, sweep.rps, sweep.shortest);
    throw;
  }
  ctx.progress(Sweep::kFindingsFrom, "findings: the ratios and their intervals");
  sweep_findings(ctx, plan.tests, sweep.rps, sweep.shortest);
}

}  // namespace perflab::sharding
