#include "caching/codec.h"

#include <zlib.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>

#include "records.pb.h"

namespace perflab::caching {

namespace {

using nlohmann::json;

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

Document document_from_json(const json& j) {
  Document d;
  d.key = j.at("key").get<std::string>();
  d.title = j.at("title").get<std::string>();
  d.author = j.at("author").get<std::string>();
  d.created_at_ms = j.at("created_at_ms").get<std::int64_t>();
  d.body = j.at("body").get<std::string>();
  return d;
}

Comment comment_from_json(const json& j) {
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

json parse_json(std::string_view bytes) {
  try {
    return json::parse(bytes.begin(), bytes.end());
  } catch (const json::exception& e) {
    throw CodecError(std::string("malformed JSON: ") + e.what());
  }
}

template <class F>
auto from_json_checked(F&& f) {
  try {
    return f();
  } catch (const json::exception& e) {
    throw CodecError(std::string("JSON does not describe the record: ") + e.what());
  }
}

void to_pb(const Document& d, pb::Document& m) {
  m.set_key(d.key);
  m.set_title(d.title);
  m.set_author(d.author);
  m.set_created_at_ms(d.created_at_ms);
  m.set_body(d.body);
}

void to_pb(const Comment& c, pb::Comment& m) {
  m.set_id(c.id);
  m.set_group_id(c.group_id);
  m.set_author(c.author);
  m.set_created_at_ms(c.created_at_ms);
  m.set_body(c.body);
  m.set_score(c.score);
  m.set_approved(c.approved);
}

// Moves strings out of the message: it is a temporary.
Document from_pb(pb::Document& m) {
  Document d;
  d.key = std::move(*m.mutable_key());
  d.title = std::move(*m.mutable_title());
  d.author = std::move(*m.mutable_author());
  d.created_at_ms = m.created_at_ms();
  d.body = std::move(*m.mutable_body());
  return d;
}

Comment from_pb(pb::Comment& m) {
  Comment c;
  c.id = m.id();
  c.group_id = m.group_id();
  c.author = std::move(*m.mutable_author());
  c.created_at_ms = m.created_at_ms();
  c.body = std::move(*m.mutable_body());
  c.score = m.score();
  c.approved = m.approved();
  return c;
}

template <class Msg>
void parse_pb(Msg& m, std::string_view bytes) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
      !m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw CodecError(std::string("malformed protobuf ") + Msg::descriptor()->name());
}

template <class Msg>
std::string serialize(const Msg& m) {
  std::string out;
  if (!m.SerializeToString(&out)) throw CodecError("protobuf serialization failed");
  return out;
}

}  // namespace

const char* to_string(Encoding e) {
  switch (e) {
    case Encoding::Native:
      return "native";
    case Encoding::Protobuf:
      return "protobuf";
    case Encoding::ProtobufZlib:
      return "protobuf+zlib";
  }
  return "?";
}

std::optional<Encoding> encoding_from_string(std::string_view s) {
  for (Encoding e : {Encoding::Native, Encoding::Protobuf, Encoding::ProtobufZlib})
    if (s == to_string(e)) return e;
  return std::nullopt;
}

const std::vector<std::string>& encoding_names() {
  static const std::vector<std::string> names = {"native", "protobuf", "protobuf+zlib"};
  return names;
}

std::string zlib_compress(std::string_view raw, int level) {
  if (level < 0 || level > 9) throw CodecError("zlib level must be 0..9");
  if (raw.size() > std::numeric_limits<std::uint32_t>::max())
    throw CodecError("value too large for zlib framing");
  uLongf cap = compressBound(static_cast<uLong>(raw.size()));
  std::string out(4 + cap, '\0');
  const auto n = static_cast<std::uint32_t>(raw.size());
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  int rc =
      compress2(reinterpret_cast<Bytef*>(out.data() + 4), &cap,
                reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()), level);
  if (rc != Z_OK) throw CodecError("zlib compress2 failed (" + std::to_string(rc) + ")");
  out.resize(4 + cap);
  return out;
}

