#include "common/json_doc.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

namespace perflab::json_doc {

double Value::as_double() const {
  switch (kind_) {
    case Kind::Unsigned:
      return static_cast<double>(u_);
    case Kind::Integer:
      return static_cast<double>(i_);
    case Kind::Float:
      return f_;
    default:
      return 0;
  }
}

std::int64_t Value::as_int64() const {
  switch (kind_) {
    case Kind::Unsigned:
      return static_cast<std::int64_t>(u_);
    case Kind::Integer:
      return i_;
    case Kind::Float:  // only in range: beyond it a cast is undefined
      return f_ >= -0x1p63 && f_ < 0x1p63 ? static_cast<std::int64_t>(f_) : 0;
    default:
      return 0;
  }
}

std::uint64_t Value::as_uint64() const {
  switch (kind_) {
    case Kind::Unsigned:
      return u_;
    case Kind::Integer:
      return static_cast<std::uint64_t>(i_);
    case Kind::Float:
      return f_ >= 0 && f_ < 0x1p64 ? static_cast<std::uint64_t>(f_) : 0;
    default:
      return 0;
  }
}

const char* type_name(Kind kind) {
  switch (kind) {
    case Kind::Null:
      return "null";
    case Kind::Boolean:
      return "boolean";
    case Kind::Unsigned:
    case Kind::Integer:
    case Kind::Float:
      return "number";
    case Kind::String:
      return "string";
    case Kind::Array:
      return "array";
    case Kind::Object:
      return "object";
  }
  return "null";
}

std::string_view Document::string(const Value& v) const {
  if (v.kind_ != Kind::String) return {};
  const std::string_view from = v.str_decoded_ ? std::string_view(unescaped_) : text_;
  return from.substr(v.span_.off, v.span_.len);
}

std::string_view Document::key(const Value& member) const {
  const std::string_view from = member.key_decoded_ ? std::string_view(unescaped_) : text_;
  return from.substr(member.key_off_, member.key_len_);
}

std::span<const Value> Document::children(const Value& v) const {
  if (v.kind_ != Kind::Array && v.kind_ != Kind::Object) return {};
  return std::span<const Value>(nodes_).subspan(v.span_.off, v.span_.len);
}

const Value* Document::find(const Value& object, std::string_view name) const {
  const auto members = children(object);
  if (object.kind_ != Kind::Object) return nullptr;
  for (auto it = members.rbegin(); it != members.rend(); ++it)
    if (it->key_len_ == name.size() &&
        std::memcmp((it->key_decoded_ ? unescaped_.data() : text_.data()) + it->key_off_,
                    name.data(), name.size()) == 0)
      return &*it;
  return nullptr;
}

namespace {
nlohmann::json to_nlohmann(const Document& doc, const Value& v) {
  switch (v.kind()) {
    case Kind::Null:
      return nullptr;
    case Kind::Boolean:
      return v.boolean();
    case Kind::Unsigned:
      return v.as_uint64();
    case Kind::Integer:
      return v.as_int64();
    case Kind::Float:
      return v.as_double();
    case Kind::String:
      return std::string(doc.string(v));
    case Kind::Array: {
      nlohmann::json a = nlohmann::json::array();
      for (const Value& e : doc.children(v)) a.push_back(to_nlohmann(doc, e));
      return a;
    }
    case Kind::Object: {
      nlohmann::json o = nlohmann::json::object();
      for (const Value& m : doc.children(v)) o[std::string(doc.key(m))] = to_nlohmann(doc, m);
      return o;
    }
  }
  return nullptr;
}
}  // namespace

std::string Document::dump(const Value& v) const {
  return to_nlohmann(*this, v).dump();
}

// One pass over the text, without recursion: the members and elements of the arrays and
// objects still open wait on a stack and move into the document's nodes when their container
// closes (so each container's children are contiguous).
class Parser {
 public:
  explicit Parser(std::string_view text)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()) {
    doc_.text_ = text;
  }

