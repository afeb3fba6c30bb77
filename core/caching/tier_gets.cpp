// The caching experiment's tier matrix: each tier and encoding stores the records, then the gets
// of both workloads from every cell are timed round by round, the cells taking turns (wall,
// client CPU, and each get's parts alone: fetch, decode, check), each server's CPU per get in a
// window of its own, and the points and findings published.
#include <algorithm>
#include <array>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "caching/caching_run.h"
#include "common/clock.h"
#include "common/sample_calls.h"
#include "common/significance.h"
#include "common/stats.h"
#include "runner/expected_progress.h"
#include "runner/rounds.h"

namespace perflab::caching {

namespace {

// What one workload's gets from one tier measured: the whole get and each of its parts alone.
struct Measurement {
  std::vector<double> wall_us, cpu_us;  // a whole get, per get, one per sample
  // Each part (kGetParts' order), per part, one sample per round: sample r of every part was
  // taken in the round of the whole get's sample r.
  std::array<std::vector<double>, kGetPartCount> part_wall_us, part_cpu_us;
  std::optional<double> server_cpu_us;
  int gets_per_sample = 1;
  std::array<int, kGetPartCount> parts_per_sample{};
  std::optional<PointPrecision> precision;  // when measured to a precision
};

// A sample of gets or of a part lasts at least this long; at most this many calls.
constexpr std::int64_t kSampleNs = 20'000, kMaxCalls = 10'000;

// One workload of one cell being measured: its get and its parts, the calls each sample makes,
// and its samples so far. A round of it is a sample of whole gets and one of fetches (their
// order alternating round by round), a fetch of that round, then a sample of decodes of it and
// one of checks of the object decoded last; one untimed get first brings the cell's data back
// into the caches after the other cells' rounds.
class CellGets {
 public:
  // `bytes`: what the tier stores for the record, read when it was stored (a failed server is
  // not asked again when the points are published).
  CellGets(Tier& tier, const std::string& tier_name, const std::string& workload, WorkloadGet get,
           std::size_t bytes)
      : tier_(tier),
        tier_name_(tier_name),
        workload_(workload),
        bytes_(bytes),
        get_(std::move(get)) {}

  const std::string& tier_name() const { return tier_name_; }
  const std::string& workload() const { return workload_; }
  std::size_t bytes() const { return bytes_; }
  bool has_server() const { return tier_name_ != "local"; }
  const Measurement& measurement() const { return m_; }
  void set_precision(std::optional<PointPrecision> p) { m_.precision = p; }

  // `warmup` untimed gets, then the calls per sample of the whole get and of each part.
  void calibrate(RunContext& ctx, int warmup) {
    for (int i = 0; i < warmup; ++i) {
      ctx.check_stop();
      whole();
    }
    m_.gets_per_sample = whole_keys(calls_per_sample([&] { whole(); }, kSampleNs, kMaxCalls));
    for (std::size_t k = 0; k < kGetPartCount; ++k) {
      if (k == 1) part(0);  // a decode needs a fetch, a check a decode: the fetch before
      const std::int64_t calls = calls_per_sample([&, k] { part(k); }, kSampleNs, kMaxCalls);
      m_.parts_per_sample[k] = k == 0 ? whole_keys(calls) : static_cast<int>(calls);
    }
  }

