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
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string_view>

#include "common/json_doc.h"

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

using json_doc::Document;
using V = json_doc::Value;

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

// Reads a run's JSON checking the type and range of every field; a refusal names the field
// ("series[2].points[0].samples[3]") and what is wrong with it, in one line.
class FieldReader {
 public:
  explicit FieldReader(const Document& doc) : doc_(doc) {}
  const Document& doc() const { return doc_; }

  [[noreturn]] static void bad(const Path& field, const std::string& why) {
    throw RunFormatError("field \"" + field.str() + "\": " + why);
  }

  // The value of key, or nullptr when it is absent or null (then `required` refuses it).
  const V* find(const V& obj, const Path& parent, const char* key, bool required) const {
    const V* v = doc_.find(obj, key);
    if (!v || v->is_null()) {
      if (required) bad(Path(parent, key), "missing");
      return nullptr;
    }
    return v;
  }

  std::string dump(const V& v) const { return doc_.dump(v); }
  std::string shown(const V& v) const {
    std::string text = dump(v);
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return std::string(json_doc::type_name(v.kind())) + " " + text;
  }

  const V& object(const V& v, const Path& field) const {
    if (!v.is_object()) bad(field, "expected an object, got " + shown(v));
    return v;
  }
  std::span<const V> array(const V& v, const Path& field) const {
    if (!v.is_array()) bad(field, "expected an array, got " + shown(v));
    return doc_.children(v);
  }
  // An optional array member: empty when absent.
  std::span<const V> array(const V& obj, const Path& parent, const char* key) const {
    const V* v = find(obj, parent, key, false);
    return v ? array(*v, Path(parent, key)) : std::span<const V>();
  }
  // An object's members the way nlohmann::json iterates them: by key, the last of duplicates.
  std::vector<const V*> members(const V& obj, const Path& field) const {
    object(obj, field);
    std::vector<const V*> out;
    for (const V& m : doc_.children(obj)) out.push_back(&m);
    std::stable_sort(out.begin(), out.end(),
                     [&](const V* a, const V* b) { return doc_.key(*a) < doc_.key(*b); });
    // Of equal keys the last written stays (stable: it is the last of its run).
    std::vector<const V*> unique;
    for (std::size_t i = 0; i < out.size(); ++i)
      if (i + 1 == out.size() || doc_.key(*out[i]) != doc_.key(*out[i + 1]))
        unique.push_back(out[i]);
    return unique;
  }

  std::string string(const V& v, const Path& field) const {
    if (!v.is_string()) bad(field, "expected a string, got " + shown(v));
    return std::string(doc_.string(v));
  }
  std::string string(const V& obj, const Path& parent, const char* key, bool required,
                     const std::string& def = {}) const {
    const V* v = find(obj, parent, key, required);
    return v ? string(*v, Path(parent, key)) : def;
  }

  bool boolean(const V& obj, const Path& parent, const char* key, bool def) const {
    const V* v = find(obj, parent, key, false);
    if (!v) return def;
    if (!v->is_boolean()) bad(Path(parent, key), "expected true or false, got " + shown(*v));
    return v->boolean();
  }

  double number(const V& v, const Path& field) const {
    if (!v.is_number()) bad(field, "expected a number, got " + shown(v));
    const double d = v.as_double();
    if (!std::isfinite(d)) bad(field, "is not a finite number");
    return d;
  }
  double number(const V& obj, const Path& parent, const char* key, bool required,
                double def = 0) const {
    const V* v = find(obj, parent, key, required);
    return v ? number(*v, Path(parent, key)) : def;
  }

  // A whole number in [lo, hi]; a float is taken when it is integral and in range.
  std::int64_t integer(const V& obj, const Path& parent, const char* key, std::int64_t lo,
                       std::int64_t hi, bool required, std::int64_t def = 0) const {
    const V* v = find(obj, parent, key, required);
    if (!v) return def;
    const Path field(parent, key);
    const auto out_of_range = [&] {
      bad(field, dump(*v) + " is out of range " + std::to_string(lo) + ".." + std::to_string(hi));
    };
    if (v->is_number_unsigned()) {
      const auto u = v->as_uint64();
      if (u > static_cast<std::uint64_t>(hi)) out_of_range();
      return static_cast<std::int64_t>(u);
    }
    if (v->is_number_integer()) {
      const auto i = v->as_int64();
      if (i < lo || i > hi) out_of_range();
      return i;
    }
    if (v->is_number_float()) {
      const double d = v->as_double();
      if (!std::isfinite(d) || d != std::floor(d))
        bad(field, "expected a whole number, got " + dump(*v));
      // 2^63 is above every int64 (and INT64_MAX rounds up to it as a double)
      if (d < static_cast<double>(lo) || d > static_cast<double>(hi) || d >= 0x1p63) out_of_range();
      return static_cast<std::int64_t>(d);
    }
    bad(field, "expected a whole number, got " + shown(*v));
  }

