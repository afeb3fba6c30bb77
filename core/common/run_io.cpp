// Run files: written with nlohmann::json, read with simdjson; CSV and Google Benchmark JSON.
//
// Two JSON libraries, one job each, because reading speed demands it. perflab-json-bench on a
// 100,000-point run (88 MB), release build, parse + build the Run, CPU time, median of 7 tries
// [min-max], ratios the median of the per-try ratios [min-max]: the hand-written reader this
// replaced (common/json_doc) took 234 ms [227-295]; simdjson 3.0's dom::parser 0.70x
// [0.53-0.97] of that; nlohmann 2.15x [1.84-2.72] through its SAX interface and 3.87x
// [3.64-4.20] through nlohmann::json. A maintained library reads as fast as the hand-written
// one did (this reader, every field checked: 194 ms [190-286], 5 tries), so that one went;
// nlohmann alone would make reading a large run over twice as slow. simdjson 3.0 cannot write
// a new document (it only re-serializes a parsed one): nlohmann writes run files, as it writes
// all of Perflab's JSON.
#include "common/run_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <simdjson.h>
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

namespace perflab {

using nlohmann::json;

namespace {

constexpr const char* kSchemaName = "perflab-run";

json stats_json(const Stats& s) {
  return {{"n", s.n},     {"min", s.min}, {"median", s.median}, {"mean", s.mean},
          {"p95", s.p95}, {"max", s.max}, {"stddev", s.stddev}};
}

json estimate_json(const Estimate& e) {
  return {{"lo", e.lo},
          {"hi", e.hi},
          {"level", e.level},
          {"full_level", e.full_level},
          {"method", to_string(e.method)}};
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
  return j;
}

// A value's name among those of an enum, e.g. every CiMethod's to_string().
template <class E, std::size_t N>
std::optional<E> enum_from_string(const std::string& s, const E (&all)[N]) {
  for (E e : all)
    if (s == to_string(e)) return e;
  return std::nullopt;
}
constexpr CiMethod kCiMethods[] = {CiMethod::None, CiMethod::OrderStatistic, CiMethod::Bootstrap,
                                   CiMethod::PairedBootstrap};
constexpr Verdict kVerdicts[] = {Verdict::Faster, Verdict::Slower, Verdict::WithinNoise,
                                 Verdict::NoDifference, Verdict::TooFewSamples};
constexpr Reproduction kReproductions[] = {Reproduction::Reproduced, Reproduction::NotReproduced,
                                           Reproduction::Inconclusive, Reproduction::NotJudged};
constexpr Better kBetters[] = {Better::Lower, Better::Higher};

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
  if (!run.detail.empty()) j["detail"] = run.detail;
  j["groups"] = json::array();
  for (const auto& g : run.groups)
    j["groups"].push_back({{"id", g.id},
                           {"title", g.title},
                           {"unit", g.unit},
                           {"x_label", g.x_label},
                           {"numeric_x", g.numeric_x},
                           {"lower_is_better", g.lower_is_better},
                           {"log_y", g.log_y},
                           {"log_x", g.log_x},
                           {"headline", g.headline},
                           {"description", g.description},
                           {"stacked", g.stacked}});
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
    j["series"].push_back({{"group", s.group}, {"name", s.name}, {"points", std::move(pts)}});
  }
  j["findings"] = json::array();
  for (const auto& f : run.findings) {
    json fj = {{"id", f.id}, {"text", f.text}, {"value", f.value}};
    fj["article"] = f.article ? json(*f.article) : json(nullptr);
    if (f.ci) {
      fj["ci"] = estimate_json(*f.ci);
      fj["reproduction"] = to_string(f.reproduction());
    }
    if (f.verdict) {
      fj["verdict"] = to_string(*f.verdict);
      fj["threshold"] = f.threshold;
      fj["better"] = to_string(f.better);
    }
    j["findings"].push_back(std::move(fj));
  }
  j["threshold"] = run.threshold;
  if (run.machine) j["machine_noise"] = noise_json(*run.machine);
  return j.dump(indent);
}

namespace {

using V = simdjson::dom::element;
using simdjson::dom::element_type;

// A field's name ("series[2].points[0].samples[3]"), put together only when a refusal names
// it: reading a large run builds no strings for the fields that are fine.
class Path {
 public:
  Path() = default;  // the document itself
  Path(const Path& parent, std::string_view key) : parent_(&parent), key_(key) {}
  Path(const Path& parent, std::size_t index) : parent_(&parent), index_(index), indexed_(true) {}

