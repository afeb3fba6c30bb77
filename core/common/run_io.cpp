#include "common/run_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace perflab {

using nlohmann::json;

namespace {

constexpr const char* kSchemaName = "perflab-run";

json stats_json(const Stats& s) {
  return {{"n", s.n},     {"min", s.min}, {"median", s.median}, {"mean", s.mean},
          {"p95", s.p95}, {"max", s.max}, {"stddev", s.stddev}};
}

std::string iso8601(std::int64_t unix_ms) {
  const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

template <class T>
T get_or(const json& j, const char* key, T def) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return def;
  return it->get<T>();
}

}  // namespace

std::string run_to_json(const Run& run, int indent) {
  json j;
  j["schema"] = kSchemaName;
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
  j["groups"] = json::array();
  for (const auto& g : run.groups)
    j["groups"].push_back({{"id", g.id},
                           {"title", g.title},
                           {"unit", g.unit},
                           {"x_label", g.x_label},
                           {"numeric_x", g.numeric_x},
                           {"lower_is_better", g.lower_is_better},
                           {"description", g.description}});
  j["series"] = json::array();
  for (const auto& s : run.series) {
    json pts = json::array();
    for (const auto& p : s.points) {
      json pj = {{"label", p.label},
                 {"samples", p.samples},
                 {"stats", stats_json(p.stats)},
                 {"extra", p.extra}};
      pj["x"] = p.x ? json(*p.x) : json(nullptr);
      pts.push_back(std::move(pj));
    }
    j["series"].push_back({{"group", s.group}, {"name", s.name}, {"points", std::move(pts)}});
  }
  j["findings"] = json::array();
  for (const auto& f : run.findings) {
    json fj = {{"id", f.id}, {"text", f.text}, {"value", f.value}};
    fj["article"] = f.article ? json(*f.article) : json(nullptr);
    j["findings"].push_back(std::move(fj));
  }
  return j.dump(indent);
}

Run run_from_json(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw RunFormatError(std::string("not JSON: ") + e.what());
  }
  if (!j.is_object() || get_or<std::string>(j, "schema", "") != kSchemaName)
    throw RunFormatError("not a Perflab run file (no \"schema\": \"perflab-run\")");
  const int version = get_or<int>(j, "schema_version", 0);
  if (version < 1 || version > Run::kSchemaVersion)
    throw RunFormatError("run file schema version " + std::to_string(version) +
                         " is not supported (this Perflab reads 1.." +
                         std::to_string(Run::kSchemaVersion) + ")");
  try {
    Run run;
    run.experiment = j.at("experiment").get<std::string>();
    run.title = get_or<std::string>(j, "title", run.experiment);
    run.params = get_or<std::map<std::string, std::string>>(j, "params", {});
    for (const auto& t : j.value("targets", json::array()))
      run.targets.push_back({t.at("kind").get<std::string>(), t.at("address").get<std::string>(),
                             get_or<bool>(t, "managed", false),
                             get_or<std::string>(t, "version", "")});
    if (auto h = j.find("host"); h != j.end() && h->is_object()) {
      run.host.cpu_model = get_or<std::string>(*h, "cpu_model", "");
      run.host.cores = get_or<int>(*h, "cores", 0);
      run.host.kernel = get_or<std::string>(*h, "kernel", "");
      run.host.hostname = get_or<std::string>(*h, "hostname", "");
      run.host.perflab_version = get_or<std::string>(*h, "perflab_version", "");
      run.host.build_type = get_or<std::string>(*h, "build_type", "");
    }
    run.started_unix_ms = get_or<std::int64_t>(j, "started_unix_ms", 0);
    run.ended_unix_ms = get_or<std::int64_t>(j, "ended_unix_ms", 0);
    try {
      run.status = run_status_from_string(j.at("status").get<std::string>());
    } catch (const std::invalid_argument& e) {
      throw RunFormatError(e.what());
    }
    run.message = get_or<std::string>(j, "message", "");
    for (const auto& g : j.value("groups", json::array()))
      run.groups.push_back(
          {g.at("id").get<std::string>(), get_or<std::string>(g, "title", ""),
           get_or<std::string>(g, "unit", ""), get_or<std::string>(g, "x_label", ""),
           get_or<bool>(g, "numeric_x", false), get_or<bool>(g, "lower_is_better", true),
           get_or<std::string>(g, "description", "")});
    for (const auto& s : j.value("series", json::array())) {
      Series ser{s.at("group").get<std::string>(), s.at("name").get<std::string>(), {}};
      if (!run.group(ser.group))
        throw RunFormatError("series '" + ser.name + "' names unknown group '" + ser.group + "'");
      for (const auto& p : s.value("points", json::array())) {
        Point pt;
        pt.label = p.at("label").get<std::string>();
        if (auto x = p.find("x"); x != p.end() && !x->is_null()) pt.x = x->get<double>();
        pt.samples = get_or<std::vector<double>>(p, "samples", {});
        pt.extra = get_or<std::map<std::string, double>>(p, "extra", {});
        if (!pt.samples.empty()) {
          pt.stats = summarize(pt.samples);
        } else if (auto st = p.find("stats"); st != p.end()) {
          pt.stats.n = get_or<std::size_t>(*st, "n", 0);
          pt.stats.min = get_or<double>(*st, "min", 0);
          pt.stats.median = get_or<double>(*st, "median", 0);
          pt.stats.mean = get_or<double>(*st, "mean", 0);
          pt.stats.p95 = get_or<double>(*st, "p95", 0);
          pt.stats.max = get_or<double>(*st, "max", 0);
          pt.stats.stddev = get_or<double>(*st, "stddev", 0);
        }
        ser.points.push_back(std::move(pt));
      }
      run.series.push_back(std::move(ser));
    }
    for (const auto& f : j.value("findings", json::array())) {
      Finding fd;
      fd.id = f.at("id").get<std::string>();
      fd.text = get_or<std::string>(f, "text", "");
      fd.value = f.at("value").get<double>();
      if (auto a = f.find("article"); a != f.end() && !a->is_null()) fd.article = a->get<double>();
      run.findings.push_back(std::move(fd));
    }
    return run;
  } catch (const json::exception& e) {
    throw RunFormatError(std::string("malformed run file: ") + e.what());
  }
}

