// The caching experiment's cache-aside sweep: documents in PostgreSQL read through Redis and a
// local cache of each budget (Zipf reads), per encoding; hit ratio and latency per budget.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "caching/caching_run.h"
#include "caching/zipf.h"
#include "common/clock.h"
#include "runner/expected_progress.h"
#include "targets/pg_transaction.h"

namespace perflab::caching {

namespace {

void add_aside_groups(RunContext& ctx) {
  Group hits{"aside_hit_ratio",
             "Cache-aside: local hit ratio vs local budget",
             "%",
             "local cache budget (MB)",
             true,
             false,
             "Share of Zipf-distributed document reads answered by the in-process cache "
             "(local → redis → postgres) in steady state, per encoding of the cached value: "
             "compressed values fit more documents into the same budget.",
             false,
             true};
  hits.y_label = "% of reads answered locally, higher is better";
  ctx.add_group(hits);
  ctx.add_group({"aside_latency", "Cache-aside: mean read latency vs local budget", "us/read",
                 "local cache budget (MB)", true, true,
                 "Mean wall time of a read through local → redis → postgres (samples: means of "
                 "consecutive chunks of reads).",
                 false, true});
}

// The cache-aside documents, in PostgreSQL (the source of truth); their keys.
std::vector<std::string> load_aside_documents(RunContext& ctx, const CachingPlan& plan,
                                              PostgresTier& source) {
  std::vector<std::string> keys;
  keys.reserve(plan.aside_keys);
  PgTransaction tx(source.connection());  // a stop rolls the half-loaded set back
  for (std::size_t i = 0; i < plan.aside_keys; ++i) {
    ctx.check_stop();
    Document d = generate_document(plan.seed, i + 1, plan.doc_bytes);
    keys.push_back(d.key);
    source.put_document(d);
  }
  tx.commit();
  return keys;
}

// A read through local memory, then Redis, then PostgreSQL, filling the caches on the way
// back, with the counts of where reads were answered.
class CacheAside {
 public:
  CacheAside(LocalTier& local, RedisTier& redis, PostgresTier& source, const Codec& codec)
      : local_(local), redis_(redis), source_(source), codec_(codec) {}

  void read(const std::string& key) {
    if (local_.get_document(key)) {
      ++local_hits;
      return;
    }
    std::optional<std::string> bytes = redis_.get_document_bytes(key);
    std::shared_ptr<const Document> obj;
    if (bytes) {
      ++redis_hits;
    } else {
      ++pg_reads;
      obj = source_.get_document(key);
      if (!obj) throw std::runtime_error("PostgreSQL lost document " + key);
      bytes = codec_.encode(*obj);
      redis_.put_document_bytes(key, *bytes);
    }
    if (!obj) obj = std::make_shared<const Document>(codec_.decode_document(*bytes));
    if (codec_.encoding == Encoding::Native)
      local_.put_document(std::move(obj));
    else
      local_.put_document_bytes(key, std::move(*bytes));
  }

  std::int64_t local_hits = 0, redis_hits = 0, pg_reads = 0;

