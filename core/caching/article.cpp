// The caching article's figures (App Engine: datastore, memcache, instance memory), written
// once: the findings' claims and the experiment's published table.
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "caching/caching_run.h"

namespace perflab::caching {

const Published kPublishedDocument{2.0, 2.0, 1.0, 1.0, std::nullopt, std::nullopt, std::nullopt};
const Published kPublishedList{1.5, 15.0, 1.20, 1.25, 1.05, 100.0, 1.0};

// The article's figures as claims, each with the yardstick its words allow (docs/caching.md):
// "about 2×" within ±25%; "15× cheaper" and "~100× faster" as orders of magnitude (at least a
// third of the figure); "no visible change" within ±5%, "the same" within ±10%; "20–25% slower"
// as that range widened by 5% either side; "~5% slower" as 1.00–1.10.
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

namespace {

std::string times(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g×", v);
  return buf;
}
std::string percent_more(double ratio) {
  return std::to_string(static_cast<int>(std::lround((ratio - 1) * 100)));
}

}  // namespace

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

}  // namespace perflab::caching