  // An optional number member; absent or null gives nullopt.
  std::optional<double> optional_number(const V& obj, const Path& parent, const char* key) const {
    const V* v = find(obj, parent, key, false);
    if (!v) return std::nullopt;
    return number(*v, Path(parent, key));
  }

  // A string member naming one of an enum's values (as its to_string() spells them).
  template <class E, std::size_t N>
  E name_of(const V& obj, const Path& parent, const char* key, const E (&all)[N]) const {
    const std::string s = string(obj, parent, key, true);
    if (auto e = enum_from_string(s, all)) return *e;
    std::string allowed;
    for (E e : all) allowed += std::string(allowed.empty() ? "" : ", ") + to_string(e);
    bad(Path(parent, key), "unknown value \"" + s + "\" (expected one of: " + allowed + ")");
  }

 private:
  const Document& doc_;
};

const Path kRoot;

// The document's root, once it is JSON of the run-file schema in a version this Perflab reads.
const V& check_run_document(const FieldReader& r) {
  const V& j = r.doc().root();
  const V* schema = j.is_object() ? r.doc().find(j, "schema") : nullptr;
  if (!schema || !schema->is_string() || r.doc().string(*schema) != kSchemaName)
    throw RunFormatError("not a Perflab run file (no \"schema\": \"perflab-run\")");
  const V& version = *r.find(j, kRoot, "schema_version", true);
  const Path field(kRoot, "schema_version");
  if (!version.is_number()) r.bad(field, "expected a whole number, got " + r.shown(version));
  if (!version.is_number_integer() || version.as_int64() < 1 ||
      version.as_int64() > Run::kSchemaVersion ||
      (version.is_number_unsigned() &&
       version.as_uint64() > static_cast<std::uint64_t>(Run::kSchemaVersion)))
    r.bad(field, r.dump(version) + " is not a version this Perflab reads (1.." +
                     std::to_string(Run::kSchemaVersion) + ")");
  return j;
}

// Calls read(element, its field) for every element of the array j[name], each checked to be
// an object.
template <class Read>
void for_each_object(const FieldReader& r, const V& j, const char* name, Read read) {
  const Path list(kRoot, name);
  const auto a = r.array(j, kRoot, name);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Path f(list, i);
    read(r.object(a[i], f), f);
  }
}

void read_targets(const FieldReader& r, const V& j, Run& run) {
  for_each_object(r, j, "targets", [&](const V& t, const Path& f) {
    run.targets.push_back({r.string(t, f, "kind", true), r.string(t, f, "address", true),
                           r.boolean(t, f, "managed", false), r.string(t, f, "version", false)});
  });
}

void read_host(const FieldReader& r, const V& j, Run& run) {
  const V* h = r.find(j, kRoot, "host", false);
  if (!h) return;
  const Path f(kRoot, "host");
  r.object(*h, f);
  run.host.cpu_model = r.string(*h, f, "cpu_model", false);
  run.host.cores = static_cast<int>(r.integer(*h, f, "cores", 0, 1 << 20, false));
  run.host.kernel = r.string(*h, f, "kernel", false);
  run.host.hostname = r.string(*h, f, "hostname", false);
  run.host.perflab_version = r.string(*h, f, "perflab_version", false);
  run.host.build_type = r.string(*h, f, "build_type", false);
}

void read_groups(const FieldReader& r, const V& j, Run& run) {
  for_each_object(r, j, "groups", [&](const V& g, const Path& f) {
    Group group{r.string(g, f, "id", true),           r.string(g, f, "title", false),
                r.string(g, f, "unit", false),        r.string(g, f, "x_label", false),
                r.boolean(g, f, "numeric_x", false),  r.boolean(g, f, "lower_is_better", true),
                r.string(g, f, "description", false), r.boolean(g, f, "log_y", false),
                r.boolean(g, f, "log_x", false),      r.boolean(g, f, "headline", false)};
    group.stacked = r.boolean(g, f, "stacked", false);
    run.groups.push_back(std::move(group));
  });
}