  Document run() {
    if (static_cast<std::uint64_t>(end_ - begin_) >= std::numeric_limits<std::uint32_t>::max())
      throw ParseError("the text is larger than 4 GiB");
    // About one value per 20 bytes in an indented run file: mostly one growth-free vector.
    doc_.nodes_.reserve(static_cast<std::size_t>(end_ - begin_) / 20);
    if (end_ - p_ >= 3 && std::string_view(p_, 3) == "\xEF\xBB\xBF") p_ += 3;  // a BOM
    for (;;) {
      Value v;
      if (!open_or_scalar(v)) continue;  // a container opened: its first value is next
      // A value is complete: it goes into its container, or it is the document.
      for (;;) {
        if (frames_.empty()) {
          skip_space();
          if (p_ != end_) fail("unexpected text after the JSON value");
          doc_.root_ = v;
          return std::move(doc_);
        }
        Frame& f = frames_.back();
        if (f.object) {
          v.key_off_ = f.key_off;
          v.key_len_ = f.key_len;
          v.key_decoded_ = f.key_decoded;
        }
        pending_.push_back(v);
        skip_space();
        const char close = f.object ? '}' : ']';
        if (p_ == end_)
          fail(std::string("unexpected end of input; expected ',' or '") + close + "'");
        if (*p_ == ',') {
          ++p_;
          if (f.object) read_key(f);
          break;  // the next member or element
        }
        if (*p_ != close)
          fail(std::string("expected ',' or '") + close + "' after " +
               (f.object ? "an object member" : "an array element") + ", got " + shown_char());
        ++p_;
        v = close_container();
      }
    }
  }

 private:
  struct Frame {
    bool object;
    std::size_t start;  // its children's first place in pending_
    std::uint32_t key_off = 0, key_len = 0;
    bool key_decoded = false;
  };

  [[noreturn]] void fail(const std::string& what) const {
    std::size_t line = 1;
    const char* line_start = begin_;
    for (const char* q = begin_; q < p_ && q < end_; ++q)
      if (*q == '\n') {
        ++line;
        line_start = q + 1;
      }
    throw ParseError("line " + std::to_string(line) + ", column " +
                     std::to_string(p_ - line_start + 1) + ": " + what);
  }

  std::string shown_char() const {
    if (p_ == end_) return "the end of input";
    const auto c = static_cast<unsigned char>(*p_);
    if (c >= 0x20 && c < 0x7F) return std::string("'") + *p_ + "'";
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02X", c);
    return std::string("byte ") + buf;
  }

  // Indented files are mostly spaces: eight at a time where they run on.
  void skip_space() {
    while (p_ != end_) {
      const char c = *p_;
      if (c == ' ') {
        std::uint64_t word;
        while (end_ - p_ >= 8 && (std::memcpy(&word, p_, 8), word == kEightSpaces)) p_ += 8;
        while (p_ != end_ && *p_ == ' ') ++p_;
      } else if (c == '\n' || c == '\r' || c == '\t') {
        ++p_;
      } else {
        return;
      }
    }
  }
  static constexpr std::uint64_t kEightSpaces = 0x2020202020202020ull;