 private:
  LocalTier& local_;
  RedisTier& redis_;
  PostgresTier& source_;
  const Codec& codec_;
};

// One (encoding, budget) point of the cache-aside sweep: caches emptied, warmed up to steady
// state, then aside_reads measured Zipf reads in chunks (a sample per chunk).
void measure_aside(RunContext& ctx, const CachingPlan& plan, RedisTier& redis, PostgresTier& source,
                   const Codec& codec, const std::vector<std::string>& keys,
                   std::int64_t budget_mb) {
  redis.remove_own_keys();  // each budget starts from empty caches
  LocalTier local(static_cast<std::size_t>(budget_mb) * kMiB, codec);
  ZipfSampler zipf(keys.size(), plan.zipf_s, derive_seed(plan.seed, 3, 0));
  CacheAside aside(local, redis, source, codec);
  // Warm-up, not measured: every key once (fills Redis from PostgreSQL, so the measured reads
  // see no first-time misses), then as many Zipf reads as will be measured (brings the local
  // cache to its steady state).
  for (const auto& k : keys) {
    ctx.check_stop();
    aside.read(k);
  }
  for (std::int64_t i = 0; i < plan.aside_reads; ++i) {
    ctx.check_stop();
    aside.read(keys[zipf.next()]);
  }
  aside.local_hits = aside.redis_hits = aside.pg_reads = 0;
  local.cache().reset_counters();

  const std::int64_t chunk = std::max<std::int64_t>(1, plan.aside_reads / 20);
  std::vector<double> lat_samples, hit_samples;
  double total_ns = 0;
  for (std::int64_t i = 0; i < plan.aside_reads;) {
    const std::int64_t n = std::min(chunk, plan.aside_reads - i);
    const std::int64_t hits0 = aside.local_hits;
    const std::int64_t t0 = wall_ns();
    for (std::int64_t j = 0; j < n; ++j) {
      ctx.check_stop();
      aside.read(keys[zipf.next()]);
    }
    const double ns = static_cast<double>(wall_ns() - t0);
    total_ns += ns;
    lat_samples.push_back(ns / 1e3 / static_cast<double>(n));
    hit_samples.push_back(100.0 * static_cast<double>(aside.local_hits - hits0) /
                          static_cast<double>(n));
    i += n;
  }
  redis.remove_own_keys();  // the next point, of another encoding, sees only its own keys
  const LruStats st = local.stats();
  const double reads_d = static_cast<double>(plan.aside_reads);
  std::map<std::string, double> extra{
      {"hit_ratio_pct", 100.0 * static_cast<double>(aside.local_hits) / reads_d},
      {"mean_us", total_ns / 1e3 / reads_d},
      {"local_hits", static_cast<double>(aside.local_hits)},
      {"redis_hits", static_cast<double>(aside.redis_hits)},
      {"postgres_reads", static_cast<double>(aside.pg_reads)},
      {"evictions", static_cast<double>(st.evictions)},
      {"local_entries", static_cast<double>(st.entries)},
      {"local_bytes", static_cast<double>(st.bytes)}};
  const std::string series = to_string(codec.encoding);
  const double x = static_cast<double>(budget_mb);
  ctx.add_point("aside_hit_ratio", series,
                Point{std::to_string(budget_mb), x, hit_samples, {}, extra});
  ctx.add_point("aside_latency", series,
                Point{std::to_string(budget_mb), x, lat_samples, {}, extra});
}

}  // namespace

namespace {

// A read of the sweep on this 2-core machine's release build with nothing else running (three
// default runs: 500 documents, 2,000 reads, 7 budgets; a point's mean seconds over the reads of
// its warm-up and measurement), and the same over the matrix's median document get from Redis
// in its encoding (seventeen quiet default runs on two days: 0.6 to 0.8, 1.1 to 1.5, 0.6 to 0.8
// and 2.3 to 2.8). A read is a round trip to Redis, often one to PostgreSQL and a store on a
// miss: it costs what a get from Redis does, more or less. The matrix's gets tell how fast the
// machine is now: probes before it (encoding and decoding the document 201 times) foretold quiet
// sweeps from 13% short to 32% long, the gets from 10% short to 16% long on the runs above, 19%
// short to 32% long on ten quiet runs after (this machine's speed drifts by a fifth in minutes).
struct ReadCost {
  double quiet_s, per_redis_get;
};
ReadCost read_cost(Encoding e) {
  switch (e) {
    case Encoding::Native:
      return {81e-6, 0.65};
    case Encoding::Json:
      return {168e-6, 1.25};
    case Encoding::Protobuf:
      return {89e-6, 0.75};
    case Encoding::ProtobufZlib:
      return {803e-6, 2.55};
  }
  return {250e-6, 2};
}

// Loading the sweep's documents into PostgreSQL: 1.2 to 1.5 s for the default 500 here, quiet or
// beside two busy loops.
double load_seconds(const CachingPlan& plan) {
  constexpr double kLoadDocumentS = 2.8e-3;
  return static_cast<double>(plan.aside_keys) * kLoadDocumentS;
}
}  // namespace

double aside_seconds(const CachingPlan& plan, const MatrixPace& pace) {
  if (!plan.aside()) return 0;
  const double reads =
      static_cast<double>(plan.budgets.size()) *
      static_cast<double>(plan.aside_keys + 2 * static_cast<std::size_t>(plan.aside_reads));
  double seconds = 0;
  for (Encoding e : plan.encodings) {
    const ReadCost c = read_cost(e);
    const auto get = pace.redis_document_s.find(e);
    const bool measured = get != pace.redis_document_s.end() && get->second > 0;
    seconds += reads * (measured ? c.per_redis_get * get->second : c.quiet_s);
  }
  return load_seconds(plan) + seconds * aside_load(pace.mean_over_median);
}

double aside_load(double mean_over_median) {
  // Twenty-seven default runs here, ten with two busy loops beside: the quiet ones' gets took
  // 0.97 to 1.08 times their medians on average, the loaded ones' 1.25 to 1.36 times, and their
  // sweeps 1.93 to 2.28 times what the medians foretold for a quiet machine. Four times the
  // gets' excess over a quiet machine's most foretold all 27 sweeps from 13% short to 16% long.
  // A get waits for a core now and then, its median not; a read of the sweep, a round trip to
  // Redis and often one to PostgreSQL, waits more often.
  constexpr double kQuiet = 1.05, kExcess = 4.0;
  if (!std::isfinite(mean_over_median)) return 1.0;
  return 1.0 + kExcess * std::clamp(mean_over_median - kQuiet, 0.0, 1.0);
}

// The cache-aside scenario: documents in PostgreSQL, read through Redis and a local cache of
// each budget, per encoding of the cached value. The encodings take turns at each budget, so
// that a busy machine's drifts hit them all, and so that the progress keeps one pace: a
// protobuf+zlib point (compressing every document it warms up with) took 5 s here against
// 0.5 to 1.5 s for the others, and the encodings one after another read "~5 s left" with 26 s
// to go.
void run_aside(RunContext& ctx, const CachingPlan& plan, const CachingServers& servers,
               double share) {
  add_aside_groups(ctx);
  // The loading, then each point: a point is expected to take what its encoding's last one took;
  // before its first, its encoding's quiet read cost times how the points measured compare with
  // theirs (expected alike, a first protobuf+zlib point took 3 to 6 s against the 0.5 s of the
  // others: the progress stood still through it).
  const double reads = static_cast<double>(plan.aside_keys + 2 * std::size_t(plan.aside_reads));
  ExpectedProgress progress(share, 1);
  const std::size_t loading = progress.add(load_seconds(plan));
  for (std::size_t i = 0; i < plan.budgets.size() * plan.encodings.size(); ++i)
    progress.add(reads * read_cost(plan.encodings[i % plan.encodings.size()]).quiet_s);
  ctx.progress(progress.at(loading), "loading " + std::to_string(plan.aside_keys) +
                                         " documents into PostgreSQL for the cache-aside scenario");
  PostgresTier source(servers.pg, Codec{Encoding::Native, plan.zlib_level}, ctx.stop_token());
  const std::vector<std::string> keys = load_aside_documents(ctx, plan, source);
  std::vector<Codec> codecs;
  std::vector<std::unique_ptr<RedisTier>> redis;
  for (Encoding enc : plan.encodings) {
    codecs.push_back(Codec{enc, plan.zlib_level});
    redis.push_back(std::make_unique<RedisTier>(servers.redis, codecs.back(), ctx.stop_token()));
  }
  std::vector<double> took(codecs.size(), 0);
  double took_s = 0, quiet_s = 0;
  std::size_t part = loading + 1;
  for (std::int64_t budget_mb : plan.budgets)
    for (std::size_t e = 0; e < codecs.size(); ++e, ++part) {
      ctx.check_stop();
      ctx.progress(progress.at(part), std::string("cache-aside: ") + to_string(codecs[e].encoding) +
                                          ", local budget " + std::to_string(budget_mb) + " MB");
      const std::int64_t began_ns = wall_ns();
      measure_aside(ctx, plan, *redis[e], source, codecs[e], keys, budget_mb);
      took[e] = static_cast<double>(wall_ns() - began_ns) / 1e9;
      took_s += took[e];
      quiet_s += reads * read_cost(codecs[e].encoding).quiet_s;
      for (std::size_t later = part + 1; later < progress.size(); ++later) {
        const std::size_t k = (later - loading - 1) % codecs.size();
        progress.expect(
            later, took[k] > 0 ? took[k]
                               : reads * read_cost(codecs[k].encoding).quiet_s * took_s / quiet_s);
      }
    }
}

}  // namespace perflab::caching
