#include "common/params.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "common/text.h"

namespace perflab {

const char* to_string(ParamType t) {
  switch (t) {
    case ParamType::Int:
      return "int";
    case ParamType::Double:
      return "double";
    case ParamType::Bool:
      return "bool";
    case ParamType::String:
      return "string";
    case ParamType::OneOf:
      return "one-of";
    case ParamType::SubsetOf:
      return "subset-of";
    case ParamType::IntList:
      return "int-list";
  }
  return "?";
}

std::string format_bound(double v) {
  if (std::isfinite(v) && v == std::trunc(v) && std::abs(v) < 9.2e18)
    return std::to_string(static_cast<long long>(v));
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

namespace {

constexpr double kNoBound = 9007199254740992.0;  // 2^53

struct UnitSuffix {
  const char* suffix;
  const char* unit;
};
constexpr UnitSuffix kUnitSuffixes[] = {{"_ms", "ms"}, {"_us", "µs"}, {"_kb", "KB"}, {"_mb", "MB"}};

}  // namespace

std::string param_unit(const ParamSpec& spec) {
  if (!spec.unit.empty()) return spec.unit;
  for (const auto& u : kUnitSuffixes)
    if (spec.name.ends_with(u.suffix)) return u.unit;
  return {};
}

std::string param_label(const ParamSpec& spec) {
  if (!spec.label.empty()) return spec.label;
  std::string name = spec.name;
  for (const auto& u : kUnitSuffixes)
    if (name.ends_with(u.suffix) && name.size() > std::string_view(u.suffix).size())
      name.resize(name.size() - std::string_view(u.suffix).size());
  static const char* kAcronyms[] = {"cpu", "lru", "tcp", "id"};
  std::string out;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('_', start);
    if (end == std::string::npos) end = name.size();
    std::string word = name.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    bool acronym = false;
    for (const char* a : kAcronyms) acronym |= word == a;
    if (!out.empty()) out += ' ';
    out += acronym ? to_upper(word) : word;
  }
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

std::string param_range_text(const ParamSpec& spec) {
  const auto min = spec.min && *spec.min > -kNoBound ? spec.min : std::nullopt;
  const auto max = spec.max && *spec.max < kNoBound ? spec.max : std::nullopt;
  if (min && max) return format_bound(*min) + ".." + format_bound(*max);
  if (min) return ">= " + format_bound(*min);
  if (max) return "<= " + format_bound(*max);
  return {};
}

std::string describe_param(const ParamSpec& spec) {
  const std::string range = param_range_text(spec);
  switch (spec.type) {
    case ParamType::OneOf:
      return "one of: " + join(spec.choices, " | ");
    case ParamType::SubsetOf:
      return "subset of: " + join(spec.choices, ", ");
    case ParamType::IntList:
      return range.empty() ? "int-list" : "int-list, each " + range;
    default:
      return range.empty() ? to_string(spec.type)
                           : std::string(to_string(spec.type)) + ", " + range;
  }
}

namespace {

[[noreturn]] void fail(const ParamSpec& spec, const std::string& why) {
  throw ParamError("parameter '" + spec.name + "': " + why);
}

void check_range(const ParamSpec& spec, double v, const std::string& text) {
  if ((spec.min && v < *spec.min) || (spec.max && v > *spec.max)) {
    std::string range = "[";
    range += spec.min ? format_bound(*spec.min) : "-inf";
    range += ", ";
    range += spec.max ? format_bound(*spec.max) : "inf";
    range += ']';
    fail(spec, text + " is outside " + range);
  }
}

std::int64_t parse_int(const ParamSpec& spec, const std::string& text) {
  std::int64_t v = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e || text.empty())
    fail(spec, "'" + text + "' is not a whole number");
  check_range(spec, static_cast<double>(v), text);
  return v;
}

// The spec's spelling of one choice, matched without regard to case.
const std::string& match_choice(const ParamSpec& spec, const std::string& item) {
  const std::string want = to_lower(item);
  for (const auto& c : spec.choices)
    if (to_lower(c) == want) return c;
  if (item.empty()) fail(spec, "empty choice (one of: " + join(spec.choices, ", ") + ")");
  fail(spec, "'" + item + "' is not one of: " + join(spec.choices, ", "));
}

}  // namespace

std::string validate_param(const ParamSpec& spec, const std::string& raw) {
  const std::string text = trim(raw);
  switch (spec.type) {
    case ParamType::Int:
      return std::to_string(parse_int(spec, text));
    case ParamType::Double: {
      double v = 0;
      std::size_t used = 0;
      try {
        v = std::stod(text, &used);
      } catch (...) {
        used = 0;
      }
      if (text.empty() || used != text.size() || !std::isfinite(v))
        fail(spec, "'" + text + "' is not a number");
      check_range(spec, v, text);
      std::ostringstream o;
      o.precision(17);
      o << v;
      return o.str();
    }
    case ParamType::Bool: {
      const std::string t = to_lower(text);
      if (t == "1" || t == "true" || t == "yes" || t == "on") return "true";
      if (t == "0" || t == "false" || t == "no" || t == "off") return "false";
      fail(spec, "'" + text + "' is not true or false");
    }
    case ParamType::String:
      return text;
    case ParamType::OneOf:
      if (text.find(',') != std::string::npos)
        fail(spec, "'" + text + "': give one of: " + join(spec.choices, ", "));
      return match_choice(spec, text);
    case ParamType::SubsetOf: {
      std::vector<std::string> picked;
      for (const auto& item : split_commas(text)) {
        const std::string& c = match_choice(spec, item);
        if (std::find(picked.begin(), picked.end(), c) == picked.end()) picked.push_back(c);
      }
      if (picked.empty()) fail(spec, "give at least one of: " + join(spec.choices, ", "));
      return join(picked);
    }
    case ParamType::IntList: {
      std::vector<std::string> out;
      for (const auto& item : split_commas(text))
        out.push_back(std::to_string(parse_int(spec, item)));
      if (out.empty()) fail(spec, "empty list");
      return join(out);
    }
  }
  fail(spec, "unknown type");
}

Params Params::resolve(const std::vector<ParamSpec>& specs,
                       const std::map<std::string, std::string>& overrides) {
  Params p;
  for (const auto& s : specs) {
    p.values_[s.name] = validate_param(s, s.default_value);
    p.types_[s.name] = s.type;
  }
  for (const auto& [name, text] : overrides)
    p.values_[name] = validate_param(find_param(specs, name), text);
  return p;
}

const ParamSpec& find_param(const std::vector<ParamSpec>& specs, const std::string& name) {
  auto it =
      std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == name; });
  if (it != specs.end()) return *it;
  for (const auto& s : specs)
    if (std::find(s.former_names.begin(), s.former_names.end(), name) != s.former_names.end())
      throw ParamError("unknown parameter '" + name + "': it is called '" + s.name + "' now");
  std::vector<std::string> known;
  for (const auto& s : specs) known.push_back(s.name);
  throw ParamError("unknown parameter '" + name + "' (known: " + join(known, ", ") + ")");
}

