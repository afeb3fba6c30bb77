#pragma once
// Experiment parameters: typed specs (the GUI builds its form from them, the CLI its flags)
// and validated values.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace perflab {

enum class ParamType { Int, Double, Bool, String, Choice, IntList };

const char* to_string(ParamType t);

struct ParamSpec {
  std::string name;  // identifier: letters, digits, '_'
  ParamType type = ParamType::Int;
  std::string default_value;  // textual form, valid for the type
  std::optional<double> min;  // inclusive bounds for Int, Double and every IntList element
  std::optional<double> max;
  std::vector<std::string> choices;  // for Choice: one of them, or a comma-separated subset
  std::string help;                  // one line for a person
};

// A parameter value that did not pass its spec, or an unknown parameter name.
class ParamError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Validated parameter values, stored in their canonical textual form.
class Params {
 public:
  Params() = default;
  // Defaults of every spec, then each override (name -> text) validated; throws ParamError
  // naming the parameter and the reason.
  static Params resolve(const std::vector<ParamSpec>& specs,
                        const std::map<std::string, std::string>& overrides = {});

  std::int64_t get_int(const std::string& name) const;
  double get_double(const std::string& name) const;
  bool get_bool(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;
  std::vector<std::int64_t> get_int_list(const std::string& name) const;
  std::vector<std::string> get_list(const std::string& name) const;  // comma-separated items

  const std::map<std::string, std::string>& values() const { return values_; }

 private:
  std::map<std::string, std::string> values_;
};

// A bound of a spec as a person reads it: "0.2", "600", "1000000000000000".
std::string param_bound_text(double v);

// Validates one textual value against a spec; returns the canonical text or throws ParamError.
std::string validate_param(const ParamSpec& spec, const std::string& text);

}  // namespace perflab
