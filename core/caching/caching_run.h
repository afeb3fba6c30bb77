#pragma once
// One caching run as its parts share it: the servers, the cells the tier matrix measured, and the
// article's figures (its settings: caching/settings.h). Internal to the experiment.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <tuple>
#include <vector>

#include "caching/codec.h"
#include "caching/records.h"
#include "caching/settings.h"
#include "caching/tiers.h"
#include "common/open_loop_schedule.h"
#include "runner/experiment.h"
#include "targets/postgres.h"
#include "targets/targets.h"

namespace perflab::caching {

inline constexpr std::int64_t kListGroup = 1;
inline constexpr const char* kWorkloads[] = {"document", "list"};

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
extern const Published kPublishedDocument, kPublishedList;

// The article's figures as claims, each with the yardstick its words allow (caching/article.cpp).
struct Claims {
  std::optional<Claim> memcache_faster, memcache_cheaper, protobuf, zlib_slower, local_faster,
      local_protobuf_vs_memcache;
};
Claims claims(const Published& p);

// The article's table, as published.
ArticleTable published_table();

// The parts of a get, each timed alone (caching/tier_gets.cpp): the fetch (the request, the wire,
// the server, the client library reading the reply), the decode into the ready object, and the
// check that it is the record asked for.
enum class GetPart { Fetch, Decode, Check };
inline constexpr std::size_t kGetPartCount = 3;
inline constexpr GetPart kGetParts[kGetPartCount] = {GetPart::Fetch, GetPart::Decode,
                                                     GetPart::Check};
const char* to_string(GetPart p);  // "fetch", "decode", "check"

// One workload's get from a tier, whole and in its parts. The check is what a caller checks of
// a get: that the object is the record asked for (its key or group, and its size);
// store_and_check compared every byte once before any get was timed.
class WorkloadGet {
 public:
  WorkloadGet(Tier& tier, const std::string& workload, const Document& doc,
              const CommentList& list);
  // The query workload: each fetch the next key's rows, the keys in turn.
  WorkloadGet(Tier& tier, const std::vector<QueryResult>& results);
  // The fetch, the decode and the check; false when the tier no longer holds the record. Throws
  // when the tier returns another record.
  bool get();
  bool fetch();        // false: the tier no longer holds the record
  bool decode();       // of what the last fetch holds; false: nothing to decode
  bool check() const;  // whether the object decoded last is the record asked for
  // The keys a get takes in turn (1 but for the query workload), and the one the next fetch
  // takes.
  std::size_t keys() const;
  void restart(std::size_t key) { next_ = key % keys(); }

 private:
  enum class Kind { Document, List, Query };
  Tier& tier_;
  Kind kind_;
  const Document* doc_ = nullptr;
  const CommentList* list_ = nullptr;
  const std::vector<QueryResult>* results_ = nullptr;
  std::size_t next_ = 0, fetched_ = 0;  // the query workload: the key to fetch, the one fetched
  std::shared_ptr<const Document> decoded_document_;
  std::shared_ptr<const CommentList> decoded_list_;
  std::shared_ptr<const QueryResult> decoded_result_;
};

// What a run's gets read: the generated document and list, or (source=query) the rows of the
// user's query for each of its keys.
struct Workloads {
  const Document* doc = nullptr;
  const CommentList* list = nullptr;
  const std::vector<QueryResult>* results = nullptr;  // when set, the only workload: "query"