  std::string str() const {
    if (!parent_) return {};
    std::string s = parent_->str();
    if (indexed_) {
      s += '[';
      s += std::to_string(index_);
      s += ']';
    } else {
      if (!s.empty()) s += '.';
      s += key_;
    }
    return s;
  }

 private:
  const Path* parent_ = nullptr;
  std::string_view key_;
  std::size_t index_ = 0;
  bool indexed_ = false;
};

// The name nlohmann::json gives a value's type, for refusals.
const char* type_name(const V& v) {
  switch (v.type()) {
    case element_type::ARRAY:
      return "array";
    case element_type::OBJECT:
      return "object";
    case element_type::INT64:
    case element_type::UINT64:
    case element_type::DOUBLE:
      return "number";
    case element_type::STRING:
      return "string";
    case element_type::BOOL:
      return "boolean";
    case element_type::NULL_VALUE:
      return "null";
  }
  return "null";
}

// Reads a run's JSON checking the type and range of every field; a refusal names the field
// ("series[2].points[0].samples[3]") and what is wrong with it, in one line.
class FieldReader {
 public:
  [[noreturn]] static void bad(const Path& field, const std::string& why) {
    throw RunFormatError("field \"" + field.str() + "\": " + why);
  }

  // The member named key of an object (the last of that name, as nlohmann reads duplicates).
  static std::optional<V> member(const V& obj, std::string_view key) {
    std::optional<V> found;
    simdjson::dom::object members;
    if (obj.get_object().get(members)) return found;
    for (const auto m : members)
      if (m.key == key) found = m.value;
    return found;
  }

  // The value of key, or nothing when it is absent or null (then `required` refuses it).
  static std::optional<V> find(const V& obj, const Path& parent, const char* key, bool required) {
    std::optional<V> v = member(obj, key);
    if (!v || v->is_null()) {
      if (required) bad(Path(parent, key), "missing");
      return std::nullopt;
    }
    return v;
  }

  // The value as compact JSON, for messages that show a wrong value.
  static std::string dump(const V& v) { return simdjson::to_string(v); }
  static std::string shown(const V& v) {
    std::string text = dump(v);
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return std::string(type_name(v)) + " " + text;
  }

