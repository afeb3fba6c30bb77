#pragma once
// Encodings of the caching records: the tier's natural form, JSON, protobuf, protobuf + zlib.
//
// `native` in a remote tier (a Redis value) is MessagePack (msgpack-cxx): C++'s counterpart of
// the article's pickled value, a self-describing binary form chosen by measurement
// (docs/caching.md, perflab-codec-bench); in PostgreSQL it is typed columns (no codec), in local
// memory the ready object itself (no encoding at all). `json` is JSON text, written by
// nlohmann::json and read by simdjson's On-Demand API straight into the structs.
// `protobuf+zlib` is the protobuf bytes compressed with zlib's compress2 at the chosen level,
// preceded by the uncompressed size as 4 little-endian bytes (uncompress needs it).
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "caching/records.h"

namespace perflab::caching {

enum class Encoding { Native, Json, Protobuf, ProtobufZlib };

const char* to_string(Encoding e);  // "native", "json", "protobuf", "protobuf+zlib"
std::optional<Encoding> encoding_from_string(std::string_view s);
const std::vector<std::string>& encoding_names();
// Every encoding, in the order of encoding_names().
const std::vector<Encoding>& all_encodings();

// Malformed input for a decoder.
class CodecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Codec {
  Encoding encoding = Encoding::Native;
  int zlib_level = 6;  // 0..9, for ProtobufZlib

  std::string encode(const Document& d) const;
  std::string encode(const Comment& c) const;
  std::string encode(const CommentList& l) const;
  std::string encode(const QueryResult& r) const;
  // Throw CodecError on malformed input.
  Document decode_document(std::string_view bytes) const;
  Comment decode_comment(std::string_view bytes) const;
  CommentList decode_list(std::string_view bytes) const;
  QueryResult decode_result(std::string_view bytes) const;
};

// zlib helpers with the size prefix described above; throw CodecError on failure.
std::string zlib_compress(std::string_view raw, int level);
std::string zlib_decompress(std::string_view packed);

}  // namespace perflab::caching