  std::vector<std::string> names() const;  // {"document", "list"} or {"query"}
  WorkloadGet get(Tier& tier, const std::string& workload) const;
  // Bytes the tier stores for the workload's record (query: the mean over its keys).
  std::size_t bytes(Tier& tier, const std::string& workload) const;
  // Stores the records; every tier must give back exactly what it was given before it is timed.
  void store_and_check(Tier& tier, const std::string& tier_name, const std::string& series) const;
};

// What one (workload, tier, encoding) cell measured.
struct Cell {
  double wall_us = 0;                             // median per get
  double cpu_us = 0;                              // client CPU per get (mean)
  std::optional<double> server_cpu_us;            // per get, when measurable
  bool local = false;                             // no server at all
  std::vector<double> wall_samples, cpu_samples;  // per get, one per sample
  // Each part of a get alone (kGetParts' order), per part: sample r in the round of sample r.
  std::array<std::vector<double>, kGetPartCount> part_wall_samples, part_cpu_samples;
  const std::vector<double>& part(GetPart p) const {
    return part_wall_samples[static_cast<std::size_t>(p)];
  }
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

// The servers a run uses; the experiment's PostgreSQL tables go however the run ends.
struct CachingServers {
  PgTarget pg;
  RedisTarget redis;
  std::optional<PgConnection> admin;  // the experiment's tables' (not with source=query)
  std::string user_query;             // source=query: what the postgres tier runs (QueryTier)
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

// A tier of the run by name ("postgres", "redis", "local") with its codec (caching/tier_gets.cpp).
std::unique_ptr<Tier> make_tier(const std::string& name, const Codec& codec,
                                const CachingServers& servers, std::size_t local_budget,
                                std::stop_token stop);
// Workloads{&doc, &list}.store_and_check(tier, tier_name, series).
void store_and_check(Tier& tier, const std::string& tier_name, const std::string& series,
                     const Document& doc, const CommentList& list);

// Each encoding's decode alone, no server, and the codecs' findings (caching/decode_bench.cpp).
// Its progress runs from `from` to `to`.
void run_decode(RunContext& ctx, const CachingPlan& plan, const Document& doc,
                const CommentList& list, double from, double to);

// What the matrix's rounds have told of this machine so far (caching/tier_gets.cpp), for the
// forecast of the parts after it.
struct MatrixPace {
  double seconds = 0;           // the matrix's expected seconds in all
  double mean_over_median = 1;  // the whole gets' means over their medians, summed over the cells
  std::map<Encoding, double> redis_document_s;  // the median document get from Redis, seconds
};
// Every (tier, encoding) of the matrix, its gets and their parts measured
// (caching/tier_gets.cpp). Its progress runs from `from` to end_for(its pace: the seconds it is
// expected to take and what its gets tell of the machine), asked again once its records are
// stored and one get of each cell timed, and as its rounds learn the run's pace.
void run_matrix(RunContext& ctx, const CachingPlan& plan, const CachingServers& servers,
                const Workloads& workloads, double from,
                const std::function<double(const MatrixPace&)>& end_for);

// The tiers' read latency at a fixed rate, open loop: a percentile spectrum per tier, the
// achieved rate beside the target, and their findings (caching/tier_latency.cpp). Its progress
// runs from `from` to `to`.
void run_latency(RunContext& ctx, const CachingPlan& plan, const CachingServers& servers,
                 const Document& doc, const CommentList& list, double from, double to);

// What the cache-aside sweep is expected to take (caching/cache_aside.cpp): per encoding, its
// reads times a read's cost: a multiple of the matrix's median document get from Redis in that
// encoding when the rounds have measured one, else this machine's quiet figure; times the
// slowdown a busy machine's load causes (aside_load).
double aside_seconds(const CachingPlan& plan, const MatrixPace& pace);
// How many times slower than on a quiet machine the sweep reads on one as busy as the one whose
// gets took `mean_over_median` times their medians (summed over the matrix's cells): 1 on a
// quiet machine, about 2 beside two busy loops on two cores.
double aside_load(double mean_over_median);

// The cache-aside sweep of the local budget (caching/cache_aside.cpp).
void run_aside(RunContext& ctx, const CachingPlan& plan, const CachingServers& servers,
               double share);

// Caching on your query (source=query): the query run read-only for its keys (refused before
// anything is measured when it writes, fails or returns nothing), its rows copied into Perflab's
// Redis prefix and this process' memory, and the tier matrix on them (caching/query_run.cpp).
void run_query(RunContext& ctx, const CachingPlan& plan, bool redis);

// The comparisons of the matrix's cells, each against the article's claim (caching/findings.cpp).
void findings(RunContext& ctx,
              const std::map<std::tuple<std::string, std::string, std::string>, Cell>& cells);
// The comparisons of caching on your query: Redis in each encoding and local memory against the
// query itself, where a Redis get's time goes (caching/findings.cpp).
void query_findings(RunContext& ctx,
                    const std::map<std::tuple<std::string, std::string, std::string>, Cell>& cells);

}  // namespace perflab::caching