// A point's statistics as stored, for a point without samples (one with samples has them
// computed from its samples by summarize_samples, and what is stored is not read).
Stats read_stored_stats(const FieldReader& r, const V& p, const Path& ff) {
  Stats st;
  const V* sj = r.find(p, ff, "stats", false);
  if (!sj) return st;
  const Path sf(ff, "stats");
  r.object(*sj, sf);
  st.n = static_cast<std::size_t>(r.integer(*sj, sf, "n", 0, INT64_MAX, false));
  st.min = r.number(*sj, sf, "min", false);
  st.median = r.number(*sj, sf, "median", false);
  st.mean = r.number(*sj, sf, "mean", false);
  st.p95 = r.number(*sj, sf, "p95", false);
  st.max = r.number(*sj, sf, "max", false);
  st.stddev = r.number(*sj, sf, "stddev", false);
  return st;
}

// An interval as run_to_json() writes it; value is the figure it belongs to.
Estimate read_estimate(const FieldReader& r, const V& obj, const Path& parent, double value) {
  const Path f(parent, "ci");
  const V& e = r.object(*r.find(obj, parent, "ci", true), f);
  Estimate est;
  est.value = value;
  est.lo = r.number(e, f, "lo", true);
  est.hi = r.number(e, f, "hi", true);
  est.level = r.number(e, f, "level", true);
  if (est.level < 0 || est.level > 1) r.bad(Path(f, "level"), "is not in 0..1");
  est.full_level = r.boolean(e, f, "full_level", false);
  est.method = r.name_of(e, f, "method", kCiMethods);
  if (est.lo > est.hi) r.bad(f, "lo is above hi");
  return est;
}

// The median's interval, spread and outliers of a point: recomputed from the samples (as its
// stats are); for a point without samples, the stored interval is kept. The stored fields are
// checked either way.
void read_point_summary(const FieldReader& r, const V& p, const Path& ff, Point& pt) {
  std::optional<Estimate> stored;
  if (r.find(p, ff, "ci", false)) stored = read_estimate(r, p, ff, pt.stats.median);
  const double cv = r.number(p, ff, "cv", false);
  if (cv < 0) r.bad(Path(ff, "cv"), "is negative");
  if (const V* o = r.find(p, ff, "outliers", false)) {
    const Path of(ff, "outliers");
    r.object(*o, of);
    for (const char* k : {"low_severe", "low_mild", "high_mild", "high_severe"})
      r.integer(*o, of, k, 0, INT64_MAX, false);
  }
  if (const V* pr = r.find(p, ff, "precision", false)) {
    const Path pf(ff, "precision");
    r.object(*pr, pf);
    PointPrecision prec;
    prec.rounds = static_cast<int>(r.integer(*pr, pf, "rounds", 0, INT32_MAX, true));
    prec.reached = r.boolean(*pr, pf, "reached", false);
    prec.worst_half_width = r.number(*pr, pf, "worst_half_width", false);
    pt.precision = prec;
  }
  summarize_samples(pt);
  if (pt.samples.empty()) {
    pt.cv = cv;
    if (stored) pt.median_ci = *stored;
  }
}

Point read_point(const FieldReader& r, const V& pj, const Path& ff) {
  const V& p = r.object(pj, ff);
  Point pt;
  pt.label = r.string(p, ff, "label", true);
  if (const V* x = r.find(p, ff, "x", false)) pt.x = r.number(*x, Path(ff, "x"));
  const auto samples = r.array(p, ff, "samples");
  const Path sf(ff, "samples");
  pt.samples.reserve(samples.size());
  for (std::size_t n = 0; n < samples.size(); ++n)
    pt.samples.push_back(r.number(samples[n], Path(sf, n)));
  if (const V* extra = r.find(p, ff, "extra", false)) {
    const Path ef(ff, "extra");
    for (const V* m : r.members(*extra, ef))
      pt.extra[std::string(r.doc().key(*m))] = r.number(*m, Path(ef, r.doc().key(*m)));
  }
  if (pt.samples.empty()) pt.stats = read_stored_stats(r, p, ff);
  read_point_summary(r, p, ff, pt);
  return pt;
}

