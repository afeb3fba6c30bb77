#pragma once
// The three caching tiers of the article, each holding documents and comment lists in one
// encoding:
//   postgres — the datastore: rows in Perflab's schema. `native` = typed columns (a document
//              row; the list = the group's rows, one query); an encoding = a bytea column
//              holding each record's encoded value (one row per document / per comment).
//   redis    — memcache: one value per key (GET), the list stored as one value; keys under
//              Perflab's prefix only, and only the keys a tier wrote are ever deleted.
//   local    — the instance's memory: an LRU cache with a byte budget holding ready objects
//              (`native`) or encoded bytes (decoded on every get).
// Caching on your query (source=query) keeps the rows a user's query returned for each key
// (QueryResult) in redis and local as above; its postgres tier is QueryTier: the user's query
// itself, run read-only, never a copy.
// A get returns a ready object (shared_ptr) or nullptr when the tier does not hold the key. It is
// two parts, each of which can be timed alone (where a get's time goes): the fetch brings the
// stored record to the client and holds it as it came, the decode makes the ready object of it.
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <variant>

#include "caching/codec.h"
#include "caching/lru.h"
#include "caching/records.h"
#include "targets/postgres.h"
#include "targets/redis.h"
#include "targets/targets.h"

namespace perflab::caching {

class Tier {
 public:
  virtual ~Tier() = default;
  virtual std::string name() const = 0;  // "postgres", "redis", "local"
  const Codec& codec() const { return codec_; }

  virtual void put_document(const Document& d) = 0;
  virtual void put_list(const CommentList& l) = 0;
  // The fetch: the request, the wire, the server and the client library's reading of the reply;
  // the tier holds what came (the value's bytes, the rows, the cache entry) until the next fetch
  // of that workload. False when the tier does not hold the record.
  virtual bool fetch_document(const std::string& key) = 0;
  virtual bool fetch_list(std::int64_t group_id) = 0;
  // The decode: the ready object from what the last successful fetch holds (a tier that holds
  // ready objects hands its own over). Repeatable: each call decodes the same fetch again.
  virtual std::shared_ptr<const Document> decode_document() = 0;
  virtual std::shared_ptr<const CommentList> decode_list() = 0;
  // A get: the fetch, then the decode; nullptr when the tier does not hold the record.
  std::shared_ptr<const Document> get_document(const std::string& key) {
    return fetch_document(key) ? decode_document() : nullptr;
  }
  std::shared_ptr<const CommentList> get_list(std::int64_t group_id) {
    return fetch_list(group_id) ? decode_list() : nullptr;
  }
  // The query workload: the rows of one key (only redis, local and QueryTier hold them; the
  // others throw std::logic_error).
  virtual void put_result(const QueryResult& r);
  virtual bool fetch_result(const std::string& key);
  virtual std::shared_ptr<const QueryResult> decode_result();
  // Bytes the tier stores for the record (0 when absent).
  virtual std::size_t document_bytes(const std::string& key) = 0;
  virtual std::size_t list_bytes(std::int64_t group_id) = 0;
  virtual std::size_t result_bytes(const std::string& key);
  // CPU consumed so far by the server process that answers this tier's requests, or nullopt
  // when it cannot be measured (no server, or a server on another machine).
  virtual std::optional<std::int64_t> server_cpu_ns() = 0;

 protected:
  explicit Tier(Codec c) : codec_(c) {}
  Codec codec_;
};

// The CPU the PostgreSQL backend of `c` has used so far, when the server is on this machine
// (/proc); nullopt otherwise.
std::optional<std::int64_t> backend_cpu_ns(const PgConnection& c, bool local_server);

// The tables live in `schema` (Perflab's own); nothing outside it is ever touched.
class PostgresTier : public Tier {
 public:
  // Connects (one connection per tier, bounded by the target's limits and the stop token). On
  // a managed server (on this machine) its backend process' CPU can be read.
  PostgresTier(const PgTarget& target, Codec codec, std::stop_token stop = {});
  // Creates the schema, marked as Perflab's, if absent (refuses one Perflab did not create:
  // targets/ownership.h) and (re)creates the experiment's tables in it, empty.
  static void create_tables(PgConnection& c, const std::string& schema);
  // Drops the experiment's tables (only those) from the schema, when the schema is Perflab's.
  static void drop_tables(PgConnection& c, const std::string& schema);

  std::string name() const override { return "postgres"; }
  void put_document(const Document& d) override;
  void put_list(const CommentList& l) override;
  bool fetch_document(const std::string& key) override;
  bool fetch_list(std::int64_t group_id) override;
  std::shared_ptr<const Document> decode_document() override;
  std::shared_ptr<const CommentList> decode_list() override;
  std::size_t document_bytes(const std::string& key) override;
  std::size_t list_bytes(std::int64_t group_id) override;
  std::optional<std::int64_t> server_cpu_ns() override;
  PgConnection& connection() { return conn_; }

 private:
  PgResult query(const std::string& stmt, const PgParams& p);  // binary results
  PgConnection conn_;
  PgResult document_rows_, list_rows_;  // the last fetches (binary results)
  std::int64_t list_group_ = 0;
  std::string schema_q_;  // quoted schema
  bool local_server_;
};

class RedisTier : public Tier {
 public:
  // Keys: <prefix>caching:<encoding>:doc:<key> and <prefix>caching:<encoding>:list:<group>, on
  // the target's first node.
  RedisTier(const RedisTarget& target, Codec codec, std::stop_token stop = {});
  ~RedisTier() override;  // deletes the keys it wrote (best effort)

