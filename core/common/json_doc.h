#pragma once
// A small, fast JSON reader for run files: one pass over the text into a flat, read-only
// document (members and elements in vectors, strings as views into the text unless they hold
// escapes, numbers parsed with std::from_chars). It reads what nlohmann::json::parse reads —
// strict RFC 8259 JSON, UTF-8 checked, a leading byte-order mark skipped — and gives numbers
// the same kinds (unsigned / signed whole numbers when they fit 64 bits, else floating point;
// a number beyond double's range is refused, as nlohmann does). Objects keep every member in
// the order written; find() takes the last of duplicate keys, as nlohmann does.
// A run file never nests deeper than a few levels: more than kMaxDepth is refused.
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace perflab::json_doc {

// Not JSON: the message names the line and column ("line 3, column 14: ...").
class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Kind : std::uint8_t { Null, Boolean, Unsigned, Integer, Float, String, Array, Object };

inline constexpr std::size_t kMaxDepth = 512;

class Document;

// One value of a Document (valid while the Document and its text live).
class Value {
 public:
  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::Null; }
  bool is_boolean() const { return kind_ == Kind::Boolean; }
  bool is_string() const { return kind_ == Kind::String; }
  bool is_array() const { return kind_ == Kind::Array; }
  bool is_object() const { return kind_ == Kind::Object; }
  bool is_number() const {
    return kind_ == Kind::Unsigned || kind_ == Kind::Integer || kind_ == Kind::Float;
  }
  bool is_number_integer() const { return kind_ == Kind::Unsigned || kind_ == Kind::Integer; }
  bool is_number_unsigned() const { return kind_ == Kind::Unsigned; }
  bool is_number_float() const { return kind_ == Kind::Float; }

  bool boolean() const { return u_ != 0; }
  // The number as each type (a conversion like static_cast for the other kinds).
  double as_double() const;
  std::int64_t as_int64() const;
  std::uint64_t as_uint64() const;

 private:
  friend class Document;
  friend class Parser;
  Kind kind_ = Kind::Null;
  bool key_decoded_ = false;  // the key is in the document's buffer of unescaped strings
  bool str_decoded_ = false;  // the string value is
  std::uint32_t key_off_ = 0, key_len_ = 0;
  struct Span {
    std::uint32_t off, len;  // a string: where it is; an array or object: its children
  };
  union {
    double f_;
    std::int64_t i_;
    std::uint64_t u_ = 0;
    Span span_;
  };
};

class Document {
 public:
  // Reads the whole text; throws ParseError. The text must outlive the document.
  static Document parse(std::string_view text);

  const Value& root() const { return root_; }
  std::string_view string(const Value& v) const;    // a string value's text (unescaped)
  std::string_view key(const Value& member) const;  // an object member's name (unescaped)
  // An array's elements or an object's members (in the order written).
  std::span<const Value> children(const Value& v) const;
  // The member named key of an object (the last one of that name), or nullptr.
  const Value* find(const Value& object, std::string_view key) const;
  // The value written as compact JSON, the way nlohmann::json::dump() writes it (objects by
  // sorted key, the last of duplicate keys): for messages that show a wrong value.
  std::string dump(const Value& v) const;

 private:
  friend class Parser;
  std::string_view text_;
  std::string unescaped_;     // strings and keys that had escapes, unescaped
  std::vector<Value> nodes_;  // children of every array and object, each contiguous
  Value root_;
};

// nlohmann's name of a value's type: "null", "boolean", "number", "string", "array", "object".
const char* type_name(Kind kind);

}  // namespace perflab::json_doc
