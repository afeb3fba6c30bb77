// Writing run files (nlohmann::json, as all of Perflab's JSON), atomically, and the exports:
// CSV and Google Benchmark JSON. run_read.cpp reads run files (with simdjson; it says why).
#include "common/run_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include "common/fd_write.h"

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

std::string iso8601(std::int64_t unix_ms) {
  const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
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
  j["started"] = iso8601(run.started_unix_ms);
  j["ended"] = iso8601(run.ended_unix_ms);
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
                           {"worst_half_width", p.precision->worst_half_width}};
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

namespace {

namespace fs = std::filesystem;

fs::path folder_of(const fs::path& path) {
  return path.has_parent_path() ? path.parent_path() : fs::path(".");
}

// A new, empty file beside path (".<name>.XXXXXX"); returns its name and open descriptor.
std::pair<std::string, int> temporary_beside(const fs::path& path) {
  std::string base = ".";  // appended, not concatenated: GCC 12 warns (-Wrestrict) on "." + s
  base += path.filename().string();
  base += ".XXXXXX";
  std::string name = (folder_of(path) / base).string();
  const int fd = mkstemp(name.data());
  if (fd < 0)
    throw std::runtime_error(path.string() + ": cannot write (" + std::strerror(errno) + ")");
  return {name, fd};
}

// The text in a temporary beside path, on disk; returns the temporary's name.
std::string write_temporary(const fs::path& path, const std::string& text) {
  auto [name, fd] = temporary_beside(path);
  const auto fail = [&, name = name, fd = fd](const char* what) {
    const std::string err = std::strerror(errno);
    ::close(fd);
    ::unlink(name.c_str());
    throw std::runtime_error(path.string() + ": " + what + " (" + err + ")");
  };
  if (!write_all(fd, text)) fail("write failed");
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0) fail("write failed");
  if (::close(fd) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(name.c_str());
    throw std::runtime_error(path.string() + ": write failed (" + err + ")");
  }
  return name;
}

// A folder, a device, a FIFO or a socket at `path` is never replaced: renaming a file over
// /dev/null (as root) would turn the device into a regular file.
void refuse_special_file(const fs::path& path) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (fs::is_directory(st))
    throw std::runtime_error(path.string() + ": is a folder; name a file to write");
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw std::runtime_error(path.string() + ": is not a regular file; name a file to write");
}

}  // namespace

void write_files_atomically(const std::vector<std::pair<fs::path, std::string>>& files) {
  for (const auto& f : files) refuse_special_file(f.first);  // before anything is written
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (fs::weakly_canonical(files[i].first) == fs::weakly_canonical(files[k].first))
        throw std::runtime_error(files[i].first.string() + ": named twice");
  std::vector<std::string> temps, backups;
  const auto discard = [](const std::vector<std::string>& names, std::size_t from = 0) {
    for (std::size_t i = from; i < names.size(); ++i)
      if (!names[i].empty()) ::unlink(names[i].c_str());
  };
  try {
    for (const auto& [path, text] : files) temps.push_back(write_temporary(path, text));
  } catch (...) {
    discard(temps);
    throw;
  }
  // With several files, what each replaces is kept (a hard link) until all are in place.
  backups.resize(files.size());
  if (files.size() > 1)
    for (std::size_t i = 0; i < files.size(); ++i) {
      std::error_code ec;
      if (!fs::is_regular_file(files[i].first, ec)) continue;
      auto [name, fd] = temporary_beside(files[i].first);
      ::close(fd);
      ::unlink(name.c_str());
      if (::link(files[i].first.c_str(), name.c_str()) == 0) backups[i] = name;
    }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (::rename(temps[i].c_str(), files[i].first.c_str()) == 0) continue;
    const std::string err = std::strerror(errno);
    for (std::size_t k = 0; k < i; ++k) {  // undo: none of the files is written
      if (!backups[k].empty() && ::rename(backups[k].c_str(), files[k].first.c_str()) == 0)
        backups[k].clear();
      else if (backups[k].empty())
        ::unlink(files[k].first.c_str());
    }
    discard(temps, i);
    discard(backups);
    throw std::runtime_error(files[i].first.string() + ": cannot replace (" + err + ")");
  }
  discard(backups);
}

void write_file_atomically(const fs::path& path, const std::string& text) {
  write_files_atomically({{path, text}});
}

void check_output_path(const fs::path& path) {
  refuse_special_file(path);
  std::error_code ec;
  const fs::path dir = folder_of(path);
  if (!fs::is_directory(dir, ec))
    throw std::runtime_error(path.string() + ": folder " + dir.string() + " does not exist");
  auto [name, fd] = temporary_beside(path);  // can a file be created there? (root, read-only)
  ::close(fd);
  ::unlink(name.c_str());
}

void save_run(const Run& run, const std::filesystem::path& path) {
  write_file_atomically(path, run_to_json(run) + "\n");
}

namespace {
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string num(double v) {
  std::ostringstream o;
  o.precision(10);
  o << v;
  return o.str();
}
}  // namespace

std::string run_to_csv(const Run& run) {
  std::set<std::string> extra_keys;
  for (const auto& s : run.series)
    for (const auto& p : s.points)
      for (const auto& [k, v] : p.extra) extra_keys.insert(k);
  std::ostringstream o;
  o << "group,series,label,x,unit,n,min,median,mean,p95,max,stddev,ci_lo,ci_hi,ci_level,cv";
  for (const auto& k : extra_keys) o << "," << csv_field(k);
  o << "\n";
  for (const auto& s : run.series) {
    const Group* g = run.group(s.group);
    for (const auto& p : s.points) {
      o << csv_field(s.group) << "," << csv_field(s.name) << "," << csv_field(p.label) << ","
        << (p.x ? num(*p.x) : "") << "," << csv_field(g ? g->unit : "") << "," << p.stats.n << ","
        << num(p.stats.min) << "," << num(p.stats.median) << "," << num(p.stats.mean) << ","
        << num(p.stats.p95) << "," << num(p.stats.max) << "," << num(p.stats.stddev) << ",";
      if (p.median_ci.has_interval())
        o << num(p.median_ci.lo) << "," << num(p.median_ci.hi) << "," << num(p.median_ci.level);
      else
        o << ",,";
      o << "," << num(p.cv);
      for (const auto& k : extra_keys) {
        auto it = p.extra.find(k);
        o << "," << (it == p.extra.end() ? "" : num(it->second));
      }
      o << "\n";
    }
  }
  return o.str();
}

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
  j["context"] = {{"date", iso8601(run.started_unix_ms)},
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