  static const V& object(const V& v, const Path& field) {
    if (!v.is_object()) bad(field, "expected an object, got " + shown(v));
    return v;
  }
  // Calls each(element, its field) for every element of the array v.
  template <class Each>
  static void elements(const V& v, const Path& field, Each each) {
    simdjson::dom::array a;
    if (v.get_array().get(a)) bad(field, "expected an array, got " + shown(v));
    std::size_t i = 0;
    for (const V e : a) each(e, Path(field, i++));
  }
  // The same for an optional array member (nothing when it is absent).
  template <class Each>
  static void elements(const V& obj, const Path& parent, const char* key, Each each) {
    if (const auto v = find(obj, parent, key, false)) elements(*v, Path(parent, key), each);
  }
  // The number of elements of an optional array member (0 when it is absent or not an array).
  static std::size_t size(const V& obj, const char* key) {
    simdjson::dom::array a;
    const auto v = member(obj, key);
    return v && !v->get_array().get(a) ? a.size() : 0;
  }
  // An object's members the way nlohmann::json iterates them: by key, the last of duplicates.
  static std::vector<simdjson::dom::key_value_pair> members(const V& obj, const Path& field) {
    object(obj, field);
    std::vector<simdjson::dom::key_value_pair> out;
    const simdjson::dom::object all = obj.get_object().value_unsafe();
    for (const auto m : all) out.push_back(m);
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.key < b.key; });
    // Of equal keys the last written stays (stable: it is the last of its run).
    std::vector<simdjson::dom::key_value_pair> unique;
    for (std::size_t i = 0; i < out.size(); ++i)
      if (i + 1 == out.size() || out[i].key != out[i + 1].key) unique.push_back(out[i]);
    return unique;
  }

  static std::string string(const V& v, const Path& field) {
    std::string_view s;
    if (v.get_string().get(s)) bad(field, "expected a string, got " + shown(v));
    return std::string(s);
  }
  static std::string string(const V& obj, const Path& parent, const char* key, bool required,
                            const std::string& def = {}) {
    const auto v = find(obj, parent, key, required);
    return v ? string(*v, Path(parent, key)) : def;
  }

  static bool boolean(const V& obj, const Path& parent, const char* key, bool def) {
    const auto v = find(obj, parent, key, false);
    if (!v) return def;
    bool b = false;
    if (v->get_bool().get(b)) bad(Path(parent, key), "expected true or false, got " + shown(*v));
    return b;
  }

  static double number(const V& v, const Path& field) {
    double d = 0;
    if (v.get_double().get(d)) bad(field, "expected a number, got " + shown(v));
    if (!std::isfinite(d)) bad(field, "is not a finite number");
    return d;
  }
  static double number(const V& obj, const Path& parent, const char* key, bool required,
                       double def = 0) {
    const auto v = find(obj, parent, key, required);
    return v ? number(*v, Path(parent, key)) : def;
  }

  // A whole number in [lo, hi]; a float is taken when it is integral and in range.
  static std::int64_t integer(const V& obj, const Path& parent, const char* key, std::int64_t lo,
                              std::int64_t hi, bool required, std::int64_t def = 0) {
    const auto v = find(obj, parent, key, required);
    if (!v) return def;
    const Path field(parent, key);
    const auto out_of_range = [&] {
      return dump(*v) + " is out of range " + std::to_string(lo) + ".." + std::to_string(hi);
    };
    if (v->type() == element_type::UINT64) bad(field, out_of_range());  // above INT64_MAX
    if (v->type() == element_type::INT64) {
      const std::int64_t i = v->get_int64().value_unsafe();
      if (i < lo || i > hi) bad(field, out_of_range());
      return i;
    }
    if (v->type() != element_type::DOUBLE) bad(field, "expected a whole number, got " + shown(*v));
    const double d = v->get_double().value_unsafe();
    if (!std::isfinite(d) || d != std::floor(d))
      bad(field, "expected a whole number, got " + dump(*v));
    // 2^63 is above every int64 (and INT64_MAX rounds up to it as a double)
    if (d < static_cast<double>(lo) || d > static_cast<double>(hi) || d >= 0x1p63)
      bad(field, out_of_range());
    return static_cast<std::int64_t>(d);
  }

  // An optional number member; absent or null gives nullopt.
  static std::optional<double> optional_number(const V& obj, const Path& parent, const char* key) {
    const auto v = find(obj, parent, key, false);
    if (!v) return std::nullopt;
    return number(*v, Path(parent, key));
  }

  // A string member naming one of an enum's values (as its to_string() spells them).
  template <class E, std::size_t N>
  static E name_of(const V& obj, const Path& parent, const char* key, const E (&all)[N]) {
    const std::string s = string(obj, parent, key, true);
    if (auto e = enum_from_string(s, all)) return *e;
    std::string allowed;
    for (E e : all) allowed += std::string(allowed.empty() ? "" : ", ") + to_string(e);
    bad(Path(parent, key), "unknown value \"" + s + "\" (expected one of: " + allowed + ")");
  }
};

using R = FieldReader;
const Path kRoot;

// The document's root, once it is JSON of the run-file schema in a version this Perflab reads.
const V& check_run_document(const V& j) {
  std::optional<V> schema;
  std::string_view name;
  if (j.is_object()) schema = R::member(j, "schema");
  if (!schema || schema->get_string().get(name) || name != kSchemaName)
    throw RunFormatError("not a Perflab run file (no \"schema\": \"perflab-run\")");
  const V version = *R::find(j, kRoot, "schema_version", true);
  const Path field(kRoot, "schema_version");
  if (!version.is_number()) R::bad(field, "expected a whole number, got " + R::shown(version));
  if (version.type() != element_type::INT64 || version.get_int64().value_unsafe() < 1 ||
      version.get_int64().value_unsafe() > Run::kSchemaVersion)
    R::bad(field, R::dump(version) + " is not a version this Perflab reads (1.." +
                      std::to_string(Run::kSchemaVersion) + ")");
  return j;
}

