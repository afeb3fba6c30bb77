#pragma once
// The result model shared by every experiment, the CLI, the charts and the GUI.
//
// A Run holds groups (one chart each: "append", "read", "build time", ...), and series of
// points inside each group. A point carries its raw samples and their statistics. Points of a
// group are either categorical (label only: grouped bars) or numeric (x: lines).
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/confidence.h"
#include "common/finding.h"
#include "common/machine_noise.h"
#include "common/significance.h"
#include "common/stats.h"

namespace perflab {

enum class RunStatus { Running, Finished, Failed, Cancelled };
const char* to_string(RunStatus s);
RunStatus run_status_from_string(const std::string& s);  // throws std::invalid_argument

// How a point's repetitions ended when the run measured to a precision or to verdicts (adaptive
// repetitions).
struct PointPrecision {
  int rounds = 0;  // repetitions measured (the samples)
  // Settled: every tracked figure's interval within ±precision (with a precision), every
  // tracked ratio with a verdict (with `verdicts`).
  bool reached = false;
  double worst_half_width = 0;  // the widest tracked figure's relative half-width at the end
  // The rules in force: a precision, the verdicts, or both (a run file without it: a precision).
  bool by_precision = true, by_verdicts = false;
};
// "12 repetitions; precision reached (±1.8%)", "6 repetitions; verdicts not reached",
// "9 repetitions; precision and verdicts reached (±1.9%)".
std::string precision_text(const PointPrecision& p);

struct Point {
  std::string label;            // category ("1 writer") or the x value as text
  std::optional<double> x;      // numeric x when the group is numeric
  std::vector<double> samples;  // raw samples, in the group's unit, in the order measured
  Stats stats;                  // summarize(samples)
  // Further figures, e.g. "allocs", "p99". By convention "cpu" is the client's CPU time per op
  // in the group's unit (Google Benchmark export uses it as cpu_time).
  std::map<std::string, double> extra;
  // What the samples say about the median (summarize_point(samples), with stats): its 95%
  // interval (order statistics), the coefficient of variation and the outliers by Tukey's
  // fences (counted; every sample stays). Computed by summarize_samples().
  Estimate median_ci{};
  double cv = 0;
  Outliers outliers{};
  // Set when the run measured to a precision (parameter `precision` > 0).
  std::optional<PointPrecision> precision = std::nullopt;
};

// Fills p's stats, median_ci, cv and outliers from its samples (a point without samples keeps
// its stats and gets no interval).
void summarize_samples(Point& p);

struct Series {
  std::string group;  // Group::id this series belongs to
  std::string name;   // e.g. "iolist"
  std::vector<Point> points;
  // What each round's requests waited, as recorded (common/latency_recorder.h), encoded by
  // encode_latency() (common/latency_codec.h): one entry per round, empty when the series holds
  // no latency distribution. A percentile spectrum (Group::percentile_x) is drawn from these.
  std::vector<std::string> latency = {};
};

// A place on a numeric x axis a chart marks with a labelled line, e.g. the knee of a latency
// against throughput curve: where the series' tail starts to climb.
struct Marker {
  std::string series;  // the series it belongs to (drawn in its colour), or empty
  double x = 0;
  std::string label;  // e.g. "knee: 61,000 req/s"
};

struct Group {
  std::string id;       // e.g. "append"
  std::string title;    // e.g. "Append 100 events"
  std::string unit;     // e.g. "us/op", "ns/statement", "allocations", "req/s"
  std::string x_label;  // for numeric groups, e.g. "events per statement"
  bool numeric_x = false;
  bool lower_is_better = true;
  std::string description;  // one or two sentences: what this chart shows
  // How the chart opens (the person may change it): log scales for values spanning decades (a
  // pipeline sweep), linear for counts and shares (keys per node, percentages).
  bool log_y = false;
  bool log_x = false;     // numeric x only
  bool headline = false;  // the experiment's headline chart: a run opens on it
  // The series are parts of a whole (e.g. the phases of one append): drawn as stacked bars,
  // one stack per label. Categorical groups only.
  bool stacked = false;
  // The series the others are read against (the article's baseline: "interpolate"), empty when
  // the experiment names none; the relative view (common/relative.h) draws every series as a
  // ratio to it.
  std::string baseline_series{};
  // The series a chart shows first (the pair the article compared first: "interpolate",
  // "iolist"); the others start hidden, listed in the legend. Empty: all of them.
  std::vector<std::string> first_series{};
  // Repetition r of every series at a label was measured in the same round (interleaved), so a
  // ratio of two series pairs them (RatioOptions::interleaved).
  bool interleaved = false;
  // What the value axis shows, when the unit and a better direction do not say it: a share of
  // a whole or a count has no better direction ("keys on each node"). Empty: the unit, and
  // whether lower or higher is better.
  std::string y_label = {};
  // A percentile spectrum: x is a percentile in percent (50, 90, 99, 99.9, 99.99), drawn on
  // HdrHistogram's 1/(1 - p) axis (common/latency_spectrum.h), so each nine takes the same width.
  bool percentile_x = false;
  // Places the chart marks on its x axis (numeric groups only).
  std::vector<Marker> markers = {};
};

// A target as recorded in a run: never a password.
struct TargetInfo {
  std::string kind;      // "postgres", "redis"
  std::string address;   // conninfo / host:port with secrets removed
  bool managed = false;  // started by Perflab
  std::string version;   // server version when known
};

struct HostInfo {
  std::string cpu_model;
  int cores = 0;
  std::string kernel;
  std::string hostname;
  std::string perflab_version;
  std::string build_type;  // e.g. "Release", "Debug+ASan"
};

// A figure derived from measurements (e.g. the ratio iolist/interpolate for one writer),
// with the article's published value beside it where there is one.
inline Better better_of(const Group& g) {
  return g.lower_is_better ? Better::Lower : Better::Higher;
}

struct Run {
  static constexpr int kSchemaVersion = 1;

