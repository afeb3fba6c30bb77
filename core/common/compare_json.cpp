// A comparison as JSON (compare_json.h).
#include "common/compare_json.h"

#include <nlohmann/json.hpp>

namespace perflab {

namespace {
nlohmann::json estimate(const Estimate& e) {
  return {{"value", e.value}, {"lo", e.lo}, {"hi", e.hi}, {"level", e.level}};
}
}  // namespace

std::string comparison_json(const Comparison& c, const std::string& old_path,
                            const std::string& new_path, const GateResult* gate) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : c.rows) {
    nlohmann::json row = {{"name", r.name},
                          {"unit", r.unit},
                          {"lower_is_better", r.lower_is_better},
                          {"old_median", r.old_value},
                          {"new_median", r.new_value},
                          {"ratio", r.ratio},
                          {"ratio_ci", nullptr},
                          {"verdict", nullptr},
                          {"p_value", nullptr},
                          {"p_value_reliable", r.utest.reliable},
                          {"significant", r.significant()}};
    if (r.judgement) {
      row["ratio_ci"] = estimate(r.judgement->ratio);
      row["verdict"] = to_string(r.judgement->verdict);
    }
    if (r.utest.enough) row["p_value"] = r.utest.p_value;
    rows.push_back(std::move(row));
  }
  nlohmann::json out = {{"old", old_path},
                        {"new", new_path},
                        {"threshold", c.threshold},
                        {"rows", std::move(rows)},
                        {"only_in_old", c.only_in_old},
                        {"only_in_new", c.only_in_new}};
  if (gate) {
    nlohmann::json failures = nlohmann::json::array();
    for (const auto& f : gate->failures)
      failures.push_back({{"name", f.name}, {"slowdown", estimate(f.slowdown)}});
    out["gate"] = {{"tolerance", gate->tolerance},
                   {"held", gate->held},
                   {"not_judged", gate->not_judged},
                   {"failures", std::move(failures)},
                   {"passed", gate->passed()}};
  }
  return out.dump(2) + "\n";
}

}  // namespace perflab
