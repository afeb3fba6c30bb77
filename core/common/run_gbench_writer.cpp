// The Google Benchmark JSON export of a run (run_to_gbench_json), as compare.py reads it.
#include "common/run_io.h"

#include <nlohmann/json.hpp>
#include <optional>

#include "common/text.h"

namespace perflab {

using nlohmann::json;

namespace {
// "us/op" -> "us"; only time-per-op units are exported to Google Benchmark JSON.
std::optional<std::string> time_unit(const std::string& unit) {
  const std::string head = unit.substr(0, unit.find('/'));
  if (head == "ns" || head == "us" || head == "ms" || head == "s") return head;
  return std::nullopt;
}
}  // namespace

std::string run_to_gbench_json(const Run& run) {
  json j;
  j["context"] = {{"date", iso8601_utc(run.started_unix_ms)},
                  {"host_name", run.host.hostname},
                  {"executable", "perflab " + run.experiment},
                  {"num_cpus", run.host.cores},
                  {"mhz_per_cpu", 0},
                  {"cpu_scaling_enabled", false},
                  {"caches", json::array()},
                  {"library_build_type", run.host.build_type},
                  {"perflab_status", to_string(run.status)},
                  {"perflab_params", run.params}};
  json benches = json::array();
  for (const auto& s : run.series) {
    const Group* g = run.group(s.group);
    if (!g) continue;
    auto tu = time_unit(g->unit);
    if (!tu) continue;
    for (const auto& p : s.points) {
      const std::string name = s.group + "/" + s.name + "/" + p.label;
      const auto reps = static_cast<int>(p.samples.size());
      auto cpu_it = p.extra.find("cpu");
      for (int i = 0; i < reps; ++i) {
        benches.push_back(
            {{"name", name},
             {"family_index", 0},
             {"per_family_instance_index", 0},
             {"run_name", name},
             {"run_type", "iteration"},
             {"repetitions", reps},
             {"repetition_index", i},
             {"threads", 1},
             {"iterations", 1},
             {"real_time", p.samples[static_cast<std::size_t>(i)]},
             {"cpu_time",
              cpu_it != p.extra.end() ? cpu_it->second : p.samples[static_cast<std::size_t>(i)]},
             {"time_unit", *tu}});
      }
      // Google Benchmark's aggregates, its cv (a fraction, aggregate_unit "percentage") and the
      // median's 95% interval as two more aggregates (compare.py reads the ones it knows).
      auto aggregate = [&](const std::string& agg, double value, double cpu) {
        json e = {{"name", name + "_" + agg},
                  {"family_index", 0},
                  {"per_family_instance_index", 0},
                  {"run_name", name},
                  {"run_type", "aggregate"},
                  {"repetitions", reps},
                  {"threads", 1},
                  {"aggregate_name", agg},
                  {"iterations", reps},
                  {"real_time", value},
                  {"cpu_time", cpu},
                  {"time_unit", *tu}};
        if (agg == "cv") e["aggregate_unit"] = "percentage";
        benches.push_back(std::move(e));
      };
      const bool has_cpu = cpu_it != p.extra.end();
      aggregate("mean", p.stats.mean, has_cpu ? cpu_it->second : p.stats.mean);
      aggregate("median", p.stats.median, has_cpu ? cpu_it->second : p.stats.median);
      aggregate("stddev", p.stats.stddev, p.stats.stddev);
      if (reps > 1) aggregate("cv", p.cv, p.cv);
      if (p.median_ci.has_interval()) {
        aggregate("median_ci_lo", p.median_ci.lo, p.median_ci.lo);
        aggregate("median_ci_hi", p.median_ci.hi, p.median_ci.hi);
      }
    }
  }
  j["benchmarks"] = std::move(benches);
  return j.dump(2);
}

}  // namespace perflab
