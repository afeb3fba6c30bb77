// The records as JSON text: written by nlohmann::json (the project's JSON writer), read by
// simdjson's On-Demand API straight into the structs, with no DOM in between. nlohmann's DOM
// read the 60 KB document at about 130 MB/s and the list at about 90 MB/s, so that most of a
// Redis get was parsing; On-Demand reads them an order of magnitude faster (docs/caching.md,
// perflab-codec-bench gives the figures of every library measured).
#include <simdjson.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "caching/codec.h"
#include "caching/codec_forms.h"

namespace perflab::caching::forms {

namespace {

using nlohmann::json;
namespace od = simdjson::ondemand;

json to_json(const Document& d) {
  return json{{"key", d.key},
              {"title", d.title},
              {"author", d.author},
              {"created_at_ms", d.created_at_ms},
              {"body", d.body}};
}

json to_json(const Comment& c) {
  return json{{"id", c.id},
              {"group_id", c.group_id},
              {"author", c.author},
              {"created_at_ms", c.created_at_ms},
              {"body", c.body},
              {"score", c.score},
              {"approved", c.approved}};
}

// simdjson reads up to SIMDJSON_PADDING bytes past the end of its input: the bytes are copied
// into a buffer of this thread's with that room (a value from Redis or PostgreSQL has none).
// The parser, too, is the thread's: it keeps its buffers from one document to the next.
struct Reader {
  od::parser parser;
  std::string text;
  od::document iterate(std::string_view bytes) {
    if (text.capacity() < bytes.size() + simdjson::SIMDJSON_PADDING)
      text.reserve(bytes.size() + simdjson::SIMDJSON_PADDING);
    text.assign(bytes.data(), bytes.size());
    return parser.iterate(simdjson::padded_string_view(text.data(), text.size(), text.capacity()));
  }
};
Reader& reader() {
  thread_local Reader r;
  return r;
}

[[noreturn]] void refuse_json(const std::string& why) {
  throw CodecError("JSON does not describe the record: " + why);
}

void read_string(od::value v, std::string& out) {
  std::string_view s = v.get_string();
  out.assign(s.data(), s.size());
}

std::int32_t read_int32(od::value v, std::string_view field) {
  const std::int64_t x = v.get_int64();
  if (x < std::numeric_limits<std::int32_t>::min() || x > std::numeric_limits<std::int32_t>::max())
    refuse_json("'" + std::string(field) + "' is out of range");
  return static_cast<std::int32_t>(x);
}

// Each field once; `seen` has a bit per field of the record, in declaration order.
void mark(unsigned& seen, unsigned bit, std::string_view field) {
  if (seen & (1u << bit)) refuse_json("'" + std::string(field) + "' appears twice");
  seen |= 1u << bit;
}

Document read_document(od::object o) {
  Document d;
  unsigned seen = 0;
  for (auto field : o) {
    const std::string_view k = field.unescaped_key();
    od::value v = field.value();
    if (k == "key") {
      mark(seen, 0, k), read_string(v, d.key);
    } else if (k == "title") {
      mark(seen, 1, k), read_string(v, d.title);
    } else if (k == "author") {
      mark(seen, 2, k), read_string(v, d.author);
    } else if (k == "created_at_ms") {
      mark(seen, 3, k), d.created_at_ms = v.get_int64();
    } else if (k == "body") {
      mark(seen, 4, k), read_string(v, d.body);
    } else {
      refuse_json("unknown field '" + std::string(k) + "' in a document");
    }
  }
  if (seen != 0b11111) refuse_json("a document lacks a field");
  return d;
}

Comment read_comment(od::object o) {
  Comment c;
  unsigned seen = 0;
  for (auto field : o) {
    const std::string_view k = field.unescaped_key();
    od::value v = field.value();
    if (k == "id") {
      mark(seen, 0, k), c.id = v.get_int64();
    } else if (k == "group_id") {
      mark(seen, 1, k), c.group_id = v.get_int64();
    } else if (k == "author") {
      mark(seen, 2, k), read_string(v, c.author);
    } else if (k == "created_at_ms") {
      mark(seen, 3, k), c.created_at_ms = v.get_int64();
    } else if (k == "body") {
      mark(seen, 4, k), read_string(v, c.body);
    } else if (k == "score") {
      mark(seen, 5, k), c.score = read_int32(v, k);
    } else if (k == "approved") {
      mark(seen, 6, k), c.approved = v.get_bool();
    } else {
      refuse_json("unknown field '" + std::string(k) + "' in a comment");
    }
  }
  if (seen != 0b1111111) refuse_json("a comment lacks a field");
  return c;
}

CommentList read_list(od::object o) {
  CommentList l;
  unsigned seen = 0;
  for (auto field : o) {
    const std::string_view k = field.unescaped_key();
    od::value v = field.value();
    if (k == "group_id") {
      mark(seen, 0, k), l.group_id = v.get_int64();
    } else if (k == "comments") {
      mark(seen, 1, k);
      for (auto c : v.get_array()) l.comments.push_back(read_comment(c.get_object()));
    } else {
      refuse_json("unknown field '" + std::string(k) + "' in a list");
    }
  }
  if (seen != 0b11) refuse_json("a list lacks a field");
  return l;
}

// One row: each value a string or null, as many as the columns.
std::vector<std::optional<std::string>> read_row(od::array a, std::size_t columns) {
  std::vector<std::optional<std::string>> row;
  row.reserve(columns);
  for (auto v : a) {
    if (v.is_null()) {
      row.emplace_back();
    } else {
      read_string(v.value(), row.emplace_back().emplace());
    }
  }
  if (row.size() != columns) refuse_json("a row's values do not match its columns");
  return row;
}

QueryResult read_result(od::object o) {
  QueryResult r;
  unsigned seen = 0;
  for (auto field : o) {
    const std::string_view k = field.unescaped_key();
    od::value v = field.value();
    if (k == "key") {
      mark(seen, 0, k), read_string(v, r.key);
    } else if (k == "columns") {
      mark(seen, 1, k);
      for (auto c : v.get_array()) read_string(c.value(), r.columns.emplace_back());
    } else if (k == "rows") {
      if (!(seen & 0b10)) refuse_json("a query result's rows come before its columns");
      mark(seen, 2, k);
      for (auto row : v.get_array()) r.rows.push_back(read_row(row.get_array(), r.columns.size()));
    } else {
      refuse_json("unknown field '" + std::string(k) + "' in a query result");
    }
  }
  if (seen != 0b111) refuse_json("a query result lacks a field");
  return r;
}

// Parses `bytes` as one JSON object read by `read`, and nothing after it.
template <class Read>
auto parse(std::string_view bytes, Read read) {
  try {
    od::document doc = reader().iterate(bytes);
    auto record = read(doc.get_object());
    if (doc.current_location().error() == simdjson::SUCCESS) refuse_json("text follows the record");
    return record;
  } catch (const simdjson::simdjson_error& e) {
    throw CodecError(std::string("malformed JSON or a field of the wrong type: ") + e.what());
  }
}

}  // namespace

std::string json_encode(const Document& d) {
  return to_json(d).dump();
}
std::string json_encode(const Comment& c) {
  return to_json(c).dump();
}
std::string json_encode(const CommentList& l) {
  json arr = json::array();
  for (const auto& c : l.comments) arr.push_back(to_json(c));
  return json{{"group_id", l.group_id}, {"comments", std::move(arr)}}.dump();
}

std::string json_encode(const QueryResult& r) {
  json rows = json::array();
  for (const auto& row : r.rows) {
    json values = json::array();
    for (const auto& v : row) values.push_back(v ? json(*v) : json(nullptr));
    rows.push_back(std::move(values));
  }
  return json{{"key", r.key}, {"columns", r.columns}, {"rows", std::move(rows)}}.dump();
}

Document json_decode_document(std::string_view bytes) {
  return parse(bytes, read_document);
}
Comment json_decode_comment(std::string_view bytes) {
  return parse(bytes, read_comment);
}
CommentList json_decode_list(std::string_view bytes) {
  return parse(bytes, read_list);
}

QueryResult json_decode_result(std::string_view bytes) {
  return parse(bytes, read_result);
}

}  // namespace perflab::caching::forms