  // One round; returns its samples' wall times (the whole get, then each part).
  std::array<double, 1 + kGetPartCount> round(int r) {
    whole();
    const auto wholes = [&] {
      get_.restart(0);
      sample([&] { whole(); }, m_.gets_per_sample, m_.wall_us, m_.cpu_us);
    };
    const auto fetches = [&] {
      get_.restart(0);
      sample([&] { part(0); }, m_.parts_per_sample[0], m_.part_wall_us[0], m_.part_cpu_us[0]);
    };
    if (r % 2 == 0) {
      wholes(), fetches();
    } else {
      fetches(), wholes();
    }
    // What the decodes decode: a fetch of this round, of each key in turn (fetched untimed
    // before its own decodes and checks), so that these samples too are of every key alike.
    std::array<std::int64_t, kGetPartCount> wall_ns{}, cpu_ns{};
    for (std::size_t key = 0; key < get_.keys(); ++key) {
      get_.restart(key);
      part(0);
      for (std::size_t k = 1; k < kGetPartCount; ++k) {
        Stopwatch sw;
        for (int i = 0; i < m_.parts_per_sample[k]; ++i) part(k);
        cpu_ns[k] += sw.cpu_elapsed_ns();
        wall_ns[k] += sw.wall_elapsed_ns();
      }
    }
    for (std::size_t k = 1; k < kGetPartCount; ++k) {
      const double calls =
          static_cast<double>(m_.parts_per_sample[k]) * static_cast<double>(get_.keys());
      m_.part_wall_us[k].push_back(static_cast<double>(wall_ns[k]) / 1e3 / calls);
      m_.part_cpu_us[k].push_back(static_cast<double>(cpu_ns[k]) / 1e3 / calls);
    }
    return {m_.wall_us.back(), m_.part_wall_us[0].back(), m_.part_wall_us[1].back(),
            m_.part_wall_us[2].back()};
  }

  // The server's CPU per get: gets alone for `window_ns` (and a sample's worth at least), the
  // server's counter read before and after (10 ms ticks for /proc: the window gives it
  // something to count). Its own window, after the rounds: Redis's counter is the whole
  // server's, which the other cells' rounds would share. `on_progress` hears the share gone.
  void server_window(RunContext& ctx, std::int64_t window_ns,
                     const std::function<void(double)>& on_progress) {
    const std::optional<std::int64_t> s0 = tier_.server_cpu_ns();
    if (!s0) return;
    const std::int64_t start = wall_ns();
    std::int64_t gets = 0;
    for (std::int64_t gone; (gone = wall_ns() - start) < window_ns || gets < m_.gets_per_sample;
         ++gets) {
      ctx.check_stop();
      if (window_ns > 0) on_progress(std::min(1.0, static_cast<double>(gone) / window_ns));
      whole();
    }
    const std::optional<std::int64_t> s1 = tier_.server_cpu_ns();
    if (s1 && gets > 0)
      m_.server_cpu_us = static_cast<double>(*s1 - *s0) / 1e3 / static_cast<double>(gets);
  }

 private:
  // A sample of whole gets or fetches takes every key of the workload as often (the query's:
  // each sample from the first key on), so that its samples, and those of every cell, are of
  // the same keys: `calls` rounded up to a multiple of the keys.
  int whole_keys(std::int64_t calls) const {
    const auto keys = static_cast<std::int64_t>(get_.keys());
    return static_cast<int>((calls + keys - 1) / keys * keys);
  }
  std::runtime_error lost() const {
    return std::runtime_error("the " + tier_.name() + " tier (" +
                              to_string(tier_.codec().encoding) + ") no longer holds the record");
  }
  void whole() {
    if (!get_.get()) throw lost();
  }
  void part(std::size_t k) {
    const bool ok = k == 0 ? get_.fetch() : k == 1 ? get_.decode() : get_.check();
    if (!ok) throw lost();
  }
  template <class Op>
  static void sample(const Op& op, int calls, std::vector<double>& wall, std::vector<double>& cpu) {
    Stopwatch sw;
    for (int i = 0; i < calls; ++i) op();
    const std::int64_t c = sw.cpu_elapsed_ns();
    const std::int64_t w = sw.wall_elapsed_ns();
    wall.push_back(static_cast<double>(w) / 1e3 / calls);
    cpu.push_back(static_cast<double>(c) / 1e3 / calls);
  }