  std::string name() const override { return "redis"; }
  void put_document(const Document& d) override;
  void put_list(const CommentList& l) override;
  bool fetch_document(const std::string& key) override;
  bool fetch_list(std::int64_t group_id) override;
  std::shared_ptr<const Document> decode_document() override;
  std::shared_ptr<const CommentList> decode_list() override;
  std::size_t document_bytes(const std::string& key) override;
  std::size_t list_bytes(std::int64_t group_id) override;
  void put_result(const QueryResult& r) override;
  bool fetch_result(const std::string& key) override;
  std::shared_ptr<const QueryResult> decode_result() override;
  std::size_t result_bytes(const std::string& key) override;
  // used_cpu_sys + used_cpu_user from INFO (works for any server we can reach).
  std::optional<std::int64_t> server_cpu_ns() override;

  // The encoded value of a document, as stored (cache-aside fills the local tier from it).
  std::optional<std::string> get_document_bytes(const std::string& key);
  void put_document_bytes(const std::string& key, const std::string& bytes);
  // DELetes every key this tier wrote; returns how many existed.
  std::int64_t remove_own_keys();
  std::string document_key(const std::string& key) const;
  std::string list_key(std::int64_t group_id) const;
  std::string result_key(const std::string& key) const;

 private:
  void set(const std::string& key, const std::string& value);
  std::optional<std::string> get(const std::string& key);
  bool fetch_into(const std::string& key, std::string& value);  // false: no such key
  RedisClient client_;
  std::string document_value_, list_value_, result_value_;  // the last fetches, as they came
  std::string base_;                                        // <prefix>caching:<encoding>:
  std::set<std::string> written_;
};

class LocalTier : public Tier {
 public:
  using Value =
      std::variant<std::shared_ptr<const Document>, std::shared_ptr<const CommentList>,
                   std::shared_ptr<const std::string>, std::shared_ptr<const QueryResult>>;
  LocalTier(std::size_t budget_bytes, Codec codec);

  std::string name() const override { return "local"; }
  void put_document(const Document& d) override;
  void put_list(const CommentList& l) override;
  // Native: keeps the object itself (no copy). Encoded: stores its encoding.
  void put_document(std::shared_ptr<const Document> d);
  // Stores an already encoded document (must be in this tier's encoding; native decodes it).
  void put_document_bytes(const std::string& key, std::string bytes);
  // The fetch is the cache's lookup; the decode hands a ready object over, or decodes the bytes.
  bool fetch_document(const std::string& key) override;
  bool fetch_list(std::int64_t group_id) override;
  std::shared_ptr<const Document> decode_document() override;
  std::shared_ptr<const CommentList> decode_list() override;
  std::size_t document_bytes(const std::string& key) override;
  std::size_t list_bytes(std::int64_t group_id) override;
  void put_result(const QueryResult& r) override;
  bool fetch_result(const std::string& key) override;
  std::shared_ptr<const QueryResult> decode_result() override;
  std::size_t result_bytes(const std::string& key) override;
  std::optional<std::int64_t> server_cpu_ns() override { return 0; }  // no server

  LruStats stats() const { return cache_.stats(); }
  LruCache<Value>& cache() { return cache_; }

 private:
  // Stores the object under `key`: itself (native) or its encoding, charged what it occupies.
  template <class T>
  void put_entry(const std::string& key, std::shared_ptr<const T> obj);
  bool fetch_entry(const std::string& key, Value& into);  // the cache's lookup
  // The ready object an entry holds, or the decode of its bytes.
  template <class T, class Decode>
  std::shared_ptr<const T> decode_entry(const Value& entry, Decode decode) const;
  LruCache<Value> cache_;
  Value document_entry_, list_entry_, result_entry_;  // the last fetches (shared, never copied)
};

// The datastore of caching on your query: the user's query itself, `$1` the key, on a session
// whose every transaction is read-only (SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY),
// with the target's statement timeout: each get is one statement in a read-only transaction of
// its own, as an application's autocommit query would be. sample_query refused a query that
// writes or that changes the session's read-only default. It holds no copy: put_result stores
// nothing, a fetch runs the query, the decode makes the QueryResult of its rows (text form). The
// documents and lists it cannot hold.
class QueryTier : public Tier {
 public:
  QueryTier(const PgTarget& target, const std::string& query, std::stop_token stop = {});

  std::string name() const override { return "postgres"; }
  void put_result(const QueryResult&) override {}
  bool fetch_result(const std::string& key) override;
  std::shared_ptr<const QueryResult> decode_result() override;
  // The bytes of the result's values, as text (what the wire carries, about).
  std::size_t result_bytes(const std::string& key) override;
  std::optional<std::int64_t> server_cpu_ns() override;

  void put_document(const Document&) override { refuse(); }
  void put_list(const CommentList&) override { refuse(); }
  bool fetch_document(const std::string&) override { refuse(); }
  bool fetch_list(std::int64_t) override { refuse(); }
  std::shared_ptr<const Document> decode_document() override { refuse(); }
  std::shared_ptr<const CommentList> decode_list() override { refuse(); }
  std::size_t document_bytes(const std::string&) override { refuse(); }
  std::size_t list_bytes(std::int64_t) override { refuse(); }

 private:
  [[noreturn]] static void refuse();
  PgConnection conn_;
  std::string statement_ = "perflab_user_query";
  std::string key_;  // of the last fetch
  PgParams params_;
  PgResult rows_;  // the last fetch's
  bool local_server_;
};

}  // namespace perflab::caching
