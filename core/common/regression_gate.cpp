// The regression gate (regression_gate.h): slowdowns whose whole interval lies beyond a tolerance.
#include "common/regression_gate.h"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "common/figure_format.h"

namespace perflab {

GateRule parse_gate_rule(const std::string& text) {
  const std::string kind = text.substr(0, text.find(':'));
  if (kind != "slower")
    throw std::invalid_argument("--fail-on takes slower or slower:PCT (e.g. slower:5), not \"" +
                                text + "\"");
  GateRule rule;
  if (kind.size() == text.size()) return rule;
  std::string pct = text.substr(kind.size() + 1);
  if (!pct.empty() && pct.back() == '%') pct.pop_back();
  std::size_t used = 0;
  double value = NAN;
  try {
    value = std::stod(pct, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (pct.empty() || used != pct.size() || !std::isfinite(value) || value < 0 || value > 1000)
    throw std::invalid_argument("--fail-on slower:PCT takes a percentage from 0 to 1000, not \"" +
                                text.substr(kind.size() + 1) + "\"");
  rule.tolerance = value / 100;
  return rule;
}

namespace {
bool matches(const std::string& pattern, const std::string& name) {
  return pattern == name || fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}
}  // namespace

GateResult apply_gate(const Comparison& c, const GateRule& rule) {
  GateResult g;
  g.tolerance = rule.tolerance.value_or(c.threshold);
  for (const auto& pattern : rule.names)
    if (std::none_of(c.rows.begin(), c.rows.end(),
                     [&](const ComparisonRow& r) { return matches(pattern, r.name); }))
      g.unmatched.push_back(pattern);
  for (const auto& r : c.rows) {
    if (!rule.names.empty() &&
        std::none_of(rule.names.begin(), rule.names.end(),
                     [&](const std::string& p) { return matches(p, r.name); }))
      continue;
    ++g.held;
    const Estimate* ratio = r.judgement ? &r.judgement->ratio : nullptr;
    if (!ratio || ratio->method == CiMethod::None || !(ratio->lo > 0) || !(ratio->hi > 0)) {
      ++g.not_judged;
      continue;
    }
    Estimate slowdown = *ratio;  // new/old of a time
    if (!r.lower_is_better)      // old/new of a throughput
      slowdown.value = 1 / ratio->value, slowdown.lo = 1 / ratio->hi, slowdown.hi = 1 / ratio->lo;
    if (slowdown.lo > 1 + g.tolerance) g.failures.push_back({r.name, slowdown});
  }
  std::stable_sort(g.failures.begin(), g.failures.end(),
                   [](const GateFailure& a, const GateFailure& b) {
                     return a.slowdown.value > b.slowdown.value;
                   });
  return g;
}

std::string format_gate(const GateResult& g) {
  std::ostringstream o;
  const std::string beyond = "slower by more than " + format_percent(g.tolerance);
  for (const auto& f : g.failures)
    o << "  slower: " << f.name << "  " << format_figure(f.slowdown.value) << "× ["
      << format_figure(f.slowdown.lo) << "–" << format_figure(f.slowdown.hi) << "]\n";
  for (const auto& n : g.unmatched) o << "  no benchmark matches \"" << n << "\"\n";
  const std::string of = std::to_string(g.held) + (g.held == 1 ? " benchmark" : " benchmarks");
  if (g.passed())
    o << "gate passed: none of " << of << " is " << beyond << " (its whole interval beyond)";
  else
    o << "gate failed: " << g.failures.size() << " of " << of << " " << beyond
      << " (the whole interval beyond)";
  if (g.not_judged > 0)
    o << "; " << g.not_judged << " not judged (too few samples for an interval)";
  o << "\n";
  return o.str();
}

}  // namespace perflab