// Calls read(element, its field) for every element of the array j[name], each checked to be
// an object.
template <class Read>
void for_each_object(const V& j, const char* name, Read read) {
  R::elements(j, kRoot, name, [&](const V& e, const Path& f) { read(R::object(e, f), f); });
}

void read_targets(const V& j, Run& run) {
  for_each_object(j, "targets", [&](const V& t, const Path& f) {
    run.targets.push_back({R::string(t, f, "kind", true), R::string(t, f, "address", true),
                           R::boolean(t, f, "managed", false), R::string(t, f, "version", false)});
  });
}

void read_host(const V& j, Run& run) {
  const auto h = R::find(j, kRoot, "host", false);
  if (!h) return;
  const Path f(kRoot, "host");
  R::object(*h, f);
  run.host.cpu_model = R::string(*h, f, "cpu_model", false);
  run.host.cores = static_cast<int>(R::integer(*h, f, "cores", 0, 1 << 20, false));
  run.host.kernel = R::string(*h, f, "kernel", false);
  run.host.hostname = R::string(*h, f, "hostname", false);
  run.host.perflab_version = R::string(*h, f, "perflab_version", false);
  run.host.build_type = R::string(*h, f, "build_type", false);
}

void read_groups(const V& j, Run& run) {
  for_each_object(j, "groups", [&](const V& g, const Path& f) {
    Group group{R::string(g, f, "id", true),           R::string(g, f, "title", false),
                R::string(g, f, "unit", false),        R::string(g, f, "x_label", false),
                R::boolean(g, f, "numeric_x", false),  R::boolean(g, f, "lower_is_better", true),
                R::string(g, f, "description", false), R::boolean(g, f, "log_y", false),
                R::boolean(g, f, "log_x", false),      R::boolean(g, f, "headline", false)};
    group.stacked = R::boolean(g, f, "stacked", false);
    run.groups.push_back(std::move(group));
  });
}

// A point's statistics as stored, for a point without samples (one with samples has them
// computed from its samples by summarize_samples, and what is stored is not read).
Stats read_stored_stats(const V& p, const Path& ff) {
  Stats st;
  const auto sj = R::find(p, ff, "stats", false);
  if (!sj) return st;
  const Path sf(ff, "stats");
  R::object(*sj, sf);
  st.n = static_cast<std::size_t>(R::integer(*sj, sf, "n", 0, INT64_MAX, false));
  st.min = R::number(*sj, sf, "min", false);
  st.median = R::number(*sj, sf, "median", false);
  st.mean = R::number(*sj, sf, "mean", false);
  st.p95 = R::number(*sj, sf, "p95", false);
  st.max = R::number(*sj, sf, "max", false);
  st.stddev = R::number(*sj, sf, "stddev", false);
  return st;
}

// An interval as run_to_json() writes it; value is the figure it belongs to.
Estimate read_estimate(const V& obj, const Path& parent, double value) {
  const Path f(parent, "ci");
  const V e = R::object(*R::find(obj, parent, "ci", true), f);
  Estimate est;
  est.value = value;
  est.lo = R::number(e, f, "lo", true);
  est.hi = R::number(e, f, "hi", true);
  est.level = R::number(e, f, "level", true);
  if (est.level < 0 || est.level > 1) R::bad(Path(f, "level"), "is not in 0..1");
  est.full_level = R::boolean(e, f, "full_level", false);
  est.method = R::name_of(e, f, "method", kCiMethods);
  if (est.lo > est.hi) R::bad(f, "lo is above hi");
  return est;
}

// The median's interval, spread and outliers of a point: recomputed from the samples (as its
// stats are); for a point without samples, the stored interval is kept. The stored fields are
// checked either way.
void read_point_summary(const V& p, const Path& ff, Point& pt) {
  std::optional<Estimate> stored;
  if (R::find(p, ff, "ci", false)) stored = read_estimate(p, ff, pt.stats.median);
  const double cv = R::number(p, ff, "cv", false);
  if (cv < 0) R::bad(Path(ff, "cv"), "is negative");
  if (const auto o = R::find(p, ff, "outliers", false)) {
    const Path of(ff, "outliers");
    R::object(*o, of);
    for (const char* k : {"low_severe", "low_mild", "high_mild", "high_severe"})
      R::integer(*o, of, k, 0, INT64_MAX, false);
  }
  if (const auto pr = R::find(p, ff, "precision", false)) {
    const Path pf(ff, "precision");
    R::object(*pr, pf);
    PointPrecision prec;
    prec.rounds = static_cast<int>(R::integer(*pr, pf, "rounds", 0, INT32_MAX, true));
    prec.reached = R::boolean(*pr, pf, "reached", false);
    prec.worst_half_width = R::number(*pr, pf, "worst_half_width", false);
    pt.precision = prec;
  }
  summarize_samples(pt);
  if (pt.samples.empty()) {
    pt.cv = cv;
    if (stored) pt.median_ci = *stored;
  }
}

