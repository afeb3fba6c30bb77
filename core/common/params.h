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

enum class ParamType {
  Int,
  Double,
  Bool,
  String,
  OneOf,     // exactly one of the spec's choices
  SubsetOf,  // a comma-separated, non-empty subset of the choices (in the order given)
  IntList,
};

const char* to_string(ParamType t);  // "int", "double", "bool", "string", "one-of", ...

// Written with designated initializers (.name, .type, .default_value, .min, .max, .choices,
// .help, .label, .unit, .former_names, in this order); a member left out is empty.
struct ParamSpec {
  std::string name{};  // identifier: letters, digits, '_'
  ParamType type = ParamType::Int;
  std::string default_value{};  // textual form, valid for the type
  std::optional<double> min{};  // inclusive bounds for Int, Double and every IntList element
  std::optional<double> max{};
  std::vector<std::string> choices{};  // for OneOf and SubsetOf
  std::string help{};                  // one line for a person
  // For a form: a human label and the unit of the value. Empty: derived from the name (see
  // param_label and param_unit).
  std::string label{};
  std::string unit{};
  // Names the parameter had before (sharding's `repeat` is `repetitions` now): a run file that
  // uses one still opens and runs again (with_current_names); a new value under one is refused
  // with the name to use instead.
  std::vector<std::string> former_names{};
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

  // Typed values. Asking for a parameter that does not exist, or as a type it does not have,
  // throws ParamError (an experiment's mistake, caught by its tests).
  std::int64_t get_int(const std::string& name) const;
  double get_double(const std::string& name) const;
  bool get_bool(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;  // the canonical text, any type
  const std::string& get_choice(const std::string& name) const;  // OneOf
  std::vector<std::string> get_subset(const std::string& name) const;  // SubsetOf, in order
  std::vector<std::int64_t> get_int_list(const std::string& name) const;

  const std::map<std::string, std::string>& values() const { return values_; }

 private:
  const std::string& value(const std::string& name, ParamType want) const;
  std::map<std::string, std::string> values_;
  std::map<std::string, ParamType> types_;
};

// The spec of that name; ParamError "unknown parameter 'x' (known: …)" when there is none, or
// "unknown parameter 'repeat': it is called 'repetitions' now" for a former name.
const ParamSpec& find_param(const std::vector<ParamSpec>& specs, const std::string& name);

// `values` with each former name (ParamSpec::former_names) under the parameter's name today, for
// the values of a run file written before a rename. Other names stay as they are: those that are
// no parameter are for Params::resolve to refuse. Where a value has both names, today's wins.
std::map<std::string, std::string> with_current_names(
    const std::vector<ParamSpec>& specs, const std::map<std::string, std::string>& values);

// Validates one textual value against a spec; returns the canonical text or throws ParamError.
// Choices match without regard to case and come back spelt as in the spec; a subset keeps the
// order given and drops repeats.
std::string validate_param(const ParamSpec& spec, const std::string& text);

// The label a form shows: ParamSpec::label, else the name read as words without its unit
// suffix ("build_sample_ms" -> "Build sample", "server_cpu_window_ms" -> "Server CPU window").
std::string param_label(const ParamSpec& spec);
// The unit of the value: ParamSpec::unit, else the name's suffix ("_ms" -> "ms", "_us" -> "µs",
// "_kb" -> "KB", "_mb" -> "MB"), else "".
std::string param_unit(const ParamSpec& spec);

// A bound as a person reads it: whole numbers in full (9007199254740992, not 9.00719925474099e+15),
// others in the shortest form that reads back the same (0.2).
std::string format_bound(double v);
// The allowed range: "1..8191", ">= 0", "<= 5", or "" without bounds. A bound beyond 2^53 (past
// which doubles do not count whole numbers) reads as no bound.
std::string param_range_text(const ParamSpec& spec);
// What a value may be, for `perflab-cli list` and tooltips: "int, 1..8191", "one of: sweep | seed",
// "subset of: build, append, pgbench, read", "int-list, each 1..200", "bool".
std::string describe_param(const ParamSpec& spec);

}  // namespace perflab