  Tier& tier_;
  std::string tier_name_, workload_;
  std::size_t bytes_;
  WorkloadGet get_;
  Measurement m_;
};

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// "redis, protobuf": a stack of the parts charts; never a measured figure (Compare matches on it).
std::string cell_label(const std::string& tier_name, const std::string& series) {
  return tier_name + ", " + series;
}

// What a workload's charts are of: "one 60 KB document by key", "your query's rows, 40 keys".
std::string workload_words(const CachingPlan& plan, const Workloads& workloads,
                           const std::string& w) {
  if (w == "document")
    return "one " + std::to_string(plan.doc_bytes / 1024) + " KB document by key";
  if (w == "list") return "a list of " + std::to_string(plan.list_size) + " comments";
  const std::size_t keys = workloads.results ? workloads.results->size() : 0;
  return "your query's rows, " + std::to_string(keys) + (keys == 1 ? " key" : " keys") + " in turn";
}

void add_matrix_groups(RunContext& ctx, const CachingPlan& plan, const Workloads& workloads) {
  const std::vector<std::string> names = workloads.names();
  for (const std::string& W : names) {
    const std::string what = workload_words(plan, workloads, W);
    Group wall{W + "_wall",
               "Wall time per get: " + what,
               "us/get",
               "",
               false,
               true,
               W == "query"
                   ? "Median wall time of one get returning the query's rows as a ready object "
                     "(fetch, decode, check), the keys in turn: PostgreSQL runs your query "
                     "read-only (native); Redis and local memory hold a copy of its rows in each "
                     "encoding (native: MessagePack in Redis, the object itself locally)."
                   : "Median wall time of one get returning a ready object (fetch, decode, "
                     "check); bars per tier, one per encoding: native is typed rows in "
                     "PostgreSQL, MessagePack in Redis and the object itself in local memory.",
               false,
               false,
               W == names.front()};
    wall.baseline_series = "native";  // the article's protobuf findings read against it
    ctx.add_group(wall);
    ctx.add_group({W + "_cpu", "Client CPU per get: " + what, "us/get", "", false, true,
                   "CPU time of the client thread per get (fetch, copy, decode)."});
    ctx.add_group({W + "_server_cpu", "Server CPU per get: " + what, "us/get", "", false, true,
                   "CPU the server spent per get, the article's api_cpu: the PostgreSQL "
                   "backend process (managed servers only, /proc) and redis-server (INFO "
                   "used_cpu_sys + used_cpu_user)."});
    ctx.add_group({W + "_bytes", "Bytes stored: " + what, "bytes", "", false, true,
                   "Size of the stored record in each tier and encoding (PostgreSQL: after "
                   "TOAST compression)."});
    const std::string parts_how =
        "Each part of a get timed alone, in the rounds of the whole get: the fetch (request, "
        "wire, server, and the client library reading the reply), the decode into the ready "
        "object, and the check that it is the record asked for. A part is its median; ";
    Group share{W + "_get_parts",
                "Where a get's time goes: " + what,
                "% of one get",
                "",
                false,
                true,
                parts_how +
                    "100% is the median whole get, so a stack's height is what the parts add up "
                    "to (the figures of a part give its µs, the whole get's and the sum's ratio "
                    "to it with its interval)."};
    share.stacked = true;
    share.y_label = "% of one get (its parts stacked)";  // a share: no better direction
    ctx.add_group(share);
    Group us{W + "_get_parts_us",
             "Where a get's time goes, in µs: " + what,
             "us/get",
             "",
             false,
             true,
             parts_how + "stacked in µs per get."};
    us.stacked = true;
    ctx.add_group(us);
  }
}

// What each part of the matrix is expected to take when one get takes `get_s`: a calibration
// (the warm-up gets, then five windows of at least 40 µs or one call for the whole get and each
// part); a round (an untimed get, samples of at least 20 µs of whole gets and of fetches, a
// fetch, and two short samples of decodes and checks).
double calibration_s(const CachingPlan& plan, double get_s) {
  return plan.warmup * get_s + 5 * (2 * std::max(40e-6, get_s) + 80e-6);
}
double round_s(double get_s) {
  return 2 * get_s + 2 * std::max(get_s, 20e-6) + 40e-6;
}

// The parts of a get as two stacks of one cell (label "tier, encoding"): in % of the median
// whole get, and in µs. Each point's figures: the part's median µs and client CPU, the whole
// get's median, and the ratio (sum of the parts) / whole over the same rounds with its interval.
void publish_parts(RunContext& ctx, const std::string& workload, const std::string& label,
                   const Measurement& m) {
  const double whole = summarize(m.wall_us).median;
  if (!(whole > 0) || m.part_wall_us[0].empty()) return;
  std::vector<double> sums(m.wall_us.size(), 0.0);
  for (const auto& part : m.part_wall_us)
    for (std::size_t r = 0; r < sums.size() && r < part.size(); ++r) sums[r] += part[r];
  const std::optional<Estimate> adds_up = ratio_ci(sums, m.wall_us);
  for (std::size_t k = 0; k < kGetPartCount; ++k) {
    Point pct{label, std::nullopt, {}, {}, {}};
    for (double us : m.part_wall_us[k]) pct.samples.push_back(100.0 * us / whole);
    pct.precision = m.precision;
    pct.extra["us"] = summarize(m.part_wall_us[k]).median;
    pct.extra["cpu_us"] = summarize(m.part_cpu_us[k]).median;
    pct.extra["whole_us"] = whole;
    pct.extra["calls_per_sample"] = m.parts_per_sample[k];
    if (adds_up) {
      pct.extra["parts_vs_whole"] = adds_up->value;
      pct.extra["parts_vs_whole_lo"] = adds_up->lo;
      pct.extra["parts_vs_whole_hi"] = adds_up->hi;
    }
    Point us{label, std::nullopt, m.part_wall_us[k], {}, {}};
    us.precision = m.precision;
    us.extra = pct.extra;
    ctx.add_point(workload + "_get_parts", to_string(kGetParts[k]), std::move(pct));
    ctx.add_point(workload + "_get_parts_us", to_string(kGetParts[k]), std::move(us));
  }
}

// Publishes what one workload of one cell measured (wall, client CPU, server CPU, bytes, the
// parts); returns the cell the findings compare.
Cell publish_cell(RunContext& ctx, const CellGets& gets, const std::string& series) {
  const Measurement& m = gets.measurement();
  const std::string& tier_name = gets.tier_name();
  const std::string& workload = gets.workload();
  const std::size_t bytes = gets.bytes();
  Cell c;
  c.local = !gets.has_server();
  c.cpu_us = mean(m.cpu_us);
  c.server_cpu_us = m.server_cpu_us;

  Point wall{tier_name, std::nullopt, m.wall_us, {}, {}};
  wall.precision = m.precision;
  wall.extra["cpu_us"] = c.cpu_us;
  if (c.server_cpu_us) wall.extra["server_cpu_us"] = *c.server_cpu_us;
  wall.extra["bytes"] = static_cast<double>(bytes);
  wall.extra["gets_per_sample"] = m.gets_per_sample;
  ctx.add_point(workload + "_wall", series, std::move(wall));

  Point cpu{tier_name, std::nullopt, m.cpu_us, {}, {}};
  cpu.precision = m.precision;
  if (c.server_cpu_us) cpu.extra["server_cpu_us"] = *c.server_cpu_us;
  if (auto t = c.total_cpu_us()) cpu.extra["total_cpu_us"] = *t;
  ctx.add_point(workload + "_cpu", series, std::move(cpu));

  if (c.server_cpu_us) {
    Point sp{tier_name, std::nullopt, {*c.server_cpu_us}, {}, {}};
    ctx.add_point(workload + "_server_cpu", series, std::move(sp));
  }
  ctx.add_point(workload + "_bytes", series,
                Point{tier_name, std::nullopt, {static_cast<double>(bytes)}, {}, {}});
  publish_parts(ctx, workload, cell_label(tier_name, series), m);
  c.wall_us = summarize(m.wall_us).median;
  c.wall_samples = m.wall_us;
  c.cpu_samples = m.cpu_us;
  c.part_wall_samples = m.part_wall_us;
  c.part_cpu_samples = m.part_cpu_us;
  return c;
}

}  // namespace

// How far the whole gets' means stand above their medians, summed over the cells (the rounds'
// samples so far): about 1 on a quiet machine, more when the gets wait for a core now and then
// (aside_load).
double mean_over_median(const std::vector<CellGets>& gets) {
  double means = 0, medians = 0;
  for (const auto& g : gets) {
    const Stats s = summarize(g.measurement().wall_us);
    means += s.mean;
    medians += s.median;
  }
  return medians > 0 ? means / medians : 1.0;
}
// The rounds that tell the pace: a tenth of them, and this many at least.
constexpr int kLearnFromRounds = 10;

// Every (tier, encoding) of the matrix: records stored and checked, then the gets of both
// workloads from every cell measured round by round, the cells taking turns (the order rotated),
// so that a slow moment of the machine hits every cell alike and the findings compare cells of
// the same rounds (paired); then each server's CPU per get in a window of its own; then the
// points and findings, also when a stop or a failure ends the rounds. The progress follows the
// time each part is expected to take: from one get of each cell and workload timed when it was
// stored (a list decoded from JSON can take a hundred times a document's), a store what the
// last one took.
void run_matrix(RunContext& ctx, const CachingPlan& plan, const CachingServers& servers,
                const Workloads& workloads, double from,
                const std::function<double(const MatrixPace&)>& end_for) {
  add_matrix_groups(ctx, plan, workloads);
  const std::vector<std::string> names = workloads.names();
  struct Stored {
    std::string tier_name;
    Encoding enc;
    std::unique_ptr<Tier> tier;
  };
  // Before any is timed: a store, a get, and the findings (CPU work: 0.05 to 0.7 s, 0.6 s in the
  // default plan here).
  constexpr double kStoreS = 0.05, kGetS = 1e-3, kFindingsS = 0.6;
  const std::size_t kWorkloadCount = names.size();
  std::vector<std::pair<std::string, Encoding>> matrix;
  for (const auto& tier_name : plan.tiers) {
    if (workloads.results && tier_name == "postgres") {  // the user's query, its own form only
      matrix.emplace_back(tier_name, Encoding::Native);
      continue;
    }
    for (Encoding enc : plan.encodings) matrix.emplace_back(tier_name, enc);
  }
  const std::size_t n = matrix.size() * kWorkloadCount;  // cells × workloads
  const double window_s = static_cast<double>(plan.window_ns) / 1e9;
  ExpectedProgress progress(from, from);
  const auto expected_s = [&progress] {
    double s = 0;
    for (std::size_t i = 0; i < progress.size(); ++i) s += progress.expected(i);
    return s;
  };
  for (std::size_t k = 0; k < matrix.size(); ++k) progress.add(kStoreS);
  const std::size_t first_calibration = progress.size();
  for (std::size_t i = 0; i < n; ++i) progress.add(calibration_s(plan, kGetS));
  const std::size_t rounds_part = progress.add(plan.reps * round_s(kGetS) * double(n));
  const std::size_t first_window = progress.size();
  for (std::size_t i = 0; i < n; ++i)
    progress.add(matrix[i / kWorkloadCount].first != "local" ? std::max(window_s, 20e-6) : 0);
  const std::size_t findings_part = progress.add(kFindingsS);
  // Before the rounds: the matrix's seconds, nothing told yet of the machine.
  const auto quiet_pace = [&] {
    MatrixPace pace;
    pace.seconds = expected_s();
    return pace;
  };
  progress.end_at(end_for(quiet_pace()));

  std::vector<Stored> stored;
  std::vector<CellGets> gets;           // each (cell, workload), in names' order within a cell
  gets.reserve(n);                      // never moved: each holds its tier's get
  std::vector<double> get_s(n, kGetS);  // one get of each (cell, workload), timed at its store
  for (const auto& [tier_name, enc] : matrix) {
    ctx.check_stop();
    const std::size_t k = stored.size();
    const std::string series = to_string(enc);
    ctx.progress(progress.at(k), "storing records in " + tier_name + " (" + series + ")");
    const std::int64_t began = wall_ns();
    Stored s{tier_name, enc,
             make_tier(tier_name, Codec{enc, plan.zlib_level}, servers, plan.local_budget,
                       ctx.stop_token())};
    workloads.store_and_check(*s.tier, tier_name, series);
    stored.push_back(std::move(s));
    for (std::size_t w = 0; w < kWorkloadCount; ++w) {
      Tier& tier = *stored.back().tier;
      gets.emplace_back(tier, tier_name, names[w], workloads.get(tier, names[w]),
                        workloads.bytes(tier, names[w]));
      WorkloadGet get = workloads.get(tier, names[w]);
      const std::int64_t t0 = wall_ns();
      get.get();  // checked when measured
      get_s[k * kWorkloadCount + w] = static_cast<double>(wall_ns() - t0) / 1e9;
      progress.expect(first_calibration + k * kWorkloadCount + w,
                      calibration_s(plan, get_s[k * kWorkloadCount + w]));
    }
    const double store_s = static_cast<double>(wall_ns() - began) / 1e9;
    for (std::size_t j = k + 1; j < matrix.size(); ++j) progress.expect(j, store_s);  // as long
    double round = 0;
    for (std::size_t i = 0; i < n; ++i) round += round_s(get_s[i]);
    progress.expect(rounds_part, plan.reps * round);
  }
  progress.end_at(end_for(quiet_pace()));
  const auto measure = [&] {
    for (std::size_t i = 0; i < n; ++i) {
      const Stored& s = stored[i / kWorkloadCount];
      ctx.progress(progress.at(first_calibration + i), "warming up " + gets[i].workload() +
                                                           " gets from " + s.tier_name + " (" +
                                                           to_string(s.enc) + ")");
      gets[i].calibrate(ctx, plan.warmup);
    }
    // With a precision: rounds until every cell's median whole get is that precise.
    constexpr std::size_t kPer = 1 + kGetPartCount;
    PointRounds rounds(ctx, 0, plan.reps, n * kPer);
    for (std::size_t i = 0; i < n; ++i) rounds.track_median(i * kPer);
    std::vector<double> walls(n * kPer);
    // The run's pace, learned as the rounds go: theirs from the rounds done, and how busy the
    // machine is from how far the gets' means stand above their medians.
    const int learn_from = std::max(kLearnFromRounds, plan.reps / 10);
    const std::int64_t rounds_began = wall_ns();
    ctx.progress(progress.at(rounds_part), "measuring the gets of every tier and encoding");
    for (int r = 0; rounds.next(); ++r) {
      for (std::size_t j = 0; j < n; ++j) {
        ctx.check_stop();
        const std::size_t i = (j + static_cast<std::size_t>(r)) % n;
        const auto round = gets[i].round(r);
        std::copy(round.begin(), round.end(), walls.begin() + static_cast<long>(i * kPer));
      }
      rounds.record(walls);
      const double within = std::min(1.0, double(r + 1) / plan.reps);
      if (r + 1 >= learn_from && within < 1) {
        const double rounds_s = static_cast<double>(wall_ns() - rounds_began) / 1e9 / within;
        MatrixPace pace;
        pace.seconds = expected_s() - progress.expected(rounds_part) + rounds_s;
        pace.mean_over_median = mean_over_median(gets);
        for (std::size_t k = 0; k < stored.size(); ++k)
          if (stored[k].tier_name == "redis" && names.front() == "document")
            pace.redis_document_s[stored[k].enc] =
                summarize(gets[k * kWorkloadCount].measurement().wall_us).median / 1e6;
        progress.reshare(within, rounds_s, end_for(pace));
      }
      ctx.progress(progress.at(rounds_part, within),
                   "measuring the gets of every tier and encoding: " + rounds.progress_text());
    }
    for (auto& g : gets) g.set_precision(rounds.precision());
    for (std::size_t i = 0; i < n; ++i) {
      if (!gets[i].has_server()) continue;
      const Stored& s = stored[i / kWorkloadCount];
      const std::string step = "measuring the server's CPU per " + gets[i].workload() +
                               " get from " + s.tier_name + " (" + to_string(s.enc) + ")";
      double reported = -1;
      gets[i].server_window(ctx, plan.window_ns, [&](double gone) {
        if (gone - reported < 0.05) return;
        reported = gone;
        ctx.progress(progress.at(first_window + i, gone), step);
      });
    }
  };
  const auto publish = [&] {
    std::map<std::tuple<std::string, std::string, std::string>, Cell> cells;
    for (std::size_t i = 0; i < gets.size(); ++i) {
      if (gets[i].measurement().wall_us.empty()) continue;
      const Stored& s = stored[i / kWorkloadCount];
      const std::string series = to_string(s.enc);
      cells[{gets[i].workload(), s.tier_name, series}] = publish_cell(ctx, gets[i], series);
    }
    ctx.progress(progress.at(findings_part), "updating the findings");
    if (workloads.results) {
      query_findings(ctx, cells);
    } else {
      findings(ctx, cells);
    }
  };
  publish_after(publish, measure);
}

}  // namespace perflab::caching
