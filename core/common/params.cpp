#include "common/params.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

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
    case ParamType::Choice:
      return "choice";
    case ParamType::IntList:
      return "int-list";
  }
  return "?";
}

namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

std::string fmt_bound(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

void check_range(const ParamSpec& spec, double v, const std::string& text) {
  if ((spec.min && v < *spec.min) || (spec.max && v > *spec.max)) {
    std::string range = "[";
    range += spec.min ? fmt_bound(*spec.min) : "-inf";
    range += ", ";
    range += spec.max ? fmt_bound(*spec.max) : "inf";
    range += ']';
    throw ParamError("parameter '" + spec.name + "': " + text + " is outside " + range);
  }
}

std::int64_t parse_int(const ParamSpec& spec, const std::string& text) {
  std::int64_t v = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e || text.empty())
    throw ParamError("parameter '" + spec.name + "': '" + text + "' is not a whole number");
  check_range(spec, static_cast<double>(v), text);
  return v;
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
        throw ParamError("parameter '" + spec.name + "': '" + text + "' is not a number");
      check_range(spec, v, text);
      std::ostringstream o;
      o.precision(17);
      o << v;
      return o.str();
    }
    case ParamType::Bool: {
      std::string t = text;
      std::transform(t.begin(), t.end(), t.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      if (t == "1" || t == "true" || t == "yes" || t == "on") return "true";
      if (t == "0" || t == "false" || t == "no" || t == "off") return "false";
      throw ParamError("parameter '" + spec.name + "': '" + text + "' is not true or false");
    }
    case ParamType::String:
      return text;
    case ParamType::Choice: {
      // A choice may also be a comma-separated subset when the spec's help says so; the
      // canonical form keeps the given order. Single choices are the common case.
      std::string out;
      std::stringstream ss(text);
      std::string item;
      int count = 0;
      while (std::getline(ss, item, ',')) {
        item = trim(item);
        if (std::find(spec.choices.begin(), spec.choices.end(), item) == spec.choices.end()) {
          std::string all;
          for (const auto& c : spec.choices) all += (all.empty() ? "" : ", ") + c;
          throw ParamError("parameter '" + spec.name + "': '" + item + "' is not one of: " + all);
        }
        out += (count++ ? "," : "") + item;
      }
      if (count == 0) throw ParamError("parameter '" + spec.name + "': empty choice");
      return out;
    }
    case ParamType::IntList: {
      std::string out;
      std::stringstream ss(text);
      std::string item;
      int count = 0;
      while (std::getline(ss, item, ',')) {
        if (count++) out += ',';
        out += std::to_string(parse_int(spec, trim(item)));
      }
      if (count == 0) throw ParamError("parameter '" + spec.name + "': empty list");
      return out;
    }
  }
  throw ParamError("parameter '" + spec.name + "': unknown type");
}

Params Params::resolve(const std::vector<ParamSpec>& specs,
                       const std::map<std::string, std::string>& overrides) {
  Params p;
  for (const auto& s : specs) p.values_[s.name] = validate_param(s, s.default_value);
  for (const auto& [name, text] : overrides) {
    auto it = std::find_if(specs.begin(), specs.end(),
                           [&](const ParamSpec& s) { return s.name == name; });
    if (it == specs.end()) {
      std::string all;
      for (const auto& s : specs) all += (all.empty() ? "" : ", ") + s.name;
      throw ParamError("unknown parameter '" + name + "' (known: " + all + ")");
    }
    p.values_[name] = validate_param(*it, text);
  }
  return p;
}

namespace {
const std::string& lookup(const std::map<std::string, std::string>& m, const std::string& name) {
  auto it = m.find(name);
  if (it == m.end()) throw ParamError("no parameter '" + name + "'");
  return it->second;
}
}  // namespace

std::int64_t Params::get_int(const std::string& name) const {
  return std::stoll(lookup(values_, name));
}
double Params::get_double(const std::string& name) const {
  return std::stod(lookup(values_, name));
}
bool Params::get_bool(const std::string& name) const {
  return lookup(values_, name) == "true";
}
const std::string& Params::get_string(const std::string& name) const {
  return lookup(values_, name);
}
std::vector<std::int64_t> Params::get_int_list(const std::string& name) const {
  std::vector<std::int64_t> out;
  std::stringstream ss(lookup(values_, name));
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::stoll(item));
  return out;
}

std::vector<std::string> Params::get_list(const std::string& name) const {
  std::vector<std::string> out;
  std::stringstream ss(lookup(values_, name));
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(item);
  return out;
}

std::string param_bound_text(double v) {
  char buf[64];
  if (v == std::floor(v) && std::abs(v) < 1e17)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else
    std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

}  // namespace perflab
