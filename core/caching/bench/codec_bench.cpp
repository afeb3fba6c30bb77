// perflab-codec-bench: decoding the caching experiment's records (the 60 KB document and the list
// of 1,000 comments) into their structs with each library Perflab's `native` and `json`
// encodings were chosen from — a benchmark, not a test: it prints figures (docs/caching.md).
//   perflab-codec-bench [ROUNDS] [DOCUMENT_KB] [LIST_SIZE]      (30, 60, 1000)
// Every round decodes with each library in turn (the order rotated), a sample of at least 2 ms
// each, and places the encoded bytes elsewhere (caching/placement.h: glibc's memcpy on AMD Zen
// is twenty times slower at one distance between source and destination). Each library gives the
// median ns per decode with the rounds' min–max, MB/s of its encoded bytes, and the heap
// allocations of one decode.
#include <rapidjson/document.h>
#include <simdjson.h>

#include <algorithm>
#include <cereal/archives/binary.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <istream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include "caching/codec.h"
#include "caching/placement.h"
#include "caching/records.h"
#include "common/alloc_counter.h"
#include "common/clock.h"
#include "common/sample_calls.h"

using namespace perflab;
using namespace perflab::caching;
using nlohmann::json;

namespace perflab::caching {
// cereal's binary archive: the records' fields in declaration order, nothing describing them.
template <class Archive>
void serialize(Archive& a, Document& d) {
  a(d.key, d.title, d.author, d.created_at_ms, d.body);
}
template <class Archive>
void serialize(Archive& a, Comment& c) {
  a(c.id, c.group_id, c.author, c.created_at_ms, c.body, c.score, c.approved);
}
template <class Archive>
void serialize(Archive& a, CommentList& l) {
  a(l.group_id, l.comments);
}
}  // namespace perflab::caching