Point read_point(const V& pj, const Path& ff) {
  const V& p = R::object(pj, ff);
  Point pt;
  pt.label = R::string(p, ff, "label", true);
  if (const auto x = R::find(p, ff, "x", false)) pt.x = R::number(*x, Path(ff, "x"));
  pt.samples.reserve(R::size(p, "samples"));
  R::elements(p, ff, "samples",
              [&](const V& s, const Path& f) { pt.samples.push_back(R::number(s, f)); });
  if (const auto extra = R::find(p, ff, "extra", false)) {
    const Path ef(ff, "extra");
    for (const auto& m : R::members(*extra, ef))
      pt.extra[std::string(m.key)] = R::number(m.value, Path(ef, m.key));
  }
  if (pt.samples.empty()) pt.stats = read_stored_stats(p, ff);
  read_point_summary(p, ff, pt);
  return pt;
}

void read_series(const V& j, Run& run) {
  for_each_object(j, "series", [&](const V& s, const Path& f) {
    Series ser{R::string(s, f, "group", true), R::string(s, f, "name", true), {}};
    if (!run.group(ser.group))
      throw RunFormatError("series '" + ser.name + "' names unknown group '" + ser.group + "'");
    ser.points.reserve(R::size(s, "points"));
    R::elements(s, f, "points",
                [&](const V& p, const Path& pf) { ser.points.push_back(read_point(p, pf)); });
    run.series.push_back(std::move(ser));
  });
}

void read_findings(const V& j, Run& run) {
  for_each_object(j, "findings", [&](const V& fj, const Path& f) {
    Finding fd;
    fd.id = R::string(fj, f, "id", true);
    fd.text = R::string(fj, f, "text", false);
    fd.value = R::number(fj, f, "value", true);
    if (const auto a = R::find(fj, f, "article", false))
      fd.article = R::number(*a, Path(f, "article"));
    if (R::find(fj, f, "ci", false)) fd.ci = read_estimate(fj, f, fd.value);
    if (R::find(fj, f, "verdict", false)) {
      fd.verdict = R::name_of(fj, f, "verdict", kVerdicts);
      fd.threshold = R::number(fj, f, "threshold", true);
      if (fd.threshold < 0) R::bad(Path(f, "threshold"), "is negative");
      fd.better = R::name_of(fj, f, "better", kBetters);
    }
    if (R::find(fj, f, "reproduction", false))  // derived from article and ci; checked only
      R::name_of(fj, f, "reproduction", kReproductions);
    run.findings.push_back(std::move(fd));
  });
}

void read_machine_noise(const V& j, Run& run) {
  const auto m = R::find(j, kRoot, "machine_noise", false);
  if (!m) return;
  const Path f(kRoot, "machine_noise");
  R::object(*m, f);
  MachineNoise n;
  n.load_per_core_before = R::optional_number(*m, f, "load_per_core_before");
  n.load_per_core_after = R::optional_number(*m, f, "load_per_core_after");
  n.steal_share = R::optional_number(*m, f, "steal_share");
  n.loaded = R::boolean(*m, f, "loaded", false);
  n.stolen = R::boolean(*m, f, "stolen", false);
  R::boolean(*m, f, "busy", false);  // derived: loaded or stolen
  run.machine = n;
}

// What is wrong with a text simdjson refused, and where: simdjson says what but not where, so
// nlohmann's parser (keeping no value) reads it again for the line and column — only then.
std::string why_not_json(const char* data, std::size_t size, simdjson::error_code error) {
  try {
    [[maybe_unused]] const json none =
        json::parse(data, data + size, [](int, json::parse_event_t, json&) { return false; });
  } catch (const json::exception& e) {
    return e.what();
  }
  return simdjson::error_message(error);  // nlohmann reads it (a whole number beyond 64 bits)
}

