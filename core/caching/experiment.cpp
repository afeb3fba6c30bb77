#include "caching/experiment.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "caching/codec.h"
#include "caching/records.h"
#include "caching/tiers.h"
#include "caching/zipf.h"
#include "common/clock.h"
#include "runner/rounds.h"
#include "targets/postgres.h"
#include "targets/targets.h"

namespace perflab {

namespace {

using namespace caching;

constexpr std::size_t kMiB = 1024 * 1024;
constexpr std::int64_t kListGroup = 1;
const char* kWorkloads[] = {"document", "list"};

// The article's figures (App Engine: datastore, memcache, instance memory), written once: the
// findings carry them as Finding::article and article() quotes them in the published table.
// Each is a ratio as the finding computes it.
struct Published {
  double memcache_faster;   // datastore time / memcache time
  double memcache_cheaper;  // datastore CPU / memcache CPU
  // memcache+protobuf / memcache, time and CPU: a range as published, the claim its middle
  double protobuf_lo, protobuf_hi;
  std::optional<double> zlib_slower;                 // +zlib / protobuf, time
  std::optional<double> local_faster;                // datastore time / local memory time
  std::optional<double> local_protobuf_vs_memcache;  // local+protobuf / memcache+protobuf
  double protobuf() const { return (protobuf_lo + protobuf_hi) / 2; }
};
constexpr Published kPublishedDocument{2.0,          2.0,          1.0,         1.0,
                                       std::nullopt, std::nullopt, std::nullopt};
constexpr Published kPublishedList{1.5, 15.0, 1.20, 1.25, 1.05, 100.0, 1.0};

// The article's figures as claims, each with the yardstick its words allow (docs/caching.md):
// "about 2×" within ±25%; "15× cheaper" and "~100× faster" as orders of magnitude (at least a
// third of the figure); "no visible change" within ±5%, "the same" within ±10%; "20–25% slower"
// as that range widened by 5% either side; "~5% slower" as 1.00–1.10.
struct Claims {
  std::optional<Claim> memcache_faster, memcache_cheaper, protobuf, zlib_slower, local_faster,
      local_protobuf_vs_memcache;
};
Claims claims(const Published& p) {
  auto about = [](double v) { return claim_value(v, v * 0.25); };
  auto order = [](double v) { return claim_above(v, v / 3); };
  Claims c;
  c.memcache_faster = about(p.memcache_faster);
  c.memcache_cheaper =
      p.memcache_cheaper >= 10 ? order(p.memcache_cheaper) : about(p.memcache_cheaper);
  c.protobuf = p.protobuf_hi == 1.0
                   ? claim_no_change(1.0, 0.05)
                   : claim_value(p.protobuf(), (p.protobuf_hi - p.protobuf_lo) / 2 + 0.05);
  if (p.zlib_slower) c.zlib_slower = claim_value(*p.zlib_slower, 0.05);
  if (p.local_faster) c.local_faster = order(*p.local_faster);
  if (p.local_protobuf_vs_memcache)
    c.local_protobuf_vs_memcache = claim_no_change(*p.local_protobuf_vs_memcache, 0.10);
  return c;
}

std::string times(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g×", v);
  return buf;
}
std::string percent_more(double ratio) {
  return std::to_string(static_cast<int>(std::lround((ratio - 1) * 100)));
}

ArticleTable published_table() {
  const Published& d = kPublishedDocument;
  const Published& l = kPublishedList;
  auto protobuf = [](const Published& p) {
    return p.protobuf_hi == 1.0 ? std::string("no visible change")
                                : percent_more(p.protobuf_lo) + "–" + percent_more(p.protobuf_hi) +
                                      "% slower and costlier";
  };
  const std::string none = "—";
  return {
      "What the article found",
      "",
      {"tier / encoding", "one 60 KB record", "list of 1,000 records"},
      {{"datastore", "fine by key", "~440 ms and 10 s of api_cpu: the reason to cache"},
       {"memcache",
        std::string("~") + times(d.memcache_faster) + " faster, " + times(d.memcache_cheaper) +
            " cheaper in CPU (~10 ms saved)",
        times(l.memcache_faster) + " faster, " + times(l.memcache_cheaper) + " cheaper in CPU"},
       {"memcache + protobuf", protobuf(d), protobuf(l)},
       {"memcache + protobuf + zlib", "get 1 ms faster, decompression eats the gain",
        std::string("~") + percent_more(*l.zlib_slower) + "% slower"},
       {"local memory", none, std::string("~") + times(*l.local_faster) + " faster, almost no CPU"},
       {"local memory + protobuf", none,
        "same time and CPU as memcache: serialization destroys the gain"},
       {"local memory + protobuf + zlib", none, "no miracle: slow again"}}};
}

// What one (workload, tier, encoding) cell measured.
struct Cell {
  double wall_us = 0;                             // median per get
  double cpu_us = 0;                              // client CPU per get (mean)
  std::optional<double> server_cpu_us;            // per get, when measurable
  bool local = false;                             // no server at all
  std::vector<double> wall_samples, cpu_samples;  // per get, one per sample
  std::optional<double> total_cpu_us() const {
    if (local) return cpu_us;
    if (server_cpu_us) return cpu_us + *server_cpu_us;
    return std::nullopt;
  }
  // Client + server CPU per get, one per sample. The server's CPU is one figure over the whole
  // measuring window and is added to every sample: an interval over these covers the client's
  // spread only.
  std::optional<std::vector<double>> total_cpu_samples() const {
    if (!local && !server_cpu_us) return std::nullopt;
    std::vector<double> out = cpu_samples;
    for (double& v : out) v += local ? 0 : *server_cpu_us;
    return out;
  }
};

struct Measurement {
  std::vector<double> wall_us, cpu_us;  // per get, one per sample
  std::optional<double> server_cpu_us;
  int gets_per_sample = 1;
  std::optional<PointPrecision> precision;  // when measured to a precision
};

// Times `get` (returns false when the tier lost the value): warm-up, then `reps` samples of
// `inner` gets each (inner chosen so a sample lasts >= 20 µs, so the clocks' own cost stays
// small), then more gets until `window_ns` has passed so that the server's CPU counter (10 ms
// ticks for /proc) has something to count.
Measurement measure(RunContext& ctx, const std::function<bool()>& get, Tier& tier, int warmup,
                    int reps, std::int64_t window_ns) {
  const auto lost = [&] {
    return std::runtime_error("the " + tier.name() + " tier (" + to_string(tier.codec().encoding) +
                              ") no longer holds the record");
  };
  for (int i = 0; i < warmup; ++i) {
    ctx.check_stop();
    if (!get()) throw lost();
  }
  std::int64_t t0 = wall_ns();
  std::int64_t n = 0;
  do {
    if (!get()) throw lost();
    ++n;
  } while (wall_ns() - t0 < 200'000 && n < 100'000);
  const double est_ns = static_cast<double>(wall_ns() - t0) / static_cast<double>(n);
  Measurement m;
  m.gets_per_sample = static_cast<int>(std::clamp(std::ceil(20'000.0 / est_ns), 1.0, 10'000.0));

  const bool has_server = tier.name() != "local";
  const std::optional<std::int64_t> s0 = has_server ? tier.server_cpu_ns() : std::nullopt;
  const std::int64_t start = wall_ns();
  std::int64_t gets = 0;
  m.wall_us.reserve(static_cast<std::size_t>(reps));
  m.cpu_us.reserve(static_cast<std::size_t>(reps));
  // With a precision: samples until the median of the wall time is that precise.
  PointRounds rounds(ctx, 0, reps, 1);
  while (rounds.next()) {
    ctx.check_stop();
    Stopwatch sw;
    for (int i = 0; i < m.gets_per_sample; ++i)
      if (!get()) throw lost();
    const std::int64_t cpu = sw.cpu_elapsed_ns();
    const std::int64_t wall = sw.wall_elapsed_ns();
    m.wall_us.push_back(static_cast<double>(wall) / 1e3 / m.gets_per_sample);
    m.cpu_us.push_back(static_cast<double>(cpu) / 1e3 / m.gets_per_sample);
    gets += m.gets_per_sample;
    rounds.record(std::span<const double>(&m.wall_us.back(), 1));
  }
  m.precision = rounds.precision();
  if (s0) {
    while (wall_ns() - start < window_ns) {
      ctx.check_stop();
      if (!get()) throw lost();
      ++gets;
    }
    const std::optional<std::int64_t> s1 = tier.server_cpu_ns();
    if (s1 && gets > 0)
      m.server_cpu_us = static_cast<double>(*s1 - *s0) / 1e3 / static_cast<double>(gets);
  }
  return m;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// A run's settings, from its (validated) parameters.
struct CachingPlan {
  std::vector<std::string> tiers;
  std::vector<Encoding> encodings;
  int reps = 0, warmup = 0, zlib_level = 0;
  std::int64_t window_ns = 0;
  std::size_t local_budget = 0, list_size = 0, doc_bytes = 0, aside_keys = 0;
  double zipf_s = 0;
  std::int64_t aside_reads = 0;
  std::vector<std::int64_t> budgets;  // MB, each once
  std::uint64_t seed = 0;

  bool aside() const { return aside_reads > 0 && !encodings.empty(); }

  // Throws ParamError when the cache-aside documents would not fit in memory.
  static CachingPlan from(const Params& p) {
    CachingPlan c;
    c.tiers = p.get_subset("tiers");
    for (const auto& e : p.get_subset("encodings")) {
      auto enc = encoding_from_string(e);
      if (!enc) throw ParamError("parameter 'encodings': unknown encoding '" + e + "'");
      c.encodings.push_back(*enc);
    }
    c.reps = static_cast<int>(p.get_int("repetitions"));
    c.warmup = static_cast<int>(p.get_int("warmup"));
    c.window_ns = p.get_int("server_cpu_window_ms") * 1'000'000;
    c.zlib_level = static_cast<int>(p.get_int("zlib_level"));
    c.local_budget = static_cast<std::size_t>(p.get_int("local_budget_mb")) * kMiB;
    c.list_size = static_cast<std::size_t>(p.get_int("list_size"));
    c.doc_bytes = static_cast<std::size_t>(p.get_int("document_kb")) * 1024;
    c.zipf_s = p.get_double("zipf_s");
    c.aside_keys = static_cast<std::size_t>(p.get_int("aside_keys"));
    c.aside_reads = p.get_int("aside_reads");
    for (std::int64_t b : p.get_int_list("aside_budgets_mb"))
      if (std::find(c.budgets.begin(), c.budgets.end(), b) == c.budgets.end())
        c.budgets.push_back(b);
    c.seed = static_cast<std::uint64_t>(p.get_int("seed"));
    if (c.aside_reads > 0 && static_cast<double>(c.aside_keys) * static_cast<double>(c.doc_bytes) >
                                 2.0 * 1024 * 1024 * 1024)
      throw ParamError("aside_keys x document_kb exceeds 2 GB of documents; lower one of them");
    return c;
  }
};

// The servers a run uses; the experiment's PostgreSQL tables go however the run ends.
struct CachingServers {
  PgTarget pg;
  RedisTarget redis;
  std::optional<PgConnection> admin;
  CachingServers() = default;
  CachingServers(const CachingServers&) = delete;
  CachingServers& operator=(const CachingServers&) = delete;
  ~CachingServers() {
    if (!admin) return;
    try {
      PostgresTier::drop_tables(*admin, pg.schema);
    } catch (...) {
    }
  }
};

void add_matrix_groups(RunContext& ctx, const CachingPlan& plan) {
  for (const char* w : kWorkloads) {
    const std::string W = w;
    const std::string what =
        W == "document" ? "one " + std::to_string(plan.doc_bytes / 1024) + " KB document by key"
                        : "a list of " + std::to_string(plan.list_size) + " comments";
    ctx.add_group({W + "_wall", "Wall time per get: " + what, "us/get", "", false, true,
                   "Median wall time of one get returning a ready object; bars per tier, one per "
                   "encoding.",
                   false, false, W == kWorkloads[0]});
    ctx.add_group({W + "_cpu", "Client CPU per get: " + what, "us/get", "", false, true,
                   "CPU time of the client thread per get (fetch, copy, decode)."});
    ctx.add_group({W + "_server_cpu", "Server CPU per get: " + what, "us/get", "", false, true,
                   "CPU the server spent per get, the article's api_cpu: the PostgreSQL "
                   "backend process (managed servers only, /proc) and redis-server (INFO "
                   "used_cpu_sys + used_cpu_user)."});
    ctx.add_group({W + "_bytes", "Bytes stored: " + what, "bytes", "", false, true,
                   "Size of the stored record in each tier and encoding (PostgreSQL: after "
                   "TOAST compression)."});
  }
}

std::unique_ptr<Tier> make_tier(const std::string& name, const Codec& codec,
                                const CachingServers& servers, std::size_t local_budget,
                                std::stop_token stop) {
  if (name == "postgres") return std::make_unique<PostgresTier>(servers.pg, codec, stop);
  if (name == "redis") return std::make_unique<RedisTier>(servers.redis, codec, stop);
  return std::make_unique<LocalTier>(local_budget, codec);
}

// Stores the records; every tier must give back exactly what it was given before it is timed.
void store_and_check(Tier& tier, const std::string& tier_name, const std::string& series,
                     const Document& doc, const CommentList& list) {
  tier.put_document(doc);
  tier.put_list(list);
  auto d = tier.get_document(doc.key);
  auto l = tier.get_list(list.group_id);
  if (!d || !l)
    throw std::runtime_error(
        "the " + tier_name + " tier (" + series + ") did not keep the records" +
        (tier_name == "local" ? " (local_budget_mb is smaller than the list or document)" : ""));
  if (!(*d == doc) || !(*l == list))
    throw std::runtime_error("the " + tier_name + " tier (" + series +
                             ") returned records different from those stored");
}

// Measures the gets of one workload from one tier and publishes its points (wall, client CPU,
// server CPU, bytes); returns the cell the findings compare.
Cell measure_cell(RunContext& ctx, const CachingPlan& plan, Tier& tier,
                  const std::string& tier_name, const std::string& series,
                  const std::string& workload, const Document& doc, const CommentList& list) {
  std::function<bool()> get;
  if (workload == "document")
    get = [&] { return tier.get_document(doc.key) != nullptr; };
  else
    get = [&] { return tier.get_list(list.group_id) != nullptr; };
  Measurement m = measure(ctx, get, tier, plan.warmup, plan.reps, plan.window_ns);
  const std::size_t bytes =
      workload == "document" ? tier.document_bytes(doc.key) : tier.list_bytes(list.group_id);
  Cell c;
  c.local = tier_name == "local";
  c.cpu_us = mean(m.cpu_us);
  c.server_cpu_us = m.server_cpu_us;

  Point wall{tier_name, std::nullopt, m.wall_us, {}, {}};
  wall.precision = m.precision;
  wall.extra["cpu_us"] = c.cpu_us;
  if (c.server_cpu_us) wall.extra["server_cpu_us"] = *c.server_cpu_us;
  wall.extra["bytes"] = static_cast<double>(bytes);
  wall.extra["gets_per_sample"] = m.gets_per_sample;
  ctx.add_point(workload + "_wall", series, std::move(wall));

  Point cpu{tier_name, std::nullopt, m.cpu_us, {}, {}};
  cpu.precision = m.precision;
  if (c.server_cpu_us) cpu.extra["server_cpu_us"] = *c.server_cpu_us;
  if (auto t = c.total_cpu_us()) cpu.extra["total_cpu_us"] = *t;
  ctx.add_point(workload + "_cpu", series, std::move(cpu));

  if (c.server_cpu_us) {
    Point sp{tier_name, std::nullopt, {*c.server_cpu_us}, {}, {}};
    ctx.add_point(workload + "_server_cpu", series, std::move(sp));
  }
  ctx.add_point(workload + "_bytes", series,
                Point{tier_name, std::nullopt, {static_cast<double>(bytes)}, {}, {}});
  c.wall_us = summarize(m.wall_us).median;
  c.wall_samples = m.wall_us;
  c.cpu_samples = m.cpu_us;
  return c;
}

void add_aside_groups(RunContext& ctx) {
  ctx.add_group({"aside_hit_ratio", "Cache-aside: local hit ratio vs local budget", "%",
                 "local cache budget (MB)", true, false,
                 "Share of Zipf-distributed document reads answered by the in-process cache "
                 "(local → redis → postgres) in steady state, per encoding of the cached value: "
                 "compressed values fit more documents into the same budget.",
                 false, true});
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

class CachingExperiment : public Experiment {
 public:
  std::string id() const override { return "caching"; }
  std::string title() const override {
    return "Caching tiers: PostgreSQL vs Redis vs local memory";
  }
  std::string purpose() const override {
    return "Wall time and CPU per get of a 60 KB document and a 1,000-comment list from "
           "PostgreSQL, Redis and in-process memory, native vs protobuf vs protobuf+zlib, plus a "
           "cache-aside sweep of the local budget.";
  }
  Article article() const override {
    return {
        "App Engine measurements as published in the article (seed 003).", {published_table()}, {}};
  }

  std::vector<ParamSpec> params() const override {
    std::vector<ParamSpec> v;
    v.push_back({.name = "repetitions",
                 .type = ParamType::Int,
                 .default_value = "200",
                 .min = 1,
                 .max = 100000,
                 .help = "timed samples per (tier, encoding, workload)"});
    v.push_back({.name = "warmup",
                 .type = ParamType::Int,
                 .default_value = "20",
                 .min = 0,
                 .max = 100000,
                 .help = "untimed gets before each measurement"});
    v.push_back({.name = "server_cpu_window_ms",
                 .type = ParamType::Int,
                 .default_value = "1000",
                 .min = 0,
                 .max = 60000,
                 .help = "keep getting at least this long per cell so the server's CPU counter "
                         "(10 ms ticks) has enough to count"});
    v.push_back({.name = "tiers",
                 .type = ParamType::SubsetOf,
                 .default_value = "postgres,redis,local",
                 .choices = {"postgres", "redis", "local"},
                 .help = "tiers: postgres (datastore), redis (memcache), local "
                         "(in-process LRU)"});
    v.push_back({.name = "encodings",
                 .type = ParamType::SubsetOf,
                 .default_value = "native,protobuf,protobuf+zlib",
                 .choices = encoding_names(),
                 .help = "encodings: native (objects locally, JSON remotely, rows in "
                         "PostgreSQL), protobuf, protobuf+zlib"});
    v.push_back({.name = "zlib_level",
                 .type = ParamType::Int,
                 .default_value = "6",
                 .min = 0,
                 .max = 9,
                 .help = "zlib compression level (0-9)"});
    v.push_back(
        {.name = "local_budget_mb",
         .type = ParamType::Int,
         .default_value = "50",
         .min = 1,
         .max = 65536,
         .help = "byte budget of the local LRU cache in the tier matrix (App Engine: 50 MB)",
         .label = "Local cache budget"});
    v.push_back({.name = "list_size",
                 .type = ParamType::Int,
                 .default_value = "1000",
                 .min = 1,
                 .max = 100000,
                 .help = "comments in the list workload"});
    v.push_back({.name = "document_kb",
                 .type = ParamType::Int,
                 .default_value = "60",
                 .min = 1,
                 .max = 16384,
                 .help = "text size of the document workload"});
    v.push_back({.name = "zipf_s",
                 .type = ParamType::Double,
                 .default_value = "1.0",
                 .min = 0,
                 .max = 4,
                 .help = "Zipf exponent of the cache-aside reads (0 = uniform)",
                 .label = "Zipf exponent"});
    v.push_back({.name = "aside_keys",
                 .type = ParamType::Int,
                 .default_value = "500",
                 .min = 1,
                 .max = 100000,
                 .help = "documents in the cache-aside key set"});
    v.push_back(
        {.name = "aside_reads",
         .type = ParamType::Int,
         .default_value = "2000",
         .min = 0,
         .max = 10000000,
         .help = "measured reads per cache-aside budget (after a warm-up reading every key once "
                 "and as many Zipf reads); 0 skips the scenario"});
    v.push_back({.name = "aside_budgets_mb",
                 .type = ParamType::IntList,
                 .default_value = "1,2,4,8,16,32,64",
                 .min = 0,
                 .max = 65536,
                 .help = "local cache budgets swept in the cache-aside scenario"});
    v.push_back({.name = "seed",
                 .type = ParamType::Int,
                 .default_value = "42",
                 .min = 0,
                 .max = 9007199254740992.0,
                 .help = "seed of the generated records and of the read sequence"});
    for (auto& spec : statistics_params()) v.push_back(std::move(spec));
    return v;
  }

  TargetNeeds needs(const Params& p) const override {
    const std::vector<std::string> tiers = p.get_subset("tiers");
    auto has_tier = [&](const char* t) {
      return std::find(tiers.begin(), tiers.end(), t) != tiers.end();
    };
    const bool aside = p.get_int("aside_reads") > 0;  // encodings: never an empty subset
    return {has_tier("postgres") || aside, (has_tier("redis") || aside) ? 1u : 0u};
  }

  void run(RunContext& ctx) override;

 private:
  void run_matrix(RunContext& ctx, const CachingPlan& plan, const CachingServers& servers,
                  const Document& doc, const CommentList& list, double share);
  void run_aside(RunContext& ctx, const CachingPlan& plan, const CachingServers& servers,
                 double share);
  void findings(RunContext& ctx,
                const std::map<std::tuple<std::string, std::string, std::string>, Cell>& cells);
};

void CachingExperiment::run(RunContext& ctx) {
  const CachingPlan plan = CachingPlan::from(ctx.params());
  const TargetNeeds need = needs(ctx.params());
  ctx.progress(0, "generating records");
  const Document doc = generate_document(plan.seed, 0, plan.doc_bytes);
  const CommentList list = generate_comments(plan.seed, kListGroup, plan.list_size);

  CachingServers servers;
  if (need.postgres) {
    ctx.progress(0, "connecting to PostgreSQL");
    servers.pg = ctx.targets().postgres(ctx.stop_token());
    servers.admin.emplace(servers.pg.connect(ctx.stop_token()));
    PostgresTier::create_tables(*servers.admin, servers.pg.schema);
  }
  if (need.redis_nodes > 0) {
    ctx.progress(0, "connecting to Redis");
    servers.redis = ctx.targets().redis(1, ctx.stop_token());
  }

  const std::size_t matrix_cells = plan.tiers.size() * plan.encodings.size();
  const std::size_t aside_cells = plan.aside() ? plan.encodings.size() * plan.budgets.size() : 0;
  const double matrix_share = aside_cells == 0 ? 1.0 : (matrix_cells == 0 ? 0.0 : 0.5);
  run_matrix(ctx, plan, servers, doc, list, matrix_share);
  if (plan.aside()) run_aside(ctx, plan, servers, matrix_share);
  ctx.progress(1, "done");
}

// Every (tier, encoding) of the matrix: records stored and checked, then both workloads'
// gets measured; the findings are updated after each, so a stopped run keeps them.
void CachingExperiment::run_matrix(RunContext& ctx, const CachingPlan& plan,
                                   const CachingServers& servers, const Document& doc,
                                   const CommentList& list, double share) {
  add_matrix_groups(ctx, plan);
  const std::size_t cells_total =
      std::max<std::size_t>(plan.tiers.size() * plan.encodings.size(), 1);
  std::map<std::tuple<std::string, std::string, std::string>, Cell> cells;
  std::size_t done = 0;
  for (const auto& tier_name : plan.tiers) {
    for (Encoding enc : plan.encodings) {
      ctx.check_stop();
      const Codec codec{enc, plan.zlib_level};
      const std::string series = to_string(enc);
      const double frac = share * static_cast<double>(done) / static_cast<double>(cells_total);
      ctx.progress(frac, "storing records in " + tier_name + " (" + series + ")");
      auto tier = make_tier(tier_name, codec, servers, plan.local_budget, ctx.stop_token());
      store_and_check(*tier, tier_name, series, doc, list);
      for (const char* w : kWorkloads) {
        const std::string W = w;
        ctx.progress(frac, "measuring " + W + " gets from " + tier_name + " (" + series + ")");
        cells[{W, tier_name, series}] =
            measure_cell(ctx, plan, *tier, tier_name, series, W, doc, list);
      }
      ++done;
      findings(ctx, cells);
    }
  }
}

// The cache-aside scenario: documents in PostgreSQL, read through Redis and a local cache of
// each budget, per encoding of the cached value.
void CachingExperiment::run_aside(RunContext& ctx, const CachingPlan& plan,
                                  const CachingServers& servers, double share) {
  add_aside_groups(ctx);
  ctx.progress(share, "loading " + std::to_string(plan.aside_keys) +
                          " documents into PostgreSQL for the cache-aside scenario");
  PostgresTier source(servers.pg, Codec{Encoding::Native, plan.zlib_level}, ctx.stop_token());
  const std::vector<std::string> keys = load_aside_documents(ctx, plan, source);
  const std::size_t total = plan.encodings.size() * plan.budgets.size();
  std::size_t done = 0;
  for (Encoding enc : plan.encodings) {
    const Codec codec{enc, plan.zlib_level};
    RedisTier redis(servers.redis, codec, ctx.stop_token());
    for (std::int64_t budget_mb : plan.budgets) {
      ctx.check_stop();
      ctx.progress(share + (1 - share) * static_cast<double>(done) / static_cast<double>(total),
                   std::string("cache-aside: ") + to_string(enc) + ", local budget " +
                       std::to_string(budget_mb) + " MB");
      measure_aside(ctx, plan, redis, source, codec, keys, budget_mb);
      ++done;
    }
  }
}

void CachingExperiment::findings(
    RunContext& ctx,
    const std::map<std::tuple<std::string, std::string, std::string>, Cell>& cells) {
  auto cell = [&](const std::string& w, const std::string& t, const std::string& e) -> const Cell* {
    auto it = cells.find({w, t, e});
    return it == cells.end() ? nullptr : &it->second;
  };
  // What a cell is called in a sentence.
  auto name = [](const std::string& tier, const std::string& encoding) {
    std::string n = tier == "postgres" ? "PostgreSQL" : tier == "redis" ? "Redis" : "local memory";
    if (encoding != "native") n += " + " + encoding;
    return n;
  };
  // subject / baseline of one figure of two cells. The cells were measured one after the other:
  // unpaired intervals.
  enum class Figure { Wall, Cpu };
  auto compare = [&](const std::string& id, const std::string& workload, Figure figure,
                     std::pair<std::string, std::string> subject,
                     std::pair<std::string, std::string> baseline, std::optional<Claim> claim) {
    const Cell* a = cell(workload, subject.first, subject.second);
    const Cell* b = cell(workload, baseline.first, baseline.second);
    if (!a || !b) return;
    ComparisonSpec spec{
        id,
        workload,
        ComparedPair{name(subject.first, subject.second), name(baseline.first, baseline.second),
                     figure == Figure::Wall ? "wall time per get" : "CPU per get (client + server)",
                     figure == Figure::Wall ? Quantity::Time : Quantity::Cpu, Better::Lower},
        false,
        "",
        std::move(claim)};
    if (figure == Figure::Wall) return ctx.add_comparison(spec, a->wall_samples, b->wall_samples);
    auto ta = a->total_cpu_samples(), tb = b->total_cpu_samples();
    if (ta && tb) ctx.add_comparison(spec, *ta, *tb);
  };
  const std::string N = "native", PB = "protobuf", Z = "protobuf+zlib";
  const std::pair pg{std::string("postgres"), N}, redis{std::string("redis"), N},
      redis_pb{std::string("redis"), PB}, redis_z{std::string("redis"), Z},
      local{std::string("local"), N}, local_pb{std::string("local"), PB},
      local_z{std::string("local"), Z};
  for (const std::string w : {"document", "list"}) {
    const Claims art = claims(w == "document" ? kPublishedDocument : kPublishedList);
    compare(w + ".redis_vs_postgres.time", w, Figure::Wall, pg, redis, art.memcache_faster);
    compare(w + ".redis_vs_postgres.cpu", w, Figure::Cpu, pg, redis, art.memcache_cheaper);
    compare(w + ".redis_protobuf_vs_postgres.time", w, Figure::Wall, pg, redis_pb, std::nullopt);
    compare(w + ".protobuf_vs_native.redis", w, Figure::Wall, redis_pb, redis, art.protobuf);
    compare(w + ".protobuf_vs_native.redis.cpu", w, Figure::Cpu, redis_pb, redis, art.protobuf);
    compare(w + ".zlib_vs_protobuf.redis", w, Figure::Wall, redis_z, redis_pb, art.zlib_slower);
    compare(w + ".local_vs_postgres.time", w, Figure::Wall, pg, local, art.local_faster);
    compare(w + ".local_vs_postgres.cpu", w, Figure::Cpu, pg, local, std::nullopt);
    compare(w + ".local_vs_redis.time", w, Figure::Wall, redis, local, std::nullopt);
    compare(w + ".local_protobuf_vs_redis.time", w, Figure::Wall, local_pb, redis_pb,
            art.local_protobuf_vs_memcache);
    compare(w + ".local_zlib_vs_local.time", w, Figure::Wall, local_z, local, std::nullopt);
  }
}

}  // namespace

std::unique_ptr<Experiment> make_caching_experiment() {
  return std::make_unique<CachingExperiment>();
}

}  // namespace perflab
