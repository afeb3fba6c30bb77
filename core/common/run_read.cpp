// Reading run files (load_run, run_from_json) with simdjson; nlohmann::json writes them.
//
// Two JSON libraries, one job each, because reading speed demands it. perflab-json-bench on a
// 100,000-point run (88 MB), release build, parse + build the Run, CPU time, median of 7 tries
// [min-max], ratios the median of the per-try ratios [min-max]: the hand-written reader this
// replaced (common/json_doc) took 234 ms [227-295]; simdjson 3.0's dom::parser 0.70x
// [0.53-0.97] of that; nlohmann 2.15x [1.84-2.72] through its SAX interface and 3.87x
// [3.64-4.20] through nlohmann::json. This reader, every field checked, takes 196 ms [187-222]
// (nlohmann's SAX interface 2.58x [2.32-2.80] of it), and load_run of that file 0.89x
// [0.71-1.21] of the hand-written one's wall time (perflab-window-bench load, 15 tries each,
// interleaved). A maintained library reads as fast as the hand-written one did, so that one
// went; nlohmann alone would make reading a large run over twice as slow. simdjson 3.0 cannot
// write a new document (it only re-serializes a parsed one): nlohmann writes run files, as it
// writes all of Perflab's JSON.
#include "common/run_io.h"

#include <fcntl.h>
#include <simdjson.h>
#include <sys/mman.h>
#include <unistd.h>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "common/latency_codec.h"
#include "common/run_bounds.h"
#include "common/run_fields.h"