// The run in text (size bytes at data); `padded`: simdjson's padding follows them, so the
// text is parsed where it is (else simdjson copies it first).
Run run_from_text(const char* data, std::size_t size, bool padded) {
  // A byte-order mark is skipped, as nlohmann (and so Perflab before) skips it.
  if (size >= 3 && std::memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
    data += 3;
    size -= 3;
  }
  simdjson::dom::parser parser;
  V j;
  if (const auto error = parser.parse(data, size, !padded).get(j))
    throw RunFormatError("not JSON: " + why_not_json(data, size, error));
  check_run_document(j);
  Run run;
  run.experiment = R::string(j, kRoot, "experiment", true);
  run.title = R::string(j, kRoot, "title", false, run.experiment);
  if (const auto params = R::find(j, kRoot, "params", false)) {
    const Path pf(kRoot, "params");
    for (const auto& m : R::members(*params, pf))
      run.params[std::string(m.key)] = R::string(m.value, Path(pf, m.key));
  }
  read_targets(j, run);
  read_host(j, run);
  run.started_unix_ms = R::integer(j, kRoot, "started_unix_ms", 0, INT64_MAX, false);
  run.ended_unix_ms = R::integer(j, kRoot, "ended_unix_ms", 0, INT64_MAX, false);
  try {
    run.status = run_status_from_string(R::string(j, kRoot, "status", true));
  } catch (const std::invalid_argument& e) {
    R::bad(Path(kRoot, "status"), e.what());
  }
  run.message = R::string(j, kRoot, "message", false);
  run.detail = R::string(j, kRoot, "detail", false);
  read_groups(j, run);
  read_series(j, run);
  read_findings(j, run);
  run.threshold = R::number(j, kRoot, "threshold", false, run.threshold);
  if (run.threshold < 0) R::bad(Path(kRoot, "threshold"), "is negative");
  read_machine_noise(j, run);
  return run;
}

}  // namespace

Run run_from_json(const std::string& text) {
  return run_from_text(text.data(), text.size(),
                       text.capacity() - text.size() >= simdjson::SIMDJSON_PADDING);
}

Run load_run(const std::filesystem::path& path) {
  // Checked before reading: a huge file is refused by its size, a device or FIFO never read.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw RunFormatError(path.string() + ": cannot open (" +
                         (ec ? ec.message() : std::string("No such file or directory")) + ")");
  if (!std::filesystem::is_regular_file(status))
    throw RunFormatError(path.string() + ": not a regular file");
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw RunFormatError(path.string() + ": cannot read its size (" + ec.message() + ")");
  if (size > kMaxRunFileBytes)
    throw RunFormatError(path.string() + ": " + std::to_string(size / (1024 * 1024)) +
                         " MiB is larger than a run file may be (" +
                         std::to_string(kMaxRunFileBytes / (1024 * 1024)) + " MiB)");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw RunFormatError(path.string() + ": cannot open (" + std::strerror(errno) + ")");
  // Not a std::string: that would write zeros over the whole size before the file does. The
  // padding simdjson reads past the end lets it parse the text where it is.
  const auto text = std::make_unique_for_overwrite<char[]>(static_cast<std::size_t>(size) +
                                                           simdjson::SIMDJSON_PADDING);
  f.read(text.get(), static_cast<std::streamsize>(size));
  if (f.bad() || static_cast<std::uintmax_t>(f.gcount()) != size)
    throw RunFormatError(path.string() + ": read error");
  std::memset(text.get() + size, 0, simdjson::SIMDJSON_PADDING);
  try {
    return run_from_text(text.get(), static_cast<std::size_t>(size), true);
  } catch (const RunFormatError& e) {
    throw RunFormatError(path.string() + ": " + e.what());
  }
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
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write failed");
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0) fail("write failed");
  if (::close(fd) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(name.c_str());
    throw std::runtime_error(path.string() + ": write failed (" + err + ")");
  }
  return name;
}

}  // namespace

void write_files_atomically(const std::vector<std::pair<fs::path, std::string>>& files) {
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
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (fs::is_directory(st))
    throw std::runtime_error(path.string() + ": is a folder; name a file to write");
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw std::runtime_error(path.string() + ": is not a regular file; name a file to write");
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