namespace {

// ---------------------------------------------------------------- nlohmann::json (a DOM)

Comment nlohmann_comment(const json& j) {
  Comment c;
  c.id = j.at("id").get<std::int64_t>();
  c.group_id = j.at("group_id").get<std::int64_t>();
  c.author = j.at("author").get<std::string>();
  c.created_at_ms = j.at("created_at_ms").get<std::int64_t>();
  c.body = j.at("body").get<std::string>();
  c.score = j.at("score").get<std::int32_t>();
  c.approved = j.at("approved").get<bool>();
  return c;
}
Document nlohmann_document(std::string_view s) {
  const json j = json::parse(s.begin(), s.end());
  Document d;
  d.key = j.at("key").get<std::string>();
  d.title = j.at("title").get<std::string>();
  d.author = j.at("author").get<std::string>();
  d.created_at_ms = j.at("created_at_ms").get<std::int64_t>();
  d.body = j.at("body").get<std::string>();
  return d;
}
CommentList nlohmann_list(std::string_view s) {
  const json j = json::parse(s.begin(), s.end());
  CommentList l;
  l.group_id = j.at("group_id").get<std::int64_t>();
  for (const json& c : j.at("comments")) l.comments.push_back(nlohmann_comment(c));
  return l;
}

// ---------------------------------------------------------------- simdjson's DOM (a tape)

simdjson::dom::parser& dom_parser() {
  static simdjson::dom::parser p;
  return p;
}
std::string dom_string(simdjson::dom::element e) {
  return std::string(std::string_view(e));
}
Document simdjson_dom_document(std::string_view s) {
  const simdjson::dom::element j = dom_parser().parse(s.data(), s.size());
  Document d;
  d.key = dom_string(j["key"]);
  d.title = dom_string(j["title"]);
  d.author = dom_string(j["author"]);
  d.created_at_ms = std::int64_t(j["created_at_ms"]);
  d.body = dom_string(j["body"]);
  return d;
}
CommentList simdjson_dom_list(std::string_view s) {
  const simdjson::dom::element j = dom_parser().parse(s.data(), s.size());
  CommentList l;
  l.group_id = std::int64_t(j["group_id"]);
  for (simdjson::dom::element e : simdjson::dom::array(j["comments"])) {
    Comment c;
    c.id = std::int64_t(e["id"]);
    c.group_id = std::int64_t(e["group_id"]);
    c.author = dom_string(e["author"]);
    c.created_at_ms = std::int64_t(e["created_at_ms"]);
    c.body = dom_string(e["body"]);
    c.score = static_cast<std::int32_t>(std::int64_t(e["score"]));
    c.approved = bool(e["approved"]);
    l.comments.push_back(std::move(c));
  }
  return l;
}

// ---------------------------------------------------------------- RapidJSON (a DOM)

Document rapidjson_document(std::string_view s) {
  rapidjson::Document j;
  j.Parse(s.data(), s.size());
  if (j.HasParseError() || !j.IsObject()) throw std::runtime_error("RapidJSON: malformed");
  Document d;
  d.key.assign(j["key"].GetString(), j["key"].GetStringLength());
  d.title.assign(j["title"].GetString(), j["title"].GetStringLength());
  d.author.assign(j["author"].GetString(), j["author"].GetStringLength());
  d.created_at_ms = j["created_at_ms"].GetInt64();
  d.body.assign(j["body"].GetString(), j["body"].GetStringLength());
  return d;
}
CommentList rapidjson_list(std::string_view s) {
  rapidjson::Document j;
  j.Parse(s.data(), s.size());
  if (j.HasParseError() || !j.IsObject()) throw std::runtime_error("RapidJSON: malformed");
  CommentList l;
  l.group_id = j["group_id"].GetInt64();
  for (const auto& e : j["comments"].GetArray()) {
    Comment c;
    c.id = e["id"].GetInt64();
    c.group_id = e["group_id"].GetInt64();
    c.author.assign(e["author"].GetString(), e["author"].GetStringLength());
    c.created_at_ms = e["created_at_ms"].GetInt64();
    c.body.assign(e["body"].GetString(), e["body"].GetStringLength());
    c.score = e["score"].GetInt();
    c.approved = e["approved"].GetBool();
    l.comments.push_back(std::move(c));
  }
  return l;
}

// ---------------------------------------------------------------- cereal (binary archive)

struct ViewBuffer : std::streambuf {
  explicit ViewBuffer(std::string_view s) {
    char* p = const_cast<char*>(s.data());  // read only: the get area is never written
    setg(p, p, p + s.size());
  }
};
template <class T>
std::string cereal_encode(const T& v) {
  std::ostringstream out;
  {
    cereal::BinaryOutputArchive a(out);
    a(v);
  }
  return out.str();
}
template <class T>
T cereal_decode(std::string_view s) {
  ViewBuffer b(s);
  std::istream in(&b);
  cereal::BinaryInputArchive a(in);
  T v;
  a(v);
  return v;
}

// ---------------------------------------------------------------- the bench

struct Library {
  std::string name;
  std::string bytes;
  std::function<std::shared_ptr<const void>(std::string_view)> decode;
  RotatingPlacement placement = {};
  std::string_view placed = {};
  std::shared_ptr<const void> held = {};
  std::int64_t per_sample = 1;
  AllocCount allocs = {};
  std::vector<double> ns = {};
  void place(int round) { placed = placement.place(bytes, round); }
};

template <class T, class F>
std::function<std::shared_ptr<const void>(std::string_view)> shared(F f) {
  return [f](std::string_view s) -> std::shared_ptr<const void> {
    return std::make_shared<const T>(f(s));
  };
}

std::vector<Library> libraries(const Document& doc, const CommentList& list, bool document) {
  const auto codec = [](Encoding e) { return Codec{e, 6}; };
  std::vector<Library> v;
  const auto add = [&](std::string name, std::string bytes, auto decode_document,
                       auto decode_list) {
    if (document)
      v.push_back({std::move(name), std::move(bytes), shared<Document>(decode_document)});
    else
      v.push_back({std::move(name), std::move(bytes), shared<CommentList>(decode_list)});
  };
  const auto enc = [&](Encoding e) {
    return document ? codec(e).encode(doc) : codec(e).encode(list);
  };
  const std::string text = enc(Encoding::Json);
  add("JSON, nlohmann::json (DOM)", text, nlohmann_document, nlohmann_list);
  add("JSON, RapidJSON (DOM)", text, rapidjson_document, rapidjson_list);
  add("JSON, simdjson DOM", text, simdjson_dom_document, simdjson_dom_list);
  add(
      "JSON, simdjson On-Demand (json)", text,
      [](std::string_view s) {
        return Codec{Encoding::Json, 6}.decode_document(s);
      },
      [](std::string_view s) {
        return Codec{Encoding::Json, 6}.decode_list(s);
      });
  add(
      "MessagePack, msgpack-cxx (native)", enc(Encoding::Native),
      [](std::string_view s) {
        return Codec{Encoding::Native, 6}.decode_document(s);
      },
      [](std::string_view s) {
        return Codec{Encoding::Native, 6}.decode_list(s);
      });
  add("binary, cereal", document ? cereal_encode(doc) : cereal_encode(list),
      cereal_decode<Document>, cereal_decode<CommentList>);
  add(
      "protobuf (protobuf)", enc(Encoding::Protobuf),
      [](std::string_view s) {
        return Codec{Encoding::Protobuf, 6}.decode_document(s);
      },
      [](std::string_view s) {
        return Codec{Encoding::Protobuf, 6}.decode_list(s);
      });
  return v;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 30;
  const std::size_t kb = argc > 2 ? static_cast<std::size_t>(std::max(1, std::atoi(argv[2]))) : 60;
  const std::size_t n = argc > 3 ? static_cast<std::size_t>(std::max(1, std::atoi(argv[3]))) : 1000;
  const Document doc = generate_document(42, 0, kb * 1024);
  const CommentList list = generate_comments(42, 1, n);
  constexpr std::int64_t kSampleNs = 2'000'000;
  std::printf("%-9s %-34s %8s %26s %8s %7s\n", "workload", "library (Perflab's encoding)", "bytes",
              "ns per decode [min-max]", "MB/s", "allocs");
  for (const bool document : {true, false}) {
    std::vector<Library> libs = libraries(doc, list, document);
    for (Library& l : libs) {
      l.place(0);
      const bool same =
          document ? *std::static_pointer_cast<const Document>(l.decode(l.placed)) == doc
                   : *std::static_pointer_cast<const CommentList>(l.decode(l.placed)) == list;
      if (!same) {
        std::fprintf(stderr, "%s: decoded another record\n", l.name.c_str());
        return 1;
      }
      l.held = l.decode(l.placed);  // warm (simdjson's parsers keep their buffers)
      AllocScope scope;
      l.held = l.decode(l.placed);
      l.allocs = scope.delta();
      l.per_sample = calls_per_sample([&] { l.held = l.decode(l.placed); }, kSampleNs, 1'000'000);
    }
    for (int r = 0; r < rounds; ++r)
      for (std::size_t i = 0; i < libs.size(); ++i) {
        Library& l = libs[(i + static_cast<std::size_t>(r)) % libs.size()];
        l.place(r);
        l.held = l.decode(l.placed);
        Stopwatch sw;
        for (std::int64_t k = 0; k < l.per_sample; ++k) l.held = l.decode(l.placed);
        l.ns.push_back(static_cast<double>(sw.wall_elapsed_ns()) /
                       static_cast<double>(l.per_sample));
      }
    for (const Library& l : libs) {
      const double med = quantile(l.ns, 0.5);
      char range[64];
      std::snprintf(range, sizeof range, "%.0f [%.0f-%.0f]", med, quantile(l.ns, 0),
                    quantile(l.ns, 1));
      std::printf("%-9s %-34s %8zu %26s %8.0f %7llu\n", document ? "document" : "list",
                  l.name.c_str(), l.bytes.size(), range,
                  static_cast<double>(l.bytes.size()) / med * 1e3,
                  static_cast<unsigned long long>(l.allocs.allocations));
    }
  }
  return 0;
}