Run load_run(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw RunFormatError(path.string() + ": cannot open (" + std::strerror(errno) + ")");
  std::ostringstream buf;
  buf << f.rdbuf();
  if (f.bad()) throw RunFormatError(path.string() + ": read error");
  try {
    return run_from_json(buf.str());
  } catch (const RunFormatError& e) {
    throw RunFormatError(path.string() + ": " + e.what());
  }
}

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::string name = ".";
  name += path.filename().string();
  name += ".XXXXXX";
  std::string tmpl = (dir / name).string();
  int fd = mkstemp(tmpl.data());
  if (fd < 0)
    throw std::runtime_error(path.string() + ": cannot write (" + std::strerror(errno) + ")");
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string err = std::strerror(errno);
      ::close(fd);
      ::unlink(tmpl.c_str());
      throw std::runtime_error(path.string() + ": write failed (" + err + ")");
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(tmpl.c_str());
    throw std::runtime_error(path.string() + ": write failed (" + err + ")");
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(tmpl.c_str());
    throw std::runtime_error(path.string() + ": cannot replace (" + err + ")");
  }
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
  o << "group,series,label,x,unit,n,min,median,mean,p95,max,stddev";
  for (const auto& k : extra_keys) o << "," << csv_field(k);
  o << "\n";
  for (const auto& s : run.series) {
    const Group* g = run.group(s.group);
    for (const auto& p : s.points) {
      o << csv_field(s.group) << "," << csv_field(s.name) << "," << csv_field(p.label) << ","
        << (p.x ? num(*p.x) : "") << "," << csv_field(g ? g->unit : "") << "," << p.stats.n << ","
        << num(p.stats.min) << "," << num(p.stats.median) << "," << num(p.stats.mean) << ","
        << num(p.stats.p95) << "," << num(p.stats.max) << "," << num(p.stats.stddev);
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
      const std::pair<const char*, double> aggs[] = {
          {"mean", p.stats.mean}, {"median", p.stats.median}, {"stddev", p.stats.stddev}};
      for (const auto& [agg, value] : aggs) {
        benches.push_back(
            {{"name", name + "_" + agg},
             {"family_index", 0},
             {"per_family_instance_index", 0},
             {"run_name", name},
             {"run_type", "aggregate"},
             {"repetitions", reps},
             {"threads", 1},
             {"aggregate_name", agg},
             {"iterations", reps},
             {"real_time", value},
             {"cpu_time",
              cpu_it != p.extra.end() && std::string(agg) != "stddev" ? cpu_it->second : value},
             {"time_unit", *tu}});
      }
    }
  }
  j["benchmarks"] = std::move(benches);
  return j.dump(2);
}

}  // namespace perflab