  std::string experiment;  // id
  std::string title;
  std::map<std::string, std::string> params;
  std::vector<TargetInfo> targets;
  HostInfo host;
  std::int64_t started_unix_ms = 0;
  std::int64_t ended_unix_ms = 0;
  RunStatus status = RunStatus::Running;
  std::string message;  // failure or cancellation reason: one line
  std::string detail;   // more about a failure (e.g. a helper program's error output), or empty
  // The person's own words about the run ("lecture 3, laptop on battery"), or empty: shown in
  // History, the report and the presentation view's title; never generated, never judged.
  std::string note;
  std::vector<Group> groups;
  std::vector<Series> series;
  std::vector<Finding> findings;
  // The threshold of practical significance the verdicts use (run parameter `threshold`).
  double threshold = 0.02;
  // Load and CPU steal of the machine around the run (absent in older run files).
  std::optional<MachineNoise> machine;

  const Group* group(const std::string& id) const;
  Group& ensure_group(const Group& g);  // adds if absent, returns the stored one
  Series& series_for(const std::string& group, const std::string& name);  // adds if absent
  const Series* find_series(const std::string& group, const std::string& name) const;
  const Point* find_point(const std::string& group, const std::string& series,
                          const std::string& label) const;
  // Adds a point to (group, series) with stats computed from its samples.
  Point& add_point(const std::string& group, const std::string& series, Point p);
};

// Whether a numeric group opens on a log x axis: when it says so (Group::log_x), or when its x
// values are all positive and span two decades or more (a sweep over sizes: 1 KiB to 1 MiB,
// 1 to 8191 events), where a linear axis crowds all but the last points into its first tenth.
bool opens_on_log_x(const Run& run, const Group& g);

// Perflab's version: the CMake project version ("0.1.0").
const char* perflab_version();

// Host facts of this machine (CPU model, cores, kernel, hostname, build).
HostInfo current_host();

// Milliseconds / microseconds since the Unix epoch, now (the system clock: timestamps, never
// durations; those take wall_ns() of common/clock.h).
std::int64_t unix_ms_now();
std::int64_t unix_us_now();

}  // namespace perflab
