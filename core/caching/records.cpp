#include "caching/records.h"

#include <array>
#include <string_view>

namespace perflab::caching {

namespace {

// A fixed vocabulary: common English words, so generated text compresses like prose (~3x).
constexpr std::array<std::string_view, 96> kWords = {
    "the",   "of",    "and",    "to",      "in",      "is",       "that",      "for",      "it",
    "as",    "was",   "with",   "be",      "by",      "on",       "not",       "he",       "this",
    "are",   "or",    "his",    "from",    "at",      "which",    "but",       "have",     "an",
    "had",   "they",  "you",    "were",    "their",   "one",      "all",       "we",       "can",
    "her",   "has",   "there",  "been",    "if",      "more",     "when",      "will",     "would",
    "who",   "so",    "no",     "cache",   "memory",  "server",   "request",   "latency",  "record",
    "query", "index", "value",  "network", "process", "instance", "datastore", "protocol", "buffer",
    "list",  "time",  "people", "year",    "way",     "day",      "thing",     "man",      "world",
    "life",  "hand",  "part",   "child",   "eye",     "woman",    "place",     "work",     "week",
    "case",  "point", "number", "group",   "problem", "fact",     "good",      "new",      "first",
    "last",  "long",  "great",  "little",  "own",     "other"};

constexpr std::array<std::string_view, 24> kAuthors = {
    "alice", "bob",    "carol",   "dave", "erin",   "frank", "grace",  "heidi",
    "ivan",  "judy",   "mallory", "niaj", "olivia", "peggy", "rupert", "sybil",
    "trent", "victor", "walter",  "xena", "yusuf",  "zoe",   "anna",   "boris"};

// 2011-06-01T00:00:00Z, the article's time, as a base for dates.
constexpr std::int64_t kBaseMs = 1306886400000;

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::size_t text_bytes(const std::string& s) {
  // Heap storage beyond the small-string buffer that sizeof(std::string) already counts.
  return s.capacity() > 15 ? s.capacity() + 1 : 0;
}

}  // namespace

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  return splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ index);
}

std::string generate_text(Rng& rng, std::size_t bytes) {
  std::string out;
  out.reserve(bytes + 16);
  bool sentence_start = true;
  std::size_t words_in_sentence = 0;
  while (out.size() < bytes) {
    std::string_view w = kWords[rng.below(kWords.size())];
    if (sentence_start) {
      out.push_back(static_cast<char>(w[0] >= 'a' && w[0] <= 'z' ? w[0] - 'a' + 'A' : w[0]));
      out.append(w.substr(1));
      sentence_start = false;
    } else {
      out.append(w);
    }
    ++words_in_sentence;
    if (words_in_sentence >= 6 && rng.below(8) == 0) {
      out.push_back('.');
      sentence_start = true;
      words_in_sentence = 0;
      out.push_back(rng.below(6) == 0 ? '\n' : ' ');
    } else {
      out.push_back(rng.below(12) == 0 ? ',' : ' ');
      if (out.back() == ',') out.push_back(' ');
    }
  }
  out.resize(bytes);
  return out;
}

Document generate_document(std::uint64_t seed, std::uint64_t index, std::size_t body_bytes) {
  Rng rng(derive_seed(seed, 1, index));
  Document d;
  d.key = "doc-" + std::to_string(index);
  d.title = generate_text(rng, 24 + rng.below(40));
  d.author = std::string(kAuthors[rng.below(kAuthors.size())]);
  d.created_at_ms = kBaseMs + static_cast<std::int64_t>(rng.below(365ULL * 24 * 3600 * 1000));
  d.body = generate_text(rng, body_bytes);
  return d;
}

CommentList generate_comments(std::uint64_t seed, std::int64_t group_id, std::size_t count) {
  Rng rng(derive_seed(seed, 2, static_cast<std::uint64_t>(group_id)));
  CommentList l;
  l.group_id = group_id;
  l.comments.reserve(count);
  std::int64_t t = kBaseMs + static_cast<std::int64_t>(rng.below(30ULL * 24 * 3600 * 1000));
  for (std::size_t i = 0; i < count; ++i) {
    Comment c;
    c.id = group_id * 1'000'000 + static_cast<std::int64_t>(i) + 1;
    c.group_id = group_id;
    c.author = std::string(kAuthors[rng.below(kAuthors.size())]) + std::to_string(rng.below(1000));
    t += rng.between(1'000, 3'600'000);
    c.created_at_ms = t;
    c.body = generate_text(rng, static_cast<std::size_t>(rng.between(150, 450)));
    c.score = static_cast<std::int32_t>(rng.between(-5, 50));
    c.approved = rng.below(10) != 0;
    l.comments.push_back(std::move(c));
  }
  return l;
}

std::size_t footprint(const Document& d) {
  return sizeof(Document) + text_bytes(d.key) + text_bytes(d.title) + text_bytes(d.author) +
         text_bytes(d.body);
}

std::size_t footprint(const CommentList& l) {
  std::size_t n = sizeof(CommentList) + l.comments.capacity() * sizeof(Comment);
  for (const auto& c : l.comments) n += text_bytes(c.author) + text_bytes(c.body);
  return n;
}

std::size_t footprint(const QueryResult& r) {
  std::size_t n = sizeof(QueryResult) + text_bytes(r.key) +
                  r.columns.capacity() * sizeof(std::string) +
                  r.rows.capacity() * sizeof(r.rows.front());
  for (const auto& c : r.columns) n += text_bytes(c);
  for (const auto& row : r.rows) {
    n += row.capacity() * sizeof(row.front());
    for (const auto& v : row)
      if (v) n += text_bytes(*v);
  }
  return n;
}

std::size_t value_bytes(const QueryResult& r) {
  std::size_t n = 0;
  for (const auto& row : r.rows)
    for (const auto& v : row)
      if (v) n += v->size();
  return n;
}

}  // namespace perflab::caching