std::string zlib_decompress(std::string_view packed) {
  if (packed.size() < 4) throw CodecError("zlib value shorter than its size prefix");
  std::uint32_t n = 0;
  for (int i = 0; i < 4; ++i)
    n |= static_cast<std::uint32_t>(static_cast<unsigned char>(packed[i])) << (8 * i);
  if (n > (1U << 30)) throw CodecError("zlib value claims more than 1 GiB uncompressed");
  std::string out(n, '\0');
  uLongf len = n;
  int rc = uncompress(reinterpret_cast<Bytef*>(out.data()), &len,
                      reinterpret_cast<const Bytef*>(packed.data() + 4),
                      static_cast<uLong>(packed.size() - 4));
  if (rc != Z_OK || len != n)
    throw CodecError("zlib uncompress failed (" + std::to_string(rc) + ")");
  return out;
}

std::string Codec::encode(const Document& d) const {
  if (encoding == Encoding::Native) return to_json(d).dump();
  pb::Document m;
  to_pb(d, m);
  std::string bytes = serialize(m);
  return encoding == Encoding::Protobuf ? bytes : zlib_compress(bytes, zlib_level);
}

std::string Codec::encode(const Comment& c) const {
  if (encoding == Encoding::Native) return to_json(c).dump();
  pb::Comment m;
  to_pb(c, m);
  std::string bytes = serialize(m);
  return encoding == Encoding::Protobuf ? bytes : zlib_compress(bytes, zlib_level);
}

std::string Codec::encode(const CommentList& l) const {
  if (encoding == Encoding::Native) {
    json arr = json::array();
    for (const auto& c : l.comments) arr.push_back(to_json(c));
    return json{{"group_id", l.group_id}, {"comments", std::move(arr)}}.dump();
  }
  pb::CommentList m;
  m.set_group_id(l.group_id);
  m.mutable_comments()->Reserve(static_cast<int>(l.comments.size()));
  for (const auto& c : l.comments) to_pb(c, *m.add_comments());
  std::string bytes = serialize(m);
  return encoding == Encoding::Protobuf ? bytes : zlib_compress(bytes, zlib_level);
}

Document Codec::decode_document(std::string_view bytes) const {
  if (encoding == Encoding::Native) {
    json j = parse_json(bytes);
    return from_json_checked([&] { return document_from_json(j); });
  }
  pb::Document m;
  if (encoding == Encoding::Protobuf) {
    parse_pb(m, bytes);
  } else {
    parse_pb(m, zlib_decompress(bytes));
  }
  return from_pb(m);
}

Comment Codec::decode_comment(std::string_view bytes) const {
  if (encoding == Encoding::Native) {
    json j = parse_json(bytes);
    return from_json_checked([&] { return comment_from_json(j); });
  }
  pb::Comment m;
  if (encoding == Encoding::Protobuf) {
    parse_pb(m, bytes);
  } else {
    parse_pb(m, zlib_decompress(bytes));
  }
  return from_pb(m);
}

CommentList Codec::decode_list(std::string_view bytes) const {
  CommentList l;
  if (encoding == Encoding::Native) {
    json j = parse_json(bytes);
    return from_json_checked([&] {
      l.group_id = j.at("group_id").get<std::int64_t>();
      const json& arr = j.at("comments");
      if (!arr.is_array()) throw CodecError("JSON list: 'comments' is not an array");
      l.comments.reserve(arr.size());
      for (const auto& c : arr) l.comments.push_back(comment_from_json(c));
      return l;
    });
  }
  pb::CommentList m;
  if (encoding == Encoding::Protobuf) {
    parse_pb(m, bytes);
  } else {
    parse_pb(m, zlib_decompress(bytes));
  }
  l.group_id = m.group_id();
  l.comments.reserve(static_cast<std::size_t>(m.comments_size()));
  for (auto& c : *m.mutable_comments()) l.comments.push_back(from_pb(c));
  return l;
}

}  // namespace perflab::caching
