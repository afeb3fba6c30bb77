#pragma once
// The caching experiment's records: a "document" (one record with ~60 KB of text) and a
// "comment" (a small record the size of an average comment); a list is the comments of one
// group; a query result is the rows a user's own query returned for one key. The first three are
// generated deterministically from a seed so that runs repeat: std::mt19937_64 (fully
// specified by the standard) with the project's own mapping to ranges, never the standard
// distributions (their algorithms differ between standard libraries).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace perflab::caching {

struct Document {
  std::string key;
  std::string title;
  std::string author;
  std::int64_t created_at_ms = 0;  // Unix time, milliseconds
  std::string body;                // ~60 KB of text
  bool operator==(const Document&) const = default;
};

struct Comment {
  std::int64_t id = 0;
  std::int64_t group_id = 0;
  std::string author;
  std::int64_t created_at_ms = 0;  // Unix time, milliseconds
  std::string body;                // a few hundred bytes of text
  std::int32_t score = 0;
  bool approved = false;
  bool operator==(const Comment&) const = default;
};

struct CommentList {
  std::int64_t group_id = 0;
  std::vector<Comment> comments;  // ordered by id
  bool operator==(const CommentList&) const = default;
};

// The rows a user's query returned for one key (caching on your query): the column names, and
// each value in PostgreSQL's text form or null (SQL NULL), row by row.
struct QueryResult {
  std::string key;
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;
  bool operator==(const QueryResult&) const = default;
};

// A deterministic source of values: mt19937_64 plus fixed mappings.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : g_(seed) {}
  std::uint64_t next() { return g_(); }
  // Uniform in [0, n) (n > 0); the modulo bias is irrelevant here, the mapping is fixed.
  std::uint64_t below(std::uint64_t n) { return g_() % n; }
  // Uniform in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo) + 1));
  }
  // Uniform double in [0, 1) from the top 53 bits.
  double unit() { return static_cast<double>(g_() >> 11) * 0x1.0p-53; }

 private:
  std::mt19937_64 g_;
};

// A seed for one record, mixed from the run's seed, a stream id and an index (splitmix64).
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream, std::uint64_t index);

// Text of about `bytes` bytes (exactly `bytes` when bytes > 0): words from a fixed vocabulary,
// sentences and paragraphs, so that it compresses about as well as prose.
std::string generate_text(Rng& rng, std::size_t bytes);

// Document number `index` with a body of `body_bytes`; key "doc-<index>".
Document generate_document(std::uint64_t seed, std::uint64_t index, std::size_t body_bytes);

// The `count` comments of group `group_id` (ids group_id*1'000'000 + 1..count).
CommentList generate_comments(std::uint64_t seed, std::int64_t group_id, std::size_t count);

// Bytes an object occupies in this process (the struct plus heap text), for the local
// cache's budget.
std::size_t footprint(const Document& d);
std::size_t footprint(const CommentList& l);
std::size_t footprint(const QueryResult& r);
// The bytes of a query result's values, as text (about what the wire carried).
std::size_t value_bytes(const QueryResult& r);

}  // namespace perflab::caching
