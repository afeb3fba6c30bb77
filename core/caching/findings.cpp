// The caching experiment's findings: the stores compared on the same bytes (the fetch alone, and
// whole gets with one codec on both sides), where a Redis get's time goes, each codec's cost,
// and local memory against both stores; the article's claims judged on the like-for-like ones.
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "caching/caching_run.h"

namespace perflab::caching {

namespace {

// The encoding both stores hold as the same bytes, by preference: protobuf (the article's
// binary form), then JSON, then protobuf+zlib. PostgreSQL's native form is typed rows, Redis's
// MessagePack: not the same bytes.
constexpr const char* kSameBytes[] = {"protobuf", "json", "protobuf+zlib"};

std::optional<std::string> same_bytes_encoding(
    const std::map<std::tuple<std::string, std::string, std::string>, Cell>& cells,
    const std::string& workload) {
  for (const char* e : kSameBytes)
    if (cells.count({workload, "postgres", e}) && cells.count({workload, "redis", e})) return e;
  return std::nullopt;
}

// Where a finding stands in the panel: the stores on the same bytes first (what the experiment is
// about), then where a get's time goes, the codecs, the decode alone and local memory; within
// each, the document before the list. Any other finding (latency, cache-aside) after them.
int finding_rank(const std::string& id) {
  static constexpr const char* kTopics[] = {".redis_vs_postgres.fetch",
                                            ".redis_vs_postgres.time",
                                            ".redis_vs_postgres.cpu",
                                            ".redis_vs_postgres.own_forms",
                                            ".decode_share.",
                                            "_vs_native.redis",
                                            "_vs_protobuf.redis",
                                            ".decode.",
                                            ".local_"};
  const int workload = id.rfind("list.", 0) == 0 ? 1 : 0;
  for (std::size_t t = 0; t < std::size(kTopics); ++t)
    if (id.find(kTopics[t]) != std::string::npos) return static_cast<int>(2 * t) + workload;
  return static_cast<int>(2 * std::size(kTopics));
}

}  // namespace

void findings(RunContext& ctx,
              const std::map<std::tuple<std::string, std::string, std::string>, Cell>& cells) {
  auto cell = [&](const std::string& w, const std::string& t, const std::string& e) -> const Cell* {
    auto it = cells.find({w, t, e});
    return it == cells.end() ? nullptr : &it->second;
  };
  // What a cell is called in a sentence.
  auto name = [](const std::string& tier, const std::string& encoding) {
    std::string n = tier == "postgres" ? "PostgreSQL" : tier == "redis" ? "Redis" : "local memory";
    if (encoding == "native" && tier == "redis") return n + " + MessagePack";
    if (encoding != "native") n += " + " + encoding;
    return n;
  };
  // subject / baseline of one figure of two cells. The cells took turns round by round (sample r
  // of every cell is of round r): paired intervals, unpaired when a stop left the cells with
  // unequal counts.
  enum class Figure { Wall, Cpu, Fetch };
  auto compare = [&](const std::string& id, const std::string& workload, Figure figure,
                     std::pair<std::string, std::string> subject,
                     std::pair<std::string, std::string> baseline, std::optional<Claim> claim,
                     std::string metric = "") {
    const Cell* a = cell(workload, subject.first, subject.second);
    const Cell* b = cell(workload, baseline.first, baseline.second);
    if (!a || !b) return;
    if (metric.empty())
      metric = figure == Figure::Cpu ? "CPU per get (client + server)" : "wall time per get";
    ComparisonSpec spec{
        id,
        workload,
        ComparedPair{name(subject.first, subject.second), name(baseline.first, baseline.second),
                     metric, figure == Figure::Cpu ? Quantity::Cpu : Quantity::Time, Better::Lower},
        true,
        "",
        std::move(claim)};
    if (figure == Figure::Wall) {
      spec.group = workload + "_wall";  // client + server CPU is no single chart
      return ctx.add_comparison(spec, a->wall_samples, b->wall_samples);
    }
    if (figure == Figure::Fetch) {
      spec.group = workload + "_get_parts_us";
      return ctx.add_comparison(spec, a->part(GetPart::Fetch), b->part(GetPart::Fetch));
    }
    auto ta = a->total_cpu_samples(), tb = b->total_cpu_samples();
    if (ta && tb) ctx.add_comparison(spec, *ta, *tb);
  };
  // The share of a cell's get spent in one part, over the same rounds.
  auto share = [&](const std::string& id, const std::string& workload,
                   std::pair<std::string, std::string> c, GetPart part, const std::string& what) {
    const Cell* x = cell(workload, c.first, c.second);
    if (!x) return;
    if (auto f = share_finding({id, workload + ", " + name(c.first, c.second), what, "one get",
                                std::nullopt, workload + "_get_parts"},
                               x->part(part), x->wall_samples))
      ctx.add_finding(std::move(*f));
  };
  const std::string N = "native", J = "json", PB = "protobuf", Z = "protobuf+zlib";
  const std::pair pg{std::string("postgres"), N}, redis{std::string("redis"), N},
      redis_json{std::string("redis"), J}, redis_pb{std::string("redis"), PB},
      redis_z{std::string("redis"), Z}, local{std::string("local"), N},
      local_pb{std::string("local"), PB}, local_z{std::string("local"), Z};
  for (const std::string w : {"document", "list"}) {
    const Claims art = claims(w == "document" ? kPublishedDocument : kPublishedList);
    // The stores, on the same bytes: what the article's memcache-vs-datastore claims are about.
    if (const auto same = same_bytes_encoding(cells, w)) {
      const std::pair pg_same{std::string("postgres"), *same};
      const std::pair redis_same{std::string("redis"), *same};
      const std::string rows = w == "list" ? " (PostgreSQL: a row per comment)" : "";
      compare(w + ".redis_vs_postgres.fetch", w, Figure::Fetch, pg_same, redis_same, std::nullopt,
              "time to fetch the same " + *same + " bytes, no decode" + rows);
      compare(w + ".redis_vs_postgres.time", w, Figure::Wall, pg_same, redis_same,
              art.memcache_faster, "wall time per get, " + *same + " on both sides");
      compare(w + ".redis_vs_postgres.cpu", w, Figure::Cpu, pg_same, redis_same,
              art.memcache_cheaper, "CPU per get (client + server), " + *same + " on both sides");
    }
    compare(w + ".redis_vs_postgres.own_forms.time", w, Figure::Wall, pg, redis, std::nullopt,
            "wall time per get, each store's own form (typed rows, MessagePack)");
    // Where a Redis get's time goes: the decode's share, per encoding.
    for (const auto& r : {redis, redis_json, redis_pb, redis_z})
      share(w + ".decode_share.redis." + r.second, w, r, GetPart::Decode, "spent decoding");
    // The codecs, each against Redis's native form (MessagePack).
    compare(w + ".protobuf_vs_native.redis", w, Figure::Wall, redis_pb, redis, art.protobuf);
    compare(w + ".protobuf_vs_native.redis.cpu", w, Figure::Cpu, redis_pb, redis, art.protobuf);
    compare(w + ".json_vs_native.redis", w, Figure::Wall, redis_json, redis, std::nullopt);
    compare(w + ".zlib_vs_protobuf.redis", w, Figure::Wall, redis_z, redis_pb, art.zlib_slower);
    // Local memory.
    compare(w + ".local_vs_postgres.time", w, Figure::Wall, pg, local, art.local_faster);
    compare(w + ".local_vs_postgres.cpu", w, Figure::Cpu, pg, local, std::nullopt);
    compare(w + ".local_vs_redis.time", w, Figure::Wall, redis, local, std::nullopt);
    compare(w + ".local_protobuf_vs_redis.time", w, Figure::Wall, local_pb, redis_pb,
            art.local_protobuf_vs_memcache);
    compare(w + ".local_zlib_vs_local.time", w, Figure::Wall, local_z, local, std::nullopt);
  }
  ctx.order_findings(finding_rank);
}

}  // namespace perflab::caching
