#include "caching/codec.h"

#include <zlib.h>

#include <cstdint>
#include <limits>

#include "caching/codec_forms.h"
#include "records.pb.h"

namespace perflab::caching {

namespace {

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

void to_pb(const QueryResult& r, pb::QueryResult& m) {
  m.set_key(r.key);
  m.mutable_columns()->Reserve(static_cast<int>(r.columns.size()));
  for (const auto& c : r.columns) m.add_columns(c);
  m.mutable_rows()->Reserve(static_cast<int>(r.rows.size()));
  for (const auto& row : r.rows) {
    pb::QueryRow& out = *m.add_rows();
    out.mutable_values()->Reserve(static_cast<int>(row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (row[i]) {
        out.add_values(*row[i]);
      } else {
        out.add_values();
        out.add_nulls(static_cast<std::uint32_t>(i));
      }
    }
  }
}

QueryResult from_pb(pb::QueryResult& m) {
  QueryResult r;
  r.key = std::move(*m.mutable_key());
  r.columns.reserve(static_cast<std::size_t>(m.columns_size()));
  for (auto& c : *m.mutable_columns()) r.columns.push_back(std::move(c));
  r.rows.reserve(static_cast<std::size_t>(m.rows_size()));
  for (auto& in : *m.mutable_rows()) {
    if (static_cast<std::size_t>(in.values_size()) != r.columns.size())
      throw CodecError("a query row's values do not match its columns");
    auto& row = r.rows.emplace_back();
    row.reserve(r.columns.size());
    for (auto& v : *in.mutable_values()) row.emplace_back(std::move(v));
    for (std::uint32_t i : in.nulls()) {
      if (i >= row.size()) throw CodecError("a query row's null is past its columns");
      row[i].reset();
    }
  }
  return r;
}

template <class Msg>
void parse_pb(Msg& m, std::string_view bytes) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
      !m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw CodecError(std::string("malformed protobuf ") + Msg::descriptor()->name());
}

// Parses protobuf bytes, inflated first for protobuf+zlib.
template <class Msg>
void parse_encoded(Msg& m, Encoding e, std::string_view bytes) {
  if (e == Encoding::Protobuf) {
    parse_pb(m, bytes);
  } else {
    parse_pb(m, zlib_decompress(bytes));
  }
}

template <class Msg>
std::string serialize(const Msg& m) {
  std::string out;
  if (!m.SerializeToString(&out)) throw CodecError("protobuf serialization failed");
  return out;
}

// The protobuf bytes of `m`, compressed for protobuf+zlib.
template <class Msg>
std::string encoded(const Msg& m, const Codec& c) {
  std::string bytes = serialize(m);
  return c.encoding == Encoding::Protobuf ? bytes : zlib_compress(bytes, c.zlib_level);
}

}  // namespace

const char* to_string(Encoding e) {
  switch (e) {
    case Encoding::Native:
      return "native";
    case Encoding::Json:
      return "json";
    case Encoding::Protobuf:
      return "protobuf";
    case Encoding::ProtobufZlib:
      return "protobuf+zlib";
  }
  return "?";
}

std::optional<Encoding> encoding_from_string(std::string_view s) {
  for (Encoding e : all_encodings())
    if (s == to_string(e)) return e;
  return std::nullopt;
}

const std::vector<Encoding>& all_encodings() {
  static const std::vector<Encoding> all = {Encoding::Native, Encoding::Json, Encoding::Protobuf,
                                            Encoding::ProtobufZlib};
  return all;
}

const std::vector<std::string>& encoding_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (Encoding e : all_encodings()) v.emplace_back(to_string(e));
    return v;
  }();
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
  if (encoding == Encoding::Native) return forms::msgpack_encode(d);
  if (encoding == Encoding::Json) return forms::json_encode(d);
  pb::Document m;
  to_pb(d, m);
  return encoded(m, *this);
}

std::string Codec::encode(const Comment& c) const {
  if (encoding == Encoding::Native) return forms::msgpack_encode(c);
  if (encoding == Encoding::Json) return forms::json_encode(c);
  pb::Comment m;
  to_pb(c, m);
  return encoded(m, *this);
}

std::string Codec::encode(const CommentList& l) const {
  if (encoding == Encoding::Native) return forms::msgpack_encode(l);
  if (encoding == Encoding::Json) return forms::json_encode(l);
  pb::CommentList m;
  m.set_group_id(l.group_id);
  m.mutable_comments()->Reserve(static_cast<int>(l.comments.size()));
  for (const auto& c : l.comments) to_pb(c, *m.add_comments());
  return encoded(m, *this);
}

std::string Codec::encode(const QueryResult& r) const {
  if (encoding == Encoding::Native) return forms::msgpack_encode(r);
  if (encoding == Encoding::Json) return forms::json_encode(r);
  pb::QueryResult m;
  to_pb(r, m);
  return encoded(m, *this);
}

Document Codec::decode_document(std::string_view bytes) const {
  if (encoding == Encoding::Native) return forms::msgpack_decode_document(bytes);
  if (encoding == Encoding::Json) return forms::json_decode_document(bytes);
  pb::Document m;
  parse_encoded(m, encoding, bytes);
  return from_pb(m);
}

Comment Codec::decode_comment(std::string_view bytes) const {
  if (encoding == Encoding::Native) return forms::msgpack_decode_comment(bytes);
  if (encoding == Encoding::Json) return forms::json_decode_comment(bytes);
  pb::Comment m;
  parse_encoded(m, encoding, bytes);
  return from_pb(m);
}

CommentList Codec::decode_list(std::string_view bytes) const {
  if (encoding == Encoding::Native) return forms::msgpack_decode_list(bytes);
  if (encoding == Encoding::Json) return forms::json_decode_list(bytes);
  CommentList l;
  pb::CommentList m;
  parse_encoded(m, encoding, bytes);
  l.group_id = m.group_id();
  l.comments.reserve(static_cast<std::size_t>(m.comments_size()));
  for (auto& c : *m.mutable_comments()) l.comments.push_back(from_pb(c));
  return l;
}

QueryResult Codec::decode_result(std::string_view bytes) const {
  if (encoding == Encoding::Native) return forms::msgpack_decode_result(bytes);
  if (encoding == Encoding::Json) return forms::json_decode_result(bytes);
  pb::QueryResult m;
  parse_encoded(m, encoding, bytes);
  return from_pb(m);
}

}  // namespace perflab::caching
