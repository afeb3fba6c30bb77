// Every field of a run file round-trips: the writer (run_json_writer.cpp) and the reader
// (run_read.cpp) are two descriptions of one format, and these tests hold them together.
// full_run() sets every field of every struct of a Run; written, read and written again, the two
// texts must be the same (a field written but not read is lost) and the run read back must
// equal it field by field (a field read but not written comes back empty). Each struct's fields
// are named below in a structured binding, so a field added to a struct stops this file
// compiling until it is compared; every field the writer writes is named in written_fields().
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/latency_codec.h"
#include "common/latency_recorder.h"
#include "common/run.h"
#include "common/run_io.h"
#include "common/text.h"

using namespace perflab;
using nlohmann::json;

namespace {

// A run in which every field of every struct has a value other than its default (somewhere:
// a field of a series' point is set in one of the points at least), as the reader accepts it.
Run full_run() {
  Run r;
  r.experiment = "sharding";
  r.title = "Every field set";
  r.params = {{"events", "100"}, {"builders", "interpolate,iolist"}};
  r.targets = {{"redis", "127.0.0.1:6379", true, "7.2.4"}};
  r.host = {"Test CPU @ 3.0GHz", 8, "6.1.0-test", "bench-host", "0.1.0", "Debug+ASan"};
  r.started_unix_ms = 1'700'000'000'000;
  r.ended_unix_ms = 1'700'000'060'000;
  r.status = RunStatus::Finished;
  r.message = "finished after 60 s";
  r.detail = "the helper said: all fine";
  r.note = "laptop on battery";
  r.threshold = 0.05;

  Group bars{"append", "Append 100 events", "us/op", "", false, false, "What one append costs."};
  bars.log_y = true;
  bars.headline = true;
  bars.stacked = true;
  bars.baseline_series = "interpolate";
  bars.first_series = {"interpolate", "iolist"};
  bars.interleaved = true;
  bars.y_label = "time per append";
  r.groups.push_back(bars);
  Group spectrum{"spectrum", "Latency spectrum", "us", "percentile", true, true, "The tail."};
  spectrum.log_x = true;
  spectrum.percentile_x = true;
  spectrum.markers = {{"iolist", 99.0, "knee: 99%"}};
  r.groups.push_back(spectrum);

  // Samples with an outlier of every kind (Tukey's fences), measured to a precision.
  Point spread{"1 writer",
               std::nullopt,
               {60, 88, 96, 97, 98, 99, 99, 100, 100, 101, 101, 102, 103, 104, 112, 150},
               {},
               {{"cpu", 20.5}, {"allocs", 3}}};
  spread.precision = PointPrecision{16, true, 0.018, false, true};
  r.add_point("append", "interpolate", spread);
  r.add_point("append", "iolist", Point{"1 writer", std::nullopt, {80, 90, 85}, {}, {}});
  r.add_point("spectrum", "iolist", Point{"99", 99.0, {120, 130, 125, 140}, {}, {}});
  // A point without samples keeps its stored statistics and interval.
  Point stored{"99.9", 99.9, {}, Stats{9, 150, 180, 185, 240, 250, 30}, {}};
  Point& kept = r.add_point("spectrum", "iolist", stored);
  kept.median_ci = {180, 160, 210, 0.95, true, CiMethod::Bootstrap, 9};
  LatencyRecorder waited;
  waited.record_ns(120'000);
  waited.record_ns(950'000);
  r.series_for("spectrum", "iolist").latency = {encode_latency(waited)};

  const Estimate ratio{0.85, 0.8, 0.9, 0.9586, true, CiMethod::PairedBootstrap, 12};
  Finding compared;
  compared.id = "append.iolist_vs_interpolate";
  compared.kind = FindingKind::Comparison;
  compared.context = "1 writer";
  compared.group = "append";
  compared.comparison = {"iolist", "interpolate", "appends per second", Quantity::Throughput,
                         Better::Higher};
  compared.tool_error = ToolError{"the generator's own lag",
                                  {0.82, 0.78, 0.88, 0.95, true, CiMethod::PairedBootstrap, 12},
                                  {0.87, 0.83, 0.93, 0.95, true, CiMethod::PairedBootstrap, 12}};
  compared.value = ratio.value;
  compared.ci = ratio;
  compared.threshold = 0.05;
  compared.claim = claim_below(0.7, 1.0);
  // The same, not judged (a comparison with a reason not to judge it has no verdict).
  Finding unjudged = compared;
  unjudged.id = "append.iolist_vs_interpolate.unjudged";
  unjudged.not_judged_because = "a peer's run was too short";
  Finding share;
  share.id = "append.flush_share";
  share.kind = FindingKind::Share;
  share.part = "waiting for the WAL flush";
  share.whole = "one append";
  share.value = 0.12;
  share.ci = Estimate{0.12, 0.08, 0.15, 0.95, false, CiMethod::Bootstrap, 4};
  share.claim = claim_value(0.1, 0.05);
  Finding figure;
  figure.id = "moved";
  figure.part = "MOVED redirections the client followed";
  figure.unit = "redirections";
  figure.value = 42;
  Finding note;
  note.id = "twemproxy";
  note.kind = FindingKind::Note;
  note.part = "twemproxy left out: not installed";
  for (Finding* f : {&compared, &unjudged, &share, &figure, &note}) {
    generate_text(*f);
    r.findings.push_back(*f);
  }

  MachineNoise noise;
  noise.load_per_core_before = 0.9;
  noise.load_per_core_after = 1.4;
  noise.busy_share_before = 0.6;
  noise.steal_share = 0.07;
  noise.loaded = true;
  noise.stolen = true;
  r.machine = noise;
  return r;
}

template <class T>
std::string shown(const T& v) {
  std::ostringstream o;
  o.precision(17);
  o << std::boolalpha;
  if constexpr (std::is_same_v<T, std::string>)
    o << '"' << (v.size() > 60 ? v.substr(0, 57) + "..." : v) << '"';
  else if constexpr (std::is_enum_v<T>)
    o << "enum " << static_cast<int>(v);
  else
    o << v;
  return o.str();
}

// Walks two values of one type field by field, calling leaf() on each field that holds a value
// (a number, a string, an enum; an optional's presence, a container's size) with its path
// ("series[1].points[0].stats.median") and whether the two are the same.
struct Walk {
  std::function<void(const std::string& path, bool same, const std::string& a,
                     const std::string& b)>
      leaf;

  template <class T>
  requires std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_same_v<T, std::string>
  void walk(const std::string& path, const T& a, const T& b) {
    leaf(path, a == b, shown(a), shown(b));
  }

  // Containers: their size, then each element (one side's missing ones walked as defaults).
  template <class T>
  void walk(const std::string& path, const std::optional<T>& a, const std::optional<T>& b) {
    leaf(path, a.has_value() == b.has_value(), a ? "set" : "absent", b ? "set" : "absent");
    if (a || b) walk(path, a.value_or(T{}), b.value_or(T{}));
  }
  template <class T>
  void walk(const std::string& path, const std::vector<T>& a, const std::vector<T>& b) {
    leaf(path + ".size()", a.size() == b.size(), shown(a.size()), shown(b.size()));
    for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i)
      walk(path + "[" + std::to_string(i) + "]", i < a.size() ? a[i] : T{},
           i < b.size() ? b[i] : T{});
  }
  template <class V>
  void walk(const std::string& path, const std::map<std::string, V>& a,
            const std::map<std::string, V>& b) {
    leaf(path + ".size()", a.size() == b.size(), shown(a.size()), shown(b.size()));
    std::set<std::string> keys;
    for (const auto* m : {&a, &b})
      for (const auto& [k, v] : *m) keys.insert(k);
    for (const auto& k : keys)
      walk(path + "[" + k + "]", a.contains(k) ? a.at(k) : V{}, b.contains(k) ? b.at(k) : V{});
  }

  // The fields of a struct, by name: its `names` ("series, x, label") and each side's fields.
  template <class... F>
  void fields(const std::string& path, const char* names, const std::tuple<const F&...>& a,
              const std::tuple<const F&...>& b) {
    const std::vector<std::string> name = split_commas(names);
    const auto each = [&]<std::size_t... I>(std::index_sequence<I...>) {
      (walk(path + (path.empty() ? "" : ".") + name[I], std::get<I>(a), std::get<I>(b)), ...);
    };
    each(std::index_sequence_for<F...>{});
  }

// The walk of a struct, naming every one of its fields in a structured binding: a field added to
// a struct fails to compile here ("only 3 names provided for structured binding ... decomposes
// into 4 elements") until it is named, then set in full_run() and, when written, named in
// written_fields().
#define WALK(Type, ...)                                              \
  void walk(const std::string& path, const Type& a, const Type& b) { \
    const auto tie = [](const Type& t) {                             \
      const auto& [__VA_ARGS__] = t;                                 \
      return std::tie(__VA_ARGS__);                                  \
    };                                                               \
    fields(path, #__VA_ARGS__, tie(a), tie(b));                      \
  }

  WALK(Run, experiment, title, params, targets, host, started_unix_ms, ended_unix_ms, status,
       message, detail, note, groups, series, findings, threshold, machine)
  WALK(TargetInfo, kind, address, managed, version)
  WALK(HostInfo, cpu_model, cores, kernel, hostname, perflab_version, build_type)
  WALK(Group, id, title, unit, x_label, numeric_x, lower_is_better, description, log_y, log_x,
       headline, stacked, baseline_series, first_series, interleaved, y_label, percentile_x,
       markers)
  WALK(Marker, series, x, label)
  WALK(Series, group, name, points, latency)
  WALK(Point, label, x, samples, stats, extra, median_ci, cv, outliers, precision)
  WALK(Stats, n, min, median, mean, p95, max, stddev)
  WALK(Estimate, value, lo, hi, level, full_level, method, n)
  WALK(Outliers, fences, low_severe, low_mild, high_mild, high_severe)
  WALK(TukeyFences, low_severe, low_mild, high_mild, high_severe)
  WALK(PointPrecision, rounds, reached, worst_half_width, by_precision, by_verdicts)
  WALK(Finding, id, kind, context, group, comparison, part, whole, unit, not_judged_because,
       tool_error, value, ci, threshold, claim, text)
  WALK(ComparedPair, subject, baseline, metric, quantity, better)
  WALK(ToolError, what, low, high)
  WALK(Claim, kind, figure, lo, hi)
  WALK(MachineNoise, load_per_core_before, load_per_core_after, busy_share_before, steal_share,
       loaded, stolen)
};

#undef WALK

// "series[1].points[0].x" -> "series[].points[].x": a field, whichever element holds it.
std::string field_of(const std::string& path) {
  static const std::regex index(R"(\[[^\]]*\])");
  return std::regex_replace(path, index, "[]");
}

// The fields of two runs that differ, one line each: "path: a, b".
std::vector<std::string> differences(const Run& a, const Run& b) {
  std::vector<std::string> out;
  Walk w{[&](const std::string& path, bool same, const std::string& x, const std::string& y) {
    if (!same) out.push_back(path + ": " + x + " written, " + y + " read back");
  }};
  w.walk("", a, b);
  return out;
}

// The paths where two JSON documents differ, one line each.
void json_differences(const json& a, const json& b, const std::string& path,
                      std::vector<std::string>& out) {
  if (a.is_object() && b.is_object()) {
    std::set<std::string> keys;
    for (const json* j : {&a, &b})
      for (const auto& m : j->items()) keys.insert(m.key());
    for (const auto& k : keys) {
      const std::string at = path.empty() ? k : path + "." + k;
      if (!a.contains(k))
        out.push_back(at + ": not written the first time, written after reading back");
      else if (!b.contains(k))
        out.push_back(at + ": written, but not read back (gone when written again)");
      else
        json_differences(a[k], b[k], at, out);
    }
  } else if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (std::size_t i = 0; i < a.size(); ++i)
      json_differences(a[i], b[i], path + "[" + std::to_string(i) + "]", out);
  } else if (a != b) {
    out.push_back(path + ": written " + a.dump() + ", written again after reading " + b.dump());
  }
}

std::string lines(const std::vector<std::string>& all) {
  std::string s;
  for (const auto& l : all) s += "\n  " + l;
  return s;
}

// run written, read back and written again: the same text, and the same run field by field.
void expect_round_trip(const Run& run, const std::string& what) {
  const std::string text = run_to_json(run);
  const Run back = run_from_json(text);
  const std::string again = run_to_json(back);
  if (again != text) {
    std::vector<std::string> diff;
    json_differences(json::parse(text), json::parse(again), "", diff);
    ADD_FAILURE() << what << ": written, read and written again, the file changed:" << lines(diff);
  }
  const auto diff = differences(run, back);
  EXPECT_TRUE(diff.empty()) << what << ": fields read back other than written:" << lines(diff);
}

}  // namespace

// The run this file round-trips sets every field, each one somewhere, to a value other than its
// default: a field left at its default would round-trip even when it is never written or read.
TEST(RunRoundTrip, TheFullRunSetsEveryField) {
  std::map<std::string, bool> set;  // field -> set somewhere
  Walk w{[&](const std::string& path, bool same, const std::string&, const std::string&) {
    set[field_of(path)] |= !same;
  }};
  w.walk("", full_run(), perflab::Run{});
  std::vector<std::string> unset;
  for (const auto& [field, is_set] : set)
    if (!is_set) unset.push_back(field);
  EXPECT_TRUE(unset.empty())
      << "fields full_run() leaves at their defaults (give each a value of its own):"
      << lines(unset);
  EXPECT_GT(set.size(), 100u);  // the walk reached every struct
}

// Written and read back, every field comes back (a field read but not written does not), and
// written again, the file is the same (a field written but not read is not).
TEST(RunRoundTrip, EveryFieldWrittenIsReadBack) {
  const perflab::Run run = full_run();
  ASSERT_NO_THROW((void)run_from_json(run_to_json(run)));
  expect_round_trip(run, "full_run()");
}

namespace {

// The fields the writer writes for full_run(), each once, object by object ("[]": any element
// of an array; the keys of params and extra are the run's own). A field the writer gains must be
// named here and set in full_run(), so that it is round-tripped.
std::set<std::string> written_fields() {
  std::set<std::string> all;
  const auto add = [&](const std::string& object, std::initializer_list<const char*> fields) {
    for (const char* f : fields) all.insert(object.empty() ? f : object + "." + f);
  };
  add("", {"schema",  "schema_version", "experiment",      "title",         "params",
           "targets", "host",           "started_unix_ms", "ended_unix_ms", "started",
           "ended",   "status",         "message",         "detail",        "note",
           "groups",  "series",         "findings",        "threshold",     "machine_noise"});
  add("targets[]", {"kind", "address", "managed", "version"});
  add("host", {"cpu_model", "cores", "kernel", "hostname", "perflab_version", "build_type"});
  add("groups[]", {"id", "title", "unit", "x_label", "numeric_x", "lower_is_better", "log_y",
                   "log_x", "headline", "description", "stacked", "baseline_series", "first_series",
                   "interleaved", "y_label", "percentile_x", "markers"});
  add("groups[].markers[]", {"series", "x", "label"});
  add("series[]", {"group", "name", "points", "latency"});
  add("series[].points[]",
      {"label", "samples", "stats", "extra", "x", "ci", "cv", "outliers", "precision"});
  add("series[].points[].stats", {"n", "min", "median", "mean", "p95", "max", "stddev"});
  add("series[].points[].outliers", {"low_severe", "low_mild", "high_mild", "high_severe"});
  add("series[].points[].precision",
      {"rounds", "reached", "worst_half_width", "by_precision", "by_verdicts"});
  add("findings[]", {"id", "kind", "context", "text", "value", "group", "comparison", "threshold",
                     "not_judged_because", "tool_error", "verdict", "part", "whole", "what", "unit",
                     "ci", "claim", "reproduction"});
  add("findings[].comparison", {"subject", "baseline", "metric", "quantity", "better"});
  add("findings[].tool_error", {"what", "low", "high"});
  add("findings[].tool_error.low", {"value", "ci"});
  add("findings[].tool_error.high", {"value", "ci"});
  for (const char* interval : {"series[].points[].ci", "findings[].ci",
                               "findings[].tool_error.low.ci", "findings[].tool_error.high.ci"})
    add(interval, {"lo", "hi", "level", "full_level", "method", "n"});
  add("findings[].claim", {"kind", "figure", "lo", "hi"});
  add("machine_noise", {"loaded", "stolen", "busy", "load_per_core_before", "load_per_core_after",
                        "steal_share", "busy_share_before"});
  return all;
}

// The fields of a JSON document: every member's path, arrays' elements as "[]"; the members of
// params and of a point's extra are data, not fields.
void fields_of(const json& j, const std::string& path, std::set<std::string>& out) {
  if (path == "params" || path == "series[].points[].extra") return;
  if (j.is_object())
    for (const auto& m : j.items()) {
      const std::string at = path.empty() ? m.key() : path + "." + m.key();
      out.insert(at);
      fields_of(m.value(), at, out);
    }
  else if (j.is_array())
    for (const auto& e : j) fields_of(e, path + "[]", out);
}
}  // namespace

TEST(RunRoundTrip, EveryFieldWrittenIsOneTheTestSets) {
  std::set<std::string> written;
  fields_of(json::parse(run_to_json(full_run())), "", written);
  const std::set<std::string> named = written_fields();
  for (const auto& f : written)
    EXPECT_TRUE(named.contains(f))
        << "field \"" << f << "\" is written but the round-trip test does not set it: set it "
        << "in full_run() and name it in written_fields()";
  for (const auto& f : named)
    EXPECT_TRUE(written.contains(f))
        << "field \"" << f
        << "\" is named in written_fields() but full_run() does not make the writer "
        << "write it";
}

// The runs of every experiment the app's tests open: written, read and written again, the same.
TEST(RunRoundTrip, SampleRunsAreStable) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(PERFLAB_APP_TEST_DATA)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    const perflab::Run run = load_run(entry.path());
    expect_round_trip(run, entry.path().filename().string());
  }
  EXPECT_GT(files, 0) << "no run files in " << PERFLAB_APP_TEST_DATA;
}