void read_series(const FieldReader& r, const V& j, Run& run) {
  for_each_object(r, j, "series", [&](const V& s, const Path& f) {
    Series ser{r.string(s, f, "group", true), r.string(s, f, "name", true), {}};
    if (!run.group(ser.group))
      throw RunFormatError("series '" + ser.name + "' names unknown group '" + ser.group + "'");
    const Path pf(f, "points");
    const auto points = r.array(s, f, "points");
    ser.points.reserve(points.size());
    for (std::size_t k = 0; k < points.size(); ++k)
      ser.points.push_back(read_point(r, points[k], Path(pf, k)));
    run.series.push_back(std::move(ser));
  });
}

void read_findings(const FieldReader& r, const V& j, Run& run) {
  for_each_object(r, j, "findings", [&](const V& fj, const Path& f) {
    Finding fd;
    fd.id = r.string(fj, f, "id", true);
    fd.text = r.string(fj, f, "text", false);
    fd.value = r.number(fj, f, "value", true);
    if (const V* a = r.find(fj, f, "article", false)) fd.article = r.number(*a, Path(f, "article"));
    if (r.find(fj, f, "ci", false)) fd.ci = read_estimate(r, fj, f, fd.value);
    if (r.find(fj, f, "verdict", false)) {
      fd.verdict = r.name_of(fj, f, "verdict", kVerdicts);
      fd.threshold = r.number(fj, f, "threshold", true);
      if (fd.threshold < 0) r.bad(Path(f, "threshold"), "is negative");
      fd.better = r.name_of(fj, f, "better", kBetters);
    }
    if (r.find(fj, f, "reproduction", false))  // derived from article and ci; checked only
      r.name_of(fj, f, "reproduction", kReproductions);
    run.findings.push_back(std::move(fd));
  });
}

void read_machine_noise(const FieldReader& r, const V& j, Run& run) {
  const V* m = r.find(j, kRoot, "machine_noise", false);
  if (!m) return;
  const Path f(kRoot, "machine_noise");
  r.object(*m, f);
  MachineNoise n;
  n.load_per_core_before = r.optional_number(*m, f, "load_per_core_before");
  n.load_per_core_after = r.optional_number(*m, f, "load_per_core_after");
  n.steal_share = r.optional_number(*m, f, "steal_share");
  n.loaded = r.boolean(*m, f, "loaded", false);
  n.stolen = r.boolean(*m, f, "stolen", false);
  r.boolean(*m, f, "busy", false);  // derived: loaded or stolen
  run.machine = n;
}

}  // namespace

namespace {
Run run_from_text(std::string_view text) {
  Document doc;
  try {
    doc = Document::parse(text);
  } catch (const json_doc::ParseError& e) {
    throw RunFormatError(std::string("not JSON: ") + e.what());
  }
  const FieldReader r(doc);
  const V& j = check_run_document(r);
  Run run;
  run.experiment = r.string(j, kRoot, "experiment", true);
  run.title = r.string(j, kRoot, "title", false, run.experiment);
  if (const V* params = r.find(j, kRoot, "params", false)) {
    const Path pf(kRoot, "params");
    for (const V* m : r.members(*params, pf))
      run.params[std::string(doc.key(*m))] = r.string(*m, Path(pf, doc.key(*m)));
  }
  read_targets(r, j, run);
  read_host(r, j, run);
  run.started_unix_ms = r.integer(j, kRoot, "started_unix_ms", 0, INT64_MAX, false);
  run.ended_unix_ms = r.integer(j, kRoot, "ended_unix_ms", 0, INT64_MAX, false);
  try {
    run.status = run_status_from_string(r.string(j, kRoot, "status", true));
  } catch (const std::invalid_argument& e) {
    r.bad(Path(kRoot, "status"), e.what());
  }
  run.message = r.string(j, kRoot, "message", false);
  run.detail = r.string(j, kRoot, "detail", false);
  read_groups(r, j, run);
  read_series(r, j, run);
  read_findings(r, j, run);
  run.threshold = r.number(j, kRoot, "threshold", false, run.threshold);
  if (run.threshold < 0) r.bad(Path(kRoot, "threshold"), "is negative");
  read_machine_noise(r, j, run);
  return run;
}
}  // namespace

Run run_from_json(const std::string& text) {
  return run_from_text(text);
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
  // Not a std::string: that would write zeros over the whole size before the file does.
  const auto text = std::make_unique_for_overwrite<char[]>(static_cast<std::size_t>(size));
  f.read(text.get(), static_cast<std::streamsize>(size));
  if (f.bad() || static_cast<std::uintmax_t>(f.gcount()) != size)
    throw RunFormatError(path.string() + ": read error");
  try {
    return run_from_text(std::string_view(text.get(), static_cast<std::size_t>(size)));
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
