#pragma once
// The checked reading of one run-file field: its name for refusals (Path) and each field type's
// reader (FieldReader), which refuses a wrong type or an impossible value naming the field.
#include <simdjson.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/run_io.h"

namespace perflab::run_fields {

// A value's name among those of an enum, e.g. every CiMethod's to_string().
template <class E, std::size_t N>
std::optional<E> enum_from_string(const std::string& s, const E (&all)[N]) {
  for (E e : all)
    if (s == to_string(e)) return e;
  return std::nullopt;
}

using V = simdjson::dom::element;
using simdjson::dom::element_type;

// A field's name ("series[2].points[0].samples[3]"), put together only when a refusal names
// it: reading a large run builds no strings for the fields that are fine.
class Path {
 public:
  Path() = default;  // the document itself
  Path(const Path& parent, std::string_view key) : parent_(&parent), key_(key) {}
  Path(const Path& parent, std::size_t index) : parent_(&parent), index_(index), indexed_(true) {}

  std::string str() const {
    if (!parent_) return {};
    std::string s = parent_->str();
    if (indexed_) {
      s += '[';
      s += std::to_string(index_);
      s += ']';
    } else {
      if (!s.empty()) s += '.';
      s += key_;
    }
    return s;
  }

 private:
  const Path* parent_ = nullptr;
  std::string_view key_;
  std::size_t index_ = 0;
  bool indexed_ = false;
};

// The name nlohmann::json gives a value's type, for refusals.
inline const char* type_name(const V& v) {
  switch (v.type()) {
    case element_type::ARRAY:
      return "array";
    case element_type::OBJECT:
      return "object";
    case element_type::INT64:
    case element_type::UINT64:
    case element_type::DOUBLE:
      return "number";
    case element_type::STRING:
      return "string";
    case element_type::BOOL:
      return "boolean";
    case element_type::NULL_VALUE:
      return "null";
  }
  return "null";
}

// Reads a run's JSON checking the type and range of every field; a refusal names the field
// ("series[2].points[0].samples[3]") and what is wrong with it, in one line.
class FieldReader {
 public:
  [[noreturn]] static void bad(const Path& field, const std::string& why) {
    throw RunFormatError("field \"" + field.str() + "\": " + why);
  }

  // The member named key of an object (the last of that name, as nlohmann reads duplicates).
  static std::optional<V> member(const V& obj, std::string_view key) {
    std::optional<V> found;
    simdjson::dom::object members;
    if (obj.get_object().get(members)) return found;
    for (const auto m : members)
      if (m.key == key) found = m.value;
    return found;
  }

  // The value of key, or nothing when it is absent or null (then `required` refuses it).
  static std::optional<V> find(const V& obj, const Path& parent, const char* key, bool required) {
    std::optional<V> v = member(obj, key);
    if (!v || v->is_null()) {
      if (required) bad(Path(parent, key), "missing");
      return std::nullopt;
    }
    return v;
  }

  // The value as compact JSON, for messages that show a wrong value.
  static std::string dump(const V& v) { return simdjson::to_string(v); }
  static std::string shown(const V& v) {
    std::string text = dump(v);
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return std::string(type_name(v)) + " " + text;
  }