namespace perflab {

namespace {

using nlohmann::json;
using run_fields::enum_from_string;

constexpr CiMethod kCiMethods[] = {CiMethod::None, CiMethod::OrderStatistic, CiMethod::Bootstrap,
                                   CiMethod::PairedBootstrap};
constexpr FindingKind kFindingKinds[] = {FindingKind::Comparison, FindingKind::Share,
                                         FindingKind::Figure, FindingKind::Note};
constexpr Quantity kQuantities[] = {Quantity::Time, Quantity::Throughput, Quantity::Cpu,
                                    Quantity::Count};
constexpr Claim::Kind kClaimKinds[] = {Claim::Kind::Value, Claim::Kind::Below, Claim::Kind::Above,
                                       Claim::Kind::NoChange};
constexpr Better kBetters[] = {Better::Lower, Better::Higher};

using run_fields::element_type;
using run_fields::Path;
using run_fields::V;
using R = run_fields::FieldReader;
const Path kRoot;

// The document's root, once it is JSON of the run-file schema in a version this Perflab reads.
const V& check_run_document(const V& j) {
  std::optional<V> schema;
  std::string_view name;
  if (j.is_object()) schema = R::member(j, "schema");
  if (!schema || schema->get_string().get(name) || name != kRunSchema)
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

// `n`, the number of elements of array `field`, refused when above `most`, naming the limit.
std::size_t check_size(std::size_t n, const Path& field, std::size_t most, const char* what) {
  if (n > most)
    R::bad(field, std::to_string(n) + " " + what + ", more than " + std::to_string(most) +
                      " (the most a run file may hold)");
  return n;
}

// The number of elements of an array member, refused when above `most`, naming it and the limit.
std::size_t check_count(const V& obj, const Path& parent, const char* key, std::size_t most,
                        const char* what) {
  return check_size(R::size(obj, key), Path(parent, key), most, what);
}

void read_groups(const V& j, Run& run) {
  check_count(j, kRoot, "groups", run_bounds::kMaxGroups, "groups");
  for_each_object(j, "groups", [&](const V& g, const Path& f) {
    Group group{R::string(g, f, "id", true),           R::string(g, f, "title", false),
                R::string(g, f, "unit", false),        R::string(g, f, "x_label", false),
                R::boolean(g, f, "numeric_x", false),  R::boolean(g, f, "lower_is_better", true),
                R::string(g, f, "description", false), R::boolean(g, f, "log_y", false),
                R::boolean(g, f, "log_x", false),      R::boolean(g, f, "headline", false)};
    group.stacked = R::boolean(g, f, "stacked", false);
    group.baseline_series = R::string(g, f, "baseline_series", false);
    R::elements(g, f, "first_series", [&](const V& name, const Path& nf) {
      group.first_series.push_back(R::string(name, nf));
    });
    group.interleaved = R::boolean(g, f, "interleaved", false);
    group.y_label = R::string(g, f, "y_label", false);
    group.percentile_x = R::boolean(g, f, "percentile_x", false);
    check_count(g, f, "markers", run_bounds::kMaxGroupMarkers, "markers on one chart");
    R::elements(g, f, "markers", [&](const V& m, const Path& mf) {
      R::object(m, mf);
      group.markers.push_back({R::string(m, mf, "series", false), R::number(m, mf, "x", true),
                               R::string(m, mf, "label", false)});
    });
    if (group.percentile_x && !group.numeric_x)
      R::bad(Path(f, "percentile_x"), "is set on a group without numeric x");
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
  st.min = R::measured(*sj, sf, "min", false);
  st.median = R::measured(*sj, sf, "median", false);
  st.mean = R::measured(*sj, sf, "mean", false);
  st.p95 = R::measured(*sj, sf, "p95", false);
  st.max = R::measured(*sj, sf, "max", false);
  st.stddev = R::measured(*sj, sf, "stddev", false);
  return st;
}

// An interval as run_to_json() writes it (`ci`, the member "ci" of the object at `parent`);
// value is the figure it belongs to.
Estimate read_estimate(const V& ci, const Path& parent, double value) {
  const Path f(parent, "ci");
  const V e = R::object(ci, f);
  Estimate est;
  est.value = value;
  est.lo = R::number(e, f, "lo", true);
  est.hi = R::number(e, f, "hi", true);
  est.level = R::number(e, f, "level", true);
  if (est.level < 0 || est.level > 1) R::bad(Path(f, "level"), "is not in 0..1");
  est.full_level = R::boolean(e, f, "full_level", false);
  est.method = R::name_of(e, f, "method", kCiMethods);
  est.n = static_cast<std::size_t>(R::integer(e, f, "n", 0, 1'000'000'000, false));
  if (est.lo > est.hi) R::bad(f, "lo is above hi");
  return est;
}

// The median's interval, spread and outliers of a point: recomputed from the samples (as its
// stats are); for a point without samples, the stored interval is kept. The stored fields are
// checked either way.
void read_point_summary(const V& p, const Path& ff, Point& pt) {
  std::optional<Estimate> stored;
  if (const auto ci = R::find(p, ff, "ci", false)) {
    stored = read_estimate(*ci, ff, pt.stats.median);
    if (stored->lo < 0)  // an interval of a measured median: never below zero
      R::bad(Path(Path(ff, "ci"), "lo"), "is negative, which a measured median cannot be");
  }
  const double cv = R::measured(p, ff, "cv", false);
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
    prec.worst_half_width = R::measured(*pr, pf, "worst_half_width", false);
    prec.by_precision = R::boolean(*pr, pf, "by_precision", true);
    prec.by_verdicts = R::boolean(*pr, pf, "by_verdicts", false);
    pt.precision = prec;
  }
  if (pt.samples.empty())
    if (const auto refusal = run_bounds::stored_stats_refusal(pt.stats, stored))
      R::bad(Path(ff, refusal->field), refusal->why);
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
  // x is what a sweep varies (a size, a count of clients, a budget): a quantity too.
  if (const auto x = R::find(p, ff, "x", false)) pt.x = R::measured(*x, Path(ff, "x"));
  // Found once, then counted against the bound and read (elements() refuses a non-array).
  if (const auto samples = R::find(p, ff, "samples", false)) {
    const Path sf(ff, "samples");
    simdjson::dom::array a;
    if (!samples->get_array().get(a))
      pt.samples.reserve(
          check_size(a.size(), sf, run_bounds::kMaxPointSamples, "samples in one point"));
    R::elements(*samples, sf,
                [&](const V& s, const Path& f) { pt.samples.push_back(R::measured(s, f)); });
  }
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
  check_count(j, kRoot, "series", run_bounds::kMaxSeries, "series");
  std::map<std::string, std::size_t> per_group;
  for_each_object(j, "series", [&](const V& s, const Path& f) {
    Series ser{R::string(s, f, "group", true), R::string(s, f, "name", true), {}};
    if (!run.group(ser.group))
      throw RunFormatError("series '" + ser.name + "' names unknown group '" + ser.group + "'");
    if (++per_group[ser.group] > run_bounds::kMaxGroupSeries)
      R::bad(f, "is one series too many for group '" + ser.group + "': a chart shows at most " +
                    std::to_string(run_bounds::kMaxGroupSeries));
    ser.points.reserve(R::size(s, "points"));
    R::elements(s, f, "points",
                [&](const V& p, const Path& pf) { ser.points.push_back(read_point(p, pf)); });
    // Each recorder is decoded once to refuse a damaged one here, naming it, rather than
    // where a chart draws it; together they hold at most kMaxLatencyValues values.
    if (check_count(s, f, "latency", run_bounds::kMaxSeriesRounds,
                    "latency rounds in one series")) {
      std::uint64_t values = 0;
      LatencyRecorder round;  // each decoded into it in turn
      R::elements(s, f, "latency", [&](const V& l, const Path& lf) {
        std::string text = R::string(l, lf);
        try {
          decode_latency(text, round);
        } catch (const std::exception& e) {
          R::bad(lf, e.what());
        }
        values += round.count();  // each at most kMaxLatencyValues (decode_latency): no overflow
        if (values > run_bounds::kMaxLatencyValues)
          R::bad(lf, "the series' recorders hold " + std::to_string(values) +
                         " values up to here, more than 2^53 (" +
                         std::to_string(run_bounds::kMaxLatencyValues) + ")");
        ser.latency.push_back(std::move(text));
      });
    }
    run.series.push_back(std::move(ser));
  });
}

// A finding's model; its words and judgements are derived from it again. A finding of a file
// written before the model (no "kind") keeps its stored text as what it is about, its interval,
// and its article's figure as a claim of that value within the run's threshold.
Finding read_finding(const V& fj, const Path& f, double run_threshold) {
  Finding fd;
  fd.id = R::string(fj, f, "id", true);
  fd.value = R::number(fj, f, "value", true);
  if (const auto ci = R::find(fj, f, "ci", false)) {
    fd.ci = read_estimate(*ci, f, fd.value);
    if (fd.ci->has_interval() && !(fd.ci->lo <= fd.value && fd.value <= fd.ci->hi))
      R::bad(Path(f, "value"), "lies outside its interval");
  }
  if (!R::find(fj, f, "kind", false)) {
    fd.kind = FindingKind::Figure;
    fd.part = R::string(fj, f, "text", false);
    if (const auto a = R::find(fj, f, "article", false)) {
      const double article = R::number(*a, Path(f, "article"));
      fd.claim = claim_value(article, std::max(std::abs(article) * run_threshold, 1e-9));
    }
    generate_text(fd);
    return fd;
  }
  fd.kind = R::name_of(fj, f, "kind", kFindingKinds);
  fd.context = R::string(fj, f, "context", false);
  fd.group = R::string(fj, f, "group", false);
  switch (fd.kind) {
    case FindingKind::Comparison: {
      const Path cf(f, "comparison");
      const V c = R::object(*R::find(fj, f, "comparison", true), cf);
      fd.comparison.subject = R::string(c, cf, "subject", true);
      fd.comparison.baseline = R::string(c, cf, "baseline", true);
      fd.comparison.metric = R::string(c, cf, "metric", true);
      fd.comparison.quantity = R::name_of(c, cf, "quantity", kQuantities);
      fd.comparison.better = R::name_of(c, cf, "better", kBetters);
      fd.threshold = R::number(fj, f, "threshold", true);
      if (fd.threshold < 0) R::bad(Path(f, "threshold"), "is negative");
      fd.not_judged_because = R::string(fj, f, "not_judged_because", false);
      if (const auto t = R::find(fj, f, "tool_error", false)) {
        const Path tf(f, "tool_error");
        const V te = R::object(*t, tf);
        ToolError e;
        e.what = R::string(te, tf, "what", true);
        const auto end = [&](const char* name) {
          const Path ef(tf, name);
          const V ev = R::object(*R::find(te, tf, name, true), ef);
          const double value = R::number(ev, ef, "value", true);
          return read_estimate(*R::find(ev, ef, "ci", true), ef, value);
        };
        e.low = end("low");
        e.high = end("high");
        fd.tool_error = std::move(e);
      }
      if (!(fd.value > 0)) R::bad(Path(f, "value"), "a ratio must be positive");
      break;
    }
    case FindingKind::Share:
      fd.part = R::string(fj, f, "part", true);
      fd.whole = R::string(fj, f, "whole", true);
      break;
    case FindingKind::Figure:
    case FindingKind::Note:
      fd.part = R::string(fj, f, "what", true);
      fd.unit = R::string(fj, f, "unit", false);
      break;
  }
  if (const auto c = R::find(fj, f, "claim", false)) {
    const Path cf(f, "claim");
    R::object(*c, cf);
    Claim claim;
    claim.kind = R::name_of(*c, cf, "kind", kClaimKinds);
    claim.figure = R::number(*c, cf, "figure", true);
    claim.lo = R::number(*c, cf, "lo", false, 0);
    claim.hi = R::number(*c, cf, "hi", false, std::numeric_limits<double>::infinity());
    if (claim.lo > claim.hi) R::bad(cf, "lo is above hi");
    fd.claim = claim;
  }
  generate_text(fd);
  return fd;
}

void read_findings(const V& j, Run& run) {
  for_each_object(j, "findings", [&](const V& fj, const Path& f) {
    run.findings.push_back(read_finding(fj, f, run.threshold));
  });
}

void read_machine_noise(const V& j, Run& run) {
  const auto m = R::find(j, kRoot, "machine_noise", false);
  if (!m) return;
  const Path f(kRoot, "machine_noise");
  R::object(*m, f);
  MachineNoise n;
  n.load_per_core_before = R::optional_measured(*m, f, "load_per_core_before");
  n.load_per_core_after = R::optional_measured(*m, f, "load_per_core_after");
  n.steal_share = R::optional_measured(*m, f, "steal_share");
  n.busy_share_before = R::optional_measured(*m, f, "busy_share_before");
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
  if (run.ended_unix_ms != 0 && run.ended_unix_ms < run.started_unix_ms)
    R::bad(Path(kRoot, "ended_unix_ms"),
           "is before started_unix_ms: a run cannot end before it starts");
  try {
    run.status = run_status_from_string(R::string(j, kRoot, "status", true));
  } catch (const std::invalid_argument& e) {
    R::bad(Path(kRoot, "status"), e.what());
  }
  run.message = R::string(j, kRoot, "message", false);
  run.detail = R::string(j, kRoot, "detail", false);
  run.note = R::string(j, kRoot, "note", false);
  read_groups(j, run);
  read_series(j, run);
  run.threshold = R::number(j, kRoot, "threshold", false, run.threshold);
  if (run.threshold < 0) R::bad(Path(kRoot, "threshold"), "is negative");
  read_findings(j, run);
  read_machine_noise(j, run);
  return run;
}

// A run file's text with simdjson's padding readable after it, so that it is parsed where it is.
// Mapped from the page cache when the padding fits in the rest of the file's last page (the
// kernel fills it with zeros; 63 sizes in 64), else read into a buffer of our own. Mapping
// neither copies the text nor faults in fresh memory for it: a 90 MB run is in place in 6-10 ms
// where reading it took 170-215 ms (wall, then parsed by simdjson in the same program, 3 tries
// each, on a loaded 2-core machine). Perflab replaces a run file by renaming a new one over it
// (write_file_atomically), so it never cuts short a file mapped here; another program doing so
// while it is read would stop Perflab (SIGBUS), as it would any program reading by mapping.
class PaddedText {
 public:
  PaddedText(const std::filesystem::path& path, std::size_t size) : size_(size) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      throw RunFormatError(path.string() + ": cannot open (" + std::strerror(errno) + ")");
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    if (size % page != 0 && page - size % page >= simdjson::SIMDJSON_PADDING) {
      void* at = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (at != MAP_FAILED) {
        mapped_ = static_cast<const char*>(at);
        ::close(fd);
        return;
      }
    }
    // Not a std::string: that would write zeros over the whole size before the file does.
    read_ = std::make_unique_for_overwrite<char[]>(size + simdjson::SIMDJSON_PADDING);
    std::size_t got = 0;
    while (got < size) {
      const ssize_t n = ::read(fd, read_.get() + got, size - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(fd);
        throw RunFormatError(path.string() + ": read error");
      }
      got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    std::memset(read_.get() + size, 0, simdjson::SIMDJSON_PADDING);
  }
  ~PaddedText() {
    if (mapped_) ::munmap(const_cast<char*>(mapped_), size_);
  }
  PaddedText(const PaddedText&) = delete;
  PaddedText& operator=(const PaddedText&) = delete;

  const char* data() const { return mapped_ ? mapped_ : read_.get(); }
  std::size_t size() const { return size_; }

 private:
  std::size_t size_;
  const char* mapped_ = nullptr;
  std::unique_ptr<char[]> read_;
};

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
  const PaddedText text(path, static_cast<std::size_t>(size));
  try {
    return run_from_text(text.data(), text.size(), true);
  } catch (const RunFormatError& e) {
    throw RunFormatError(path.string() + ": " + e.what());
  }
}

}  // namespace perflab
