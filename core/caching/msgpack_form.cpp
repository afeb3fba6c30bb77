// The records as MessagePack (msgpack-cxx, without Boost): each record an array of its fields,
// read with zero-copy strings (the object points into the input) and converted into the structs.
// Before it unpacks, every count the input may claim is bounded by the input's size, so that a
// short malformed value cannot make the unpacker reserve room for billions of elements.
#include <msgpack.hpp>  // MSGPACK_NO_BOOST: the build defines it

#include <cstdint>
#include <sstream>

#include "caching/codec.h"
#include "caching/codec_forms.h"

namespace perflab::caching::forms {

namespace {

// Strings and binaries stay in the input while the object is converted: one copy, into the
// struct, instead of two.
bool reference_all(msgpack::type::object_type, std::size_t, void*) {
  return true;
}

// A packer into a string (msgpack's packer takes any buffer with write()).
struct StringBuffer {
  std::string out;
  void write(const char* data, std::size_t n) { out.append(data, n); }
};

[[noreturn]] void refuse_msgpack(const std::string& why) {
  throw CodecError("MessagePack does not describe the record: " + why);
}

const msgpack::object* fields(const msgpack::object& o, std::uint32_t n, const char* what) {
  if (o.type != msgpack::type::ARRAY || o.via.array.size != n)
    refuse_msgpack(std::string("a ") + what + " is not an array of " + std::to_string(n) +
                   " fields");
  return o.via.array.ptr;
}

void read(const msgpack::object& o, std::string& s) {
  if (o.type != msgpack::type::STR) refuse_msgpack("a text field is not a string");
  s.assign(o.via.str.ptr, o.via.str.size);
}

template <class Int>
void read(const msgpack::object& o, Int& v) {
  o.convert(v);  // throws msgpack::type_error when out of range or not an integer
}

void read(const msgpack::object& o, bool& b) {
  if (o.type != msgpack::type::BOOLEAN) refuse_msgpack("a flag is not a boolean");
  b = o.via.boolean;
}

Document to_document(const msgpack::object& o) {
  const msgpack::object* f = fields(o, 5, "document");
  Document d;
  read(f[0], d.key);
  read(f[1], d.title);
  read(f[2], d.author);
  read(f[3], d.created_at_ms);
  read(f[4], d.body);
  return d;
}

Comment to_comment(const msgpack::object& o) {
  const msgpack::object* f = fields(o, 7, "comment");
  Comment c;
  read(f[0], c.id);
  read(f[1], c.group_id);
  read(f[2], c.author);
  read(f[3], c.created_at_ms);
  read(f[4], c.body);
  read(f[5], c.score);
  read(f[6], c.approved);
  return c;
}

CommentList to_list(const msgpack::object& o) {
  const msgpack::object* f = fields(o, 2, "list");
  CommentList l;
  read(f[0], l.group_id);
  if (f[1].type != msgpack::type::ARRAY) refuse_msgpack("a list's comments are not an array");
  l.comments.reserve(f[1].via.array.size);
  for (std::uint32_t i = 0; i < f[1].via.array.size; ++i)
    l.comments.push_back(to_comment(f[1].via.array.ptr[i]));
  return l;
}

QueryResult to_result(const msgpack::object& o) {
  const msgpack::object* f = fields(o, 3, "query result");
  QueryResult r;
  read(f[0], r.key);
  if (f[1].type != msgpack::type::ARRAY)
    refuse_msgpack("a query result's columns are not an array");
  r.columns.resize(f[1].via.array.size);
  for (std::uint32_t i = 0; i < f[1].via.array.size; ++i) read(f[1].via.array.ptr[i], r.columns[i]);
  if (f[2].type != msgpack::type::ARRAY) refuse_msgpack("a query result's rows are not an array");
  r.rows.reserve(f[2].via.array.size);
  for (std::uint32_t i = 0; i < f[2].via.array.size; ++i) {
    const msgpack::object* v =
        fields(f[2].via.array.ptr[i], static_cast<std::uint32_t>(r.columns.size()), "row");
    auto& row = r.rows.emplace_back(r.columns.size());
    for (std::size_t c = 0; c < r.columns.size(); ++c)
      if (v[c].type != msgpack::type::NIL) read(v[c], row[c].emplace());
  }
  return r;
}

template <class Convert>
auto unpack(std::string_view bytes, Convert convert) {
  // Each element, key, string or binary takes at least one byte of the input.
  const std::size_t n = bytes.size();
  const msgpack::unpack_limit limit(n, n, n, n, n, 64);
  try {
    std::size_t offset = 0;
    msgpack::object_handle h =
        msgpack::unpack(bytes.data(), n, offset, reference_all, nullptr, limit);
    if (offset != n) refuse_msgpack("bytes follow the record");
    return convert(h.get());
  } catch (const msgpack::unpack_error& e) {
    throw CodecError(std::string("malformed MessagePack: ") + e.what());
  } catch (const msgpack::type_error& e) {
    throw CodecError(std::string("MessagePack does not describe the record: ") + e.what());
  }
}

void pack(msgpack::packer<StringBuffer>& p, const Comment& c) {
  p.pack_array(7);
  p.pack(c.id);
  p.pack(c.group_id);
  p.pack(c.author);
  p.pack(c.created_at_ms);
  p.pack(c.body);
  p.pack(c.score);
  p.pack(c.approved);
}

}  // namespace

std::string msgpack_encode(const Document& d) {
  StringBuffer b;
  msgpack::packer<StringBuffer> p(b);
  p.pack_array(5);
  p.pack(d.key);
  p.pack(d.title);
  p.pack(d.author);
  p.pack(d.created_at_ms);
  p.pack(d.body);
  return std::move(b.out);
}

std::string msgpack_encode(const Comment& c) {
  StringBuffer b;
  msgpack::packer<StringBuffer> p(b);
  pack(p, c);
  return std::move(b.out);
}

std::string msgpack_encode(const CommentList& l) {
  StringBuffer b;
  msgpack::packer<StringBuffer> p(b);
  p.pack_array(2);
  p.pack(l.group_id);
  p.pack_array(static_cast<std::uint32_t>(l.comments.size()));
  for (const auto& c : l.comments) pack(p, c);
  return std::move(b.out);
}

std::string msgpack_encode(const QueryResult& r) {
  StringBuffer b;
  msgpack::packer<StringBuffer> p(b);
  p.pack_array(3);
  p.pack(r.key);
  p.pack(r.columns);
  p.pack_array(static_cast<std::uint32_t>(r.rows.size()));
  for (const auto& row : r.rows) {
    p.pack_array(static_cast<std::uint32_t>(row.size()));
    for (const auto& v : row) {
      if (v) {
        p.pack(*v);
      } else {
        p.pack_nil();
      }
    }
  }
  return std::move(b.out);
}

Document msgpack_decode_document(std::string_view bytes) {
  return unpack(bytes, to_document);
}
Comment msgpack_decode_comment(std::string_view bytes) {
  return unpack(bytes, to_comment);
}
CommentList msgpack_decode_list(std::string_view bytes) {
  return unpack(bytes, to_list);
}

QueryResult msgpack_decode_result(std::string_view bytes) {
  return unpack(bytes, to_result);
}

}  // namespace perflab::caching::forms