  static const V& object(const V& v, const Path& field) {
    if (!v.is_object()) bad(field, "expected an object, got " + shown(v));
    return v;
  }
  // Calls each(element, its field) for every element of the array v.
  template <class Each>
  static void elements(const V& v, const Path& field, Each each) {
    simdjson::dom::array a;
    if (v.get_array().get(a)) bad(field, "expected an array, got " + shown(v));
    std::size_t i = 0;
    for (const V e : a) each(e, Path(field, i++));
  }
  // The same for an optional array member (nothing when it is absent).
  template <class Each>
  static void elements(const V& obj, const Path& parent, const char* key, Each each) {
    if (const auto v = find(obj, parent, key, false)) elements(*v, Path(parent, key), each);
  }
  // The number of elements of an optional array member (0 when it is absent or not an array).
  static std::size_t size(const V& obj, const char* key) {
    simdjson::dom::array a;
    const auto v = member(obj, key);
    return v && !v->get_array().get(a) ? a.size() : 0;
  }
  // An object's members the way nlohmann::json iterates them: by key, the last of duplicates.
  static std::vector<simdjson::dom::key_value_pair> members(const V& obj, const Path& field) {
    object(obj, field);
    std::vector<simdjson::dom::key_value_pair> out;
    const simdjson::dom::object all = obj.get_object().value_unsafe();
    for (const auto m : all) out.push_back(m);
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.key < b.key; });
    // Of equal keys the last written stays (stable: it is the last of its run).
    std::vector<simdjson::dom::key_value_pair> unique;
    for (std::size_t i = 0; i < out.size(); ++i)
      if (i + 1 == out.size() || out[i].key != out[i + 1].key) unique.push_back(out[i]);
    return unique;
  }

  static std::string string(const V& v, const Path& field) {
    std::string_view s;
    if (v.get_string().get(s)) bad(field, "expected a string, got " + shown(v));
    return std::string(s);
  }
  static std::string string(const V& obj, const Path& parent, const char* key, bool required,
                            const std::string& def = {}) {
    const auto v = find(obj, parent, key, required);
    return v ? string(*v, Path(parent, key)) : def;
  }

  static bool boolean(const V& obj, const Path& parent, const char* key, bool def) {
    const auto v = find(obj, parent, key, false);
    if (!v) return def;
    bool b = false;
    if (v->get_bool().get(b)) bad(Path(parent, key), "expected true or false, got " + shown(*v));
    return b;
  }

  // Every number of a run is a measurement or a figure derived from measurements (a ratio, a
  // share, a load): finite, of a magnitude no measurement comes near (kMaxMagnitude: 1e15 ns
  // is eleven days per operation, 1e15 bytes a petabyte), and never a denormal (below 1e-308,
  // which no clock, counter or ratio of them produces).
  static constexpr double kMaxMagnitude = 1e15;
  static double number(const V& v, const Path& field) {
    double d = 0;
    if (v.get_double().get(d)) bad(field, "expected a number, got " + shown(v));
    if (!std::isfinite(d)) bad(field, "is not a finite number");
    if (std::abs(d) > kMaxMagnitude)
      bad(field, dump(v) + " is beyond any measured figure (at most 1e15 either way)");
    if (std::fpclassify(d) == FP_SUBNORMAL)
      bad(field, dump(v) + " is a denormal number, below any measured figure");
    return d;
  }
  // A measured quantity (a time, a rate, a count, a size, a share): not negative either.
  static double measured(const V& v, const Path& field) {
    const double d = number(v, field);
    if (d < 0) bad(field, dump(v) + " is negative, which this quantity cannot be");
    return d;
  }
  static double measured(const V& obj, const Path& parent, const char* key, bool required) {
    const auto v = find(obj, parent, key, required);
    return v ? measured(*v, Path(parent, key)) : 0;
  }
  static std::optional<double> optional_measured(const V& obj, const Path& parent,
                                                 const char* key) {
    const auto v = find(obj, parent, key, false);
    if (!v) return std::nullopt;
    return measured(*v, Path(parent, key));
  }
  static double number(const V& obj, const Path& parent, const char* key, bool required,
                       double def = 0) {
    const auto v = find(obj, parent, key, required);
    return v ? number(*v, Path(parent, key)) : def;
  }

  // A whole number in [lo, hi]; a float is taken when it is integral and in range.
  static std::int64_t integer(const V& obj, const Path& parent, const char* key, std::int64_t lo,
                              std::int64_t hi, bool required, std::int64_t def = 0) {
    const auto v = find(obj, parent, key, required);
    if (!v) return def;
    const Path field(parent, key);
    const auto out_of_range = [&] {
      return dump(*v) + " is out of range " + std::to_string(lo) + ".." + std::to_string(hi);
    };
    if (v->type() == element_type::UINT64) bad(field, out_of_range());  // above INT64_MAX
    if (v->type() == element_type::INT64) {
      const std::int64_t i = v->get_int64().value_unsafe();
      if (i < lo || i > hi) bad(field, out_of_range());
      return i;
    }
    if (v->type() != element_type::DOUBLE) bad(field, "expected a whole number, got " + shown(*v));
    const double d = v->get_double().value_unsafe();
    if (!std::isfinite(d) || d != std::floor(d))
      bad(field, "expected a whole number, got " + dump(*v));
    // 2^63 is above every int64 (and INT64_MAX rounds up to it as a double)
    if (d < static_cast<double>(lo) || d > static_cast<double>(hi) || d >= 0x1p63)
      bad(field, out_of_range());
    return static_cast<std::int64_t>(d);
  }

  // A string member naming one of an enum's values (as its to_string() spells them).
  template <class E, std::size_t N>
  static E name_of(const V& obj, const Path& parent, const char* key, const E (&all)[N]) {
    const std::string s = string(obj, parent, key, true);
    if (auto e = enum_from_string(s, all)) return *e;
    std::string allowed;
    for (E e : all) allowed += std::string(allowed.empty() ? "" : ", ") + to_string(e);
    bad(Path(parent, key), "unknown value \"" + s + "\" (expected one of: " + allowed + ")");
  }
};

}  // namespace perflab::run_fields
