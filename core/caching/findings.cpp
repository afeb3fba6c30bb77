// The caching experiment's findings: each cell of the tier matrix against another (time, CPU),
// with the article's claim where it made one.
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "caching/caching_run.h"

namespace perflab::caching {

void findings(RunContext& ctx,
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
    if (figure == Figure::Wall) {
      spec.group = workload + "_wall";  // client + server CPU is no single chart
      return ctx.add_comparison(spec, a->wall_samples, b->wall_samples);
    }
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

}  // namespace perflab::caching
