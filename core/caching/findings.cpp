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

using Cells = std::map<std::tuple<std::string, std::string, std::string>, Cell>;
using CellName = std::pair<std::string, std::string>;  // tier, encoding

// What a cell is called in a sentence: "Redis + MessagePack", "local memory + protobuf";
// PostgreSQL running a user's query is "PostgreSQL (your query)".
std::string cell_name(const std::string& workload, const CellName& c) {
  const auto& [tier, encoding] = c;
  if (workload == "query" && tier == "postgres") return "PostgreSQL (your query)";
  std::string n = tier == "postgres" ? "PostgreSQL" : tier == "redis" ? "Redis" : "local memory";
  if (encoding == "native" && tier == "redis") return n + " + MessagePack";
  if (encoding != "native") n += " + " + encoding;
  return n;
}

enum class Figure { Wall, Cpu, Fetch };

// The findings of two cells or of one cell's parts, over the cells the matrix measured.
class CellFindings {
 public:
  CellFindings(RunContext& ctx, const Cells& cells) : ctx_(ctx), cells_(cells) {}

  const Cell* cell(const std::string& w, const CellName& c) const {
    auto it = cells_.find({w, c.first, c.second});
    return it == cells_.end() ? nullptr : &it->second;
  }

  // subject / baseline of one figure of two cells. The cells took turns round by round (sample
  // r of every cell is of round r): paired intervals, unpaired when a stop left the cells with
  // unequal counts.
  void compare(const std::string& id, const std::string& workload, Figure figure,
               const CellName& subject, const CellName& baseline, std::optional<Claim> claim,
               std::string metric = "") {
    const Cell* a = cell(workload, subject);
    const Cell* b = cell(workload, baseline);
    if (!a || !b) return;
    if (metric.empty())
      metric = figure == Figure::Cpu ? "CPU per get (client + server)" : "wall time per get";
    ComparisonSpec spec{
        id,
        workload == "query" ? "your query" : workload,
        ComparedPair{cell_name(workload, subject), cell_name(workload, baseline), metric,
                     figure == Figure::Cpu ? Quantity::Cpu : Quantity::Time, Better::Lower},
        true,
        "",
        std::move(claim)};
    if (figure == Figure::Wall) {
      spec.group = workload + "_wall";  // client + server CPU is no single chart
      return ctx_.add_comparison(spec, a->wall_samples, b->wall_samples);
    }
    if (figure == Figure::Fetch) {
      spec.group = workload + "_get_parts_us";
      return ctx_.add_comparison(spec, a->part(GetPart::Fetch), b->part(GetPart::Fetch));
    }
    auto ta = a->total_cpu_samples(), tb = b->total_cpu_samples();
    if (ta && tb) ctx_.add_comparison(spec, *ta, *tb);
  }

  // The share of a cell's get spent in one part, over the same rounds.
  void share(const std::string& id, const std::string& workload, const CellName& c, GetPart part,
             const std::string& what) {
    const Cell* x = cell(workload, c);
    if (!x) return;
    const std::string context = workload == "query" ? "your query" : workload;
    if (auto f = share_finding({id, context + ", " + cell_name(workload, c), what, "one get",
                                std::nullopt, workload + "_get_parts"},
                               x->part(part), x->wall_samples))
      ctx_.add_finding(std::move(*f));
  }

 private:
  RunContext& ctx_;
  const Cells& cells_;
};

}  // namespace

void findings(RunContext& ctx, const Cells& cells) {
  CellFindings judge(ctx, cells);
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
      judge.compare(w + ".redis_vs_postgres.fetch", w, Figure::Fetch, pg_same, redis_same,
                    std::nullopt, "time to fetch the same " + *same + " bytes, no decode" + rows);
      judge.compare(w + ".redis_vs_postgres.time", w, Figure::Wall, pg_same, redis_same,
                    art.memcache_faster, "wall time per get, " + *same + " on both sides");
      judge.compare(w + ".redis_vs_postgres.cpu", w, Figure::Cpu, pg_same, redis_same,
                    art.memcache_cheaper,
                    "CPU per get (client + server), " + *same + " on both sides");
    }
    judge.compare(w + ".redis_vs_postgres.own_forms.time", w, Figure::Wall, pg, redis, std::nullopt,
                  "wall time per get, each store's own form (typed rows, MessagePack)");
    // Where a Redis get's time goes: the decode's share, per encoding.
    for (const auto& r : {redis, redis_json, redis_pb, redis_z})
      judge.share(w + ".decode_share.redis." + r.second, w, r, GetPart::Decode, "spent decoding");
    // The codecs, each against Redis's native form (MessagePack).
    judge.compare(w + ".protobuf_vs_native.redis", w, Figure::Wall, redis_pb, redis, art.protobuf);
    judge.compare(w + ".protobuf_vs_native.redis.cpu", w, Figure::Cpu, redis_pb, redis,
                  art.protobuf);
    judge.compare(w + ".json_vs_native.redis", w, Figure::Wall, redis_json, redis, std::nullopt);
    judge.compare(w + ".zlib_vs_protobuf.redis", w, Figure::Wall, redis_z, redis_pb,
                  art.zlib_slower);
    // Local memory.
    judge.compare(w + ".local_vs_postgres.time", w, Figure::Wall, pg, local, art.local_faster);
    judge.compare(w + ".local_vs_postgres.cpu", w, Figure::Cpu, pg, local, std::nullopt);
    judge.compare(w + ".local_vs_redis.time", w, Figure::Wall, redis, local, std::nullopt);
    judge.compare(w + ".local_protobuf_vs_redis.time", w, Figure::Wall, local_pb, redis_pb,
                  art.local_protobuf_vs_memcache);
    judge.compare(w + ".local_zlib_vs_local.time", w, Figure::Wall, local_z, local, std::nullopt);
  }
  ctx.order_findings(finding_rank);
}

void query_findings(RunContext& ctx, const Cells& cells) {
  CellFindings judge(ctx, cells);
  const std::string w = "query";
  const CellName pg{"postgres", "native"}, redis{"redis", "native"}, local{"local", "native"};
  // The question: would a cache in front of this query pay off? Each encoding in Redis against
  // the query itself, the same ready rows at the end of both.
  for (const std::string& e : encoding_names()) {
    const CellName r{"redis", e};
    judge.compare(w + ".redis_vs_postgres.time." + e, w, Figure::Wall, pg, r, std::nullopt,
                  "wall time per get of the ready rows");
    judge.share(w + ".decode_share.redis." + e, w, r, GetPart::Decode, "spent decoding");
  }
  judge.compare(w + ".redis_vs_postgres.cpu", w, Figure::Cpu, pg, redis, std::nullopt,
                "CPU per get of the ready rows (client + server)");
  judge.compare(w + ".local_vs_postgres.time", w, Figure::Wall, pg, local, std::nullopt,
                "wall time per get of the ready rows");
  judge.compare(w + ".local_vs_postgres.cpu", w, Figure::Cpu, pg, local, std::nullopt,
                "CPU per get of the ready rows (client + server)");
  judge.compare(w + ".local_vs_redis.time", w, Figure::Wall, redis, local, std::nullopt,
                "wall time per get of the ready rows");
  for (const std::string& e : encoding_names())
    if (e != "native")
      judge.compare(w + ".local_" + e + "_vs_local.time", w, Figure::Wall, CellName{"local", e},
                    local, std::nullopt, "wall time per get of the ready rows");
  ctx.order_findings(finding_rank);
}

}  // namespace perflab::caching
