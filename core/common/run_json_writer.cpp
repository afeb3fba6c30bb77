// Writing run files: the run as versioned JSON (nlohmann::json, as all of Perflab's JSON), and
// save_run. run_read.cpp reads them (with simdjson; it says why).
#include "common/run_io.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/text.h"

namespace perflab {

using nlohmann::json;

namespace {

json stats_json(const Stats& s) {
  return {{"n", s.n},     {"min", s.min}, {"median", s.median}, {"mean", s.mean},
          {"p95", s.p95}, {"max", s.max}, {"stddev", s.stddev}};
}

json estimate_json(const Estimate& e) {
  return {{"lo", e.lo},
          {"hi", e.hi},
          {"level", e.level},
          {"full_level", e.full_level},
          {"method", to_string(e.method)},
          {"n", e.n}};
}

json outliers_json(const Outliers& o) {
  return {{"low_severe", o.low_severe},
          {"low_mild", o.low_mild},
          {"high_mild", o.high_mild},
          {"high_severe", o.high_severe}};
}

json noise_json(const MachineNoise& m) {
  json j = {{"loaded", m.loaded}, {"stolen", m.stolen}, {"busy", m.busy()}};
  const auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  j["load_per_core_before"] = opt(m.load_per_core_before);
  j["load_per_core_after"] = opt(m.load_per_core_after);
  j["steal_share"] = opt(m.steal_share);
  j["busy_share_before"] = opt(m.busy_share_before);
  return j;
}

// A finding as stored: its model (what its words are generated from), and the words and
// judgements derived from it for readers of the file (they are derived again when it is read).
json finding_json(const Finding& f) {
  json fj = {{"id", f.id},
             {"kind", to_string(f.kind)},
             {"context", f.context},
             {"text", finding_sentence(f)},
             {"value", f.value}};
  if (!f.group.empty()) fj["group"] = f.group;
  switch (f.kind) {
    case FindingKind::Comparison:
      fj["comparison"] = {{"subject", f.comparison.subject},
                          {"baseline", f.comparison.baseline},
                          {"metric", f.comparison.metric},
                          {"quantity", to_string(f.comparison.quantity)},
                          {"better", to_string(f.comparison.better)}};
      fj["threshold"] = f.threshold;
      if (!f.not_judged_because.empty()) fj["not_judged_because"] = f.not_judged_because;
      if (f.tool_error)
        fj["tool_error"] = {
            {"what", f.tool_error->what},
            {"low", {{"value", f.tool_error->low.value}, {"ci", estimate_json(f.tool_error->low)}}},
            {"high",
             {{"value", f.tool_error->high.value}, {"ci", estimate_json(f.tool_error->high)}}}};
      if (const auto v = f.verdict()) fj["verdict"] = to_string(*v);
      break;
    case FindingKind::Share:
      fj["part"] = f.part;
      fj["whole"] = f.whole;
      break;
    case FindingKind::Figure:
    case FindingKind::Note:
      fj["what"] = f.part;
      fj["unit"] = f.unit;
      break;
  }
  if (f.ci) fj["ci"] = estimate_json(*f.ci);
  if (f.claim) {
    // An open end of a band (0 or infinity) is written as null.
    const auto end = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
    fj["claim"] = {{"kind", to_string(f.claim->kind)},
                   {"figure", f.claim->figure},
                   {"lo", end(f.claim->lo)},
                   {"hi", end(f.claim->hi)}};
    fj["reproduction"] = to_string(f.reproduction());
  }
  return fj;
}

}  // namespace

std::string run_to_json(const Run& run, int indent) {
  json j;
  j["schema"] = kRunSchema;
  j["schema_version"] = Run::kSchemaVersion;
  j["experiment"] = run.experiment;
  j["title"] = run.title;
  j["params"] = run.params;
  j["targets"] = json::array();
  for (const auto& t : run.targets)
    j["targets"].push_back(
        {{"kind", t.kind}, {"address", t.address}, {"managed", t.managed}, {"version", t.version}});
  j["host"] = {{"cpu_model", run.host.cpu_model},
               {"cores", run.host.cores},
               {"kernel", run.host.kernel},
               {"hostname", run.host.hostname},
               {"perflab_version", run.host.perflab_version},
               {"build_type", run.host.build_type}};
  j["started_unix_ms"] = run.started_unix_ms;
  j["ended_unix_ms"] = run.ended_unix_ms;
  j["started"] = iso8601_utc(run.started_unix_ms);
  j["ended"] = iso8601_utc(run.ended_unix_ms);
  j["status"] = to_string(run.status);
  j["message"] = run.message;
  if (!run.detail.empty()) j["detail"] = run.detail;
  if (!run.note.empty()) j["note"] = run.note;
  j["groups"] = json::array();
  for (const auto& g : run.groups) {
    json gj = {{"id", g.id},
               {"title", g.title},
               {"unit", g.unit},
               {"x_label", g.x_label},
               {"numeric_x", g.numeric_x},
               {"lower_is_better", g.lower_is_better},
               {"log_y", g.log_y},
               {"log_x", g.log_x},
               {"headline", g.headline},
               {"description", g.description},
               {"stacked", g.stacked}};
    // Written only when set: older readers and older files stay as they were.
    if (!g.baseline_series.empty()) gj["baseline_series"] = g.baseline_series;
    if (!g.first_series.empty()) gj["first_series"] = g.first_series;
    if (g.interleaved) gj["interleaved"] = true;
    if (!g.y_label.empty()) gj["y_label"] = g.y_label;
    if (g.percentile_x) gj["percentile_x"] = true;
    if (!g.markers.empty()) {
      gj["markers"] = json::array();
      for (const auto& m : g.markers)
        gj["markers"].push_back({{"series", m.series}, {"x", m.x}, {"label", m.label}});
    }
    j["groups"].push_back(std::move(gj));
  }
  j["series"] = json::array();
  for (const auto& s : run.series) {
    json pts = json::array();
    for (const auto& p : s.points) {
      json pj = {{"label", p.label},
                 {"samples", p.samples},
                 {"stats", stats_json(p.stats)},
                 {"extra", p.extra}};
      pj["x"] = p.x ? json(*p.x) : json(nullptr);
      if (p.median_ci.has_interval()) pj["ci"] = estimate_json(p.median_ci);
      pj["cv"] = p.cv;
      pj["outliers"] = outliers_json(p.outliers);
      if (p.precision)
        pj["precision"] = {{"rounds", p.precision->rounds},
                           {"reached", p.precision->reached},
                           {"worst_half_width", p.precision->worst_half_width},
                           {"by_precision", p.precision->by_precision},
                           {"by_verdicts", p.precision->by_verdicts}};
      pts.push_back(std::move(pj));
    }
    json sj = {{"group", s.group}, {"name", s.name}, {"points", std::move(pts)}};
    if (!s.latency.empty()) sj["latency"] = s.latency;
    j["series"].push_back(std::move(sj));
  }
  j["findings"] = json::array();
  for (const auto& f : run.findings) j["findings"].push_back(finding_json(f));
  j["threshold"] = run.threshold;
  if (run.machine) j["machine_noise"] = noise_json(*run.machine);
  return j.dump(indent);
}

void save_run(const Run& run, const std::filesystem::path& path) {
  write_file_atomically(path, run_to_json(run) + "\n");
}

}  // namespace perflab