  // Starts the value at p_: a scalar is read whole into v (true); '{' or '[' opens a container
  // (false, unless it is empty: then v is it, true).
  bool open_or_scalar(Value& v) {
    skip_space();
    if (p_ == end_) fail("unexpected end of input; expected a value");
    const char c = *p_;
    if (c == '{' || c == '[') {
      if (frames_.size() >= kMaxDepth)
        fail("nested deeper than " + std::to_string(kMaxDepth) + " levels");
      ++p_;
      frames_.push_back({c == '{', pending_.size()});
      skip_space();
      if (p_ != end_ && *p_ == (c == '{' ? '}' : ']')) {
        ++p_;
        v = close_container();
        return true;
      }
      if (c == '{') read_key(frames_.back());
      return false;
    }
    if (c == '"') {
      ++p_;
      v.kind_ = Kind::String;
      read_string(v.span_.off, v.span_.len, v.str_decoded_);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      read_number(v);
    } else if (literal("true")) {
      v.kind_ = Kind::Boolean;
      v.u_ = 1;
    } else if (literal("false")) {
      v.kind_ = Kind::Boolean;
      v.u_ = 0;
    } else if (literal("null")) {
      v.kind_ = Kind::Null;
    } else {
      fail("expected a value, got " + shown_char());
    }
    return true;
  }

  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() ||
        std::string_view(p_, word.size()) != word)
      return false;
    p_ += word.size();
    return true;
  }

  Value close_container() {
    Frame& f = frames_.back();
    Value c;
    c.kind_ = f.object ? Kind::Object : Kind::Array;
    c.span_.off = static_cast<std::uint32_t>(doc_.nodes_.size());
    c.span_.len = static_cast<std::uint32_t>(pending_.size() - f.start);
    doc_.nodes_.insert(doc_.nodes_.end(), pending_.begin() + static_cast<std::ptrdiff_t>(f.start),
                       pending_.end());
    pending_.resize(f.start);
    frames_.pop_back();
    return c;
  }

  // A member's name and the ':' after it.
  void read_key(Frame& f) {
    skip_space();
    if (p_ == end_ || *p_ != '"') fail("expected a member name in quotes, got " + shown_char());
    ++p_;
    read_string(f.key_off, f.key_len, f.key_decoded);
    skip_space();
    if (p_ == end_ || *p_ != ':') fail("expected ':' after a member name, got " + shown_char());
    ++p_;
  }

  // The string after an opening quote: a view into the text, or (with escapes) unescaped into
  // the document's buffer.
  void read_string(std::uint32_t& off, std::uint32_t& len, bool& decoded) {
    const char* start = p_;
    while (p_ != end_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        off = static_cast<std::uint32_t>(start - begin_);
        len = static_cast<std::uint32_t>(p_ - start);
        decoded = false;
        ++p_;
        return;
      }
      if (c == '\\') break;
      if (c < 0x20) control_character(c);
      if (c >= 0x80)
        utf8_sequence();
      else
        ++p_;
    }
    if (p_ == end_) fail("unexpected end of input inside a string");
    std::string& out = doc_.unescaped_;
    off = static_cast<std::uint32_t>(out.size());
    out.append(start, p_);
    while (p_ != end_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        len = static_cast<std::uint32_t>(out.size() - off);
        decoded = true;
        ++p_;
        return;
      }
      if (c == '\\') {
        escape(out);
      } else if (c < 0x20) {
        control_character(c);
      } else if (c >= 0x80) {
        const char* s = p_;
        utf8_sequence();
        out.append(s, p_);
      } else {
        out.push_back(*p_++);
      }
    }
    fail("unexpected end of input inside a string");
  }

  [[noreturn]] void control_character(unsigned char c) const {
    char buf[8];
    std::snprintf(buf, sizeof buf, "U+%04X", c);
    fail(std::string("control character ") + buf + " inside a string must be escaped");
  }

  // One UTF-8 encoded character (RFC 3629: no overlong forms, no surrogates, up to U+10FFFF).
  void utf8_sequence() {
    const auto b0 = static_cast<unsigned char>(*p_);
    int more = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      more = 1;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      more = 2;
      if (b0 == 0xE0) lo = 0xA0;
      if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      more = 3;
      if (b0 == 0xF0) lo = 0x90;
      if (b0 == 0xF4) hi = 0x8F;
    } else {
      fail("invalid UTF-8 byte " + shown_char().substr(5) + " inside a string");
    }
    const char* s = p_;
    for (int i = 1; i <= more; ++i) {
      if (s + i == end_) {
        p_ = s + i;
        fail("unexpected end of input inside a UTF-8 character");
      }
      const auto b = static_cast<unsigned char>(s[i]);
      if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF)) {
        p_ = s + i;
        fail("invalid UTF-8 sequence inside a string");
      }
    }
    p_ = s + more + 1;
  }

  unsigned hex4() {
    if (end_ - p_ < 4) {
      p_ = end_;
      fail("unexpected end of input inside a \\u escape");
    }
    unsigned v = 0;
    for (int i = 0; i < 4; ++i, ++p_) {
      const char c = *p_;
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<unsigned>(c - 'A' + 10);
      else
        fail("a \\u escape needs four hexadecimal digits, got " + shown_char());
    }
    return v;
  }

  void escape(std::string& out) {
    const char* at = p_;
    ++p_;  // the backslash
    if (p_ == end_) fail("unexpected end of input inside a string");
    const char c = *p_++;
    static constexpr std::string_view kNamed = "\"\\/bfnrt", kMeant = "\"\\/\b\f\n\r\t";
    if (const auto i = kNamed.find(c); i != std::string_view::npos) {
      out.push_back(kMeant[i]);
      return;
    }
    if (c != 'u') {
      p_ = at;
      fail(std::string("invalid escape '\\") + c + "' inside a string");
    }
    unsigned cp = hex4();
    if (cp >= 0xDC00 && cp <= 0xDFFF) {
      p_ = at;
      fail("a low surrogate \\u escape (U+DC00..U+DFFF) must follow a high one");
    }
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') {
        p_ = at;
        fail("a high surrogate \\u escape (U+D800..U+DBFF) must be followed by a low one");
      }
      p_ += 2;
      const unsigned low = hex4();
      if (low < 0xDC00 || low > 0xDFFF) {
        p_ = at;
        fail("a high surrogate \\u escape (U+D800..U+DBFF) must be followed by a low one");
      }
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  bool digit() const { return p_ != end_ && *p_ >= '0' && *p_ <= '9'; }

  // JSON's number grammar, then the value: a whole number that fits 64 bits (unsigned without
  // a sign) keeps its kind, anything else is a double. The digits are gathered while the
  // grammar is checked; a decimal with at most 19 significant digits whose value and power of
  // ten are exact doubles is computed with one correctly rounded operation (Clinger's fast
  // path), any other goes to std::from_chars.
  void read_number(Value& v) {
    const char* start = p_;
    const bool negative = *p_ == '-';
    if (negative) ++p_;
    if (!digit()) fail("invalid number: a digit must follow '-'");
    std::uint64_t mantissa = 0;
    int digits = 0;        // significant digits gathered into mantissa (at most 19)
    bool dropped = false;  // more digits than 19
    int exponent = 0;      // the power of ten mantissa is scaled by
    const auto gather = [&](bool fraction) {
      const char c = *p_++;
      if (digits == 0 && c == '0') {
        if (fraction) --exponent;
        return;
      }
      if (digits < 19) {
        mantissa = mantissa * 10 + static_cast<std::uint64_t>(c - '0');
        ++digits;
        if (fraction) --exponent;
      } else {
        dropped = true;
        if (!fraction) ++exponent;
      }
    };
    if (*p_ == '0') {
      ++p_;
    } else {
      while (digit()) gather(false);
    }
    bool whole = true;
    if (p_ != end_ && *p_ == '.') {
      ++p_;
      if (!digit()) fail("invalid number: a digit must follow '.'");
      while (digit()) gather(true);
      whole = false;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      bool minus = false;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) minus = *p_++ == '-';
      if (!digit()) fail("invalid number: a digit must follow the exponent");
      int e = 0;
      while (digit()) {
        if (e < 100000) e = e * 10 + (*p_ - '0');
        ++p_;
      }
      exponent += minus ? -e : e;
      whole = false;
    }
    if (whole && !dropped) {
      if (!negative) {
        v.kind_ = Kind::Unsigned;
        v.u_ = mantissa;
        return;
      }
      if (mantissa <= static_cast<std::uint64_t>(INT64_MAX) + 1) {
        v.kind_ = Kind::Integer;
        v.i_ = mantissa == static_cast<std::uint64_t>(INT64_MAX) + 1
                   ? INT64_MIN
                   : -static_cast<std::int64_t>(mantissa);
        return;
      }
    }
    if (whole && dropped && !negative) {  // 20 digits may still fit 64 bits
      std::uint64_t u = 0;
      if (std::from_chars(start, p_, u).ec == std::errc{}) {
        v.kind_ = Kind::Unsigned;
        v.u_ = u;
        return;
      }
    }
    v.kind_ = Kind::Float;
    static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (!dropped && mantissa <= (std::uint64_t{1} << 53) && exponent >= -22 && exponent <= 22) {
      const auto m = static_cast<double>(mantissa);
      const double d = exponent < 0 ? m / kPow10[-exponent] : m * kPow10[exponent];
      v.f_ = negative ? -d : d;
      return;
    }
    const auto r = std::from_chars(start, p_, v.f_);
    if (r.ec == std::errc::result_out_of_range)  // beyond double: ±inf or 0, as strtod gives
      v.f_ = std::strtod(std::string(start, p_).c_str(), nullptr);
    else if (r.ec != std::errc{} || r.ptr != p_)
      v.f_ = std::numeric_limits<double>::quiet_NaN();
    if (!std::isfinite(v.f_)) {  // nlohmann refuses an overflow too
      const std::string number(start, p_);
      p_ = start;
      fail("number " + number + " is beyond the range of a double");
    }
  }

  const char* begin_;
  const char* p_;
  const char* end_;
  Document doc_;
  std::vector<Frame> frames_;
  std::vector<Value> pending_;
};

Document Document::parse(std::string_view text) {
  return Parser(text).run();
}

}  // namespace perflab::json_doc