std::map<std::string, std::string> with_current_names(
    const std::vector<ParamSpec>& specs, const std::map<std::string, std::string>& values) {
  std::map<std::string, std::string> out;
  for (const auto& [name, text] : values) {
    const auto renamed = std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& s) {
      return std::find(s.former_names.begin(), s.former_names.end(), name) != s.former_names.end();
    });
    if (renamed == specs.end())
      out[name] = text;  // today's name wins over a former one
    else
      out.emplace(renamed->name, text);
  }
  return out;
}

const std::string& Params::value(const std::string& name, ParamType want) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw ParamError("no parameter '" + name + "'");
  const ParamType have = types_.at(name);
  if (have != want)
    throw ParamError("parameter '" + name + "' is " + to_string(have) + ", not " + to_string(want));
  return it->second;
}

std::int64_t Params::get_int(const std::string& name) const {
  return std::stoll(value(name, ParamType::Int));
}
double Params::get_double(const std::string& name) const {
  return std::stod(value(name, ParamType::Double));
}
bool Params::get_bool(const std::string& name) const {
  return value(name, ParamType::Bool) == "true";
}
const std::string& Params::get_string(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw ParamError("no parameter '" + name + "'");
  return it->second;
}
const std::string& Params::get_choice(const std::string& name) const {
  return value(name, ParamType::OneOf);
}
std::vector<std::string> Params::get_subset(const std::string& name) const {
  return split_commas(value(name, ParamType::SubsetOf));
}
std::vector<std::int64_t> Params::get_int_list(const std::string& name) const {
  std::vector<std::int64_t> out;
  for (const auto& item : split_commas(value(name, ParamType::IntList)))
    out.push_back(std::stoll(item));
  return out;
}

}  // namespace perflab
