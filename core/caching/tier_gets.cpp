// The caching experiment's tier matrix: each tier and encoding stores the records, then the gets
// of both workloads are timed (wall, client CPU, server CPU, bytes), each get's parts (fetch,
// decode, check) alone beside it, and the findings updated.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "caching/caching_run.h"
#include "common/clock.h"
#include "common/significance.h"
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

// How many calls of `op` make a sample of at least 20 µs, so that the clocks' own cost stays
// small (a thread-CPU clock read is a system call): one call's time is the fastest of five
// windows of at least 40 µs (or 20,000 calls) each. One window alone took a preemption for the
// op's own time: a local get of 80 ns came out at 3 µs, its samples of 7 gets lasted 2 µs, and
// the clocks made a third of each get.
template <class Op>
int calls_per_sample(const Op& op) {
  double best_ns = std::numeric_limits<double>::infinity();
  for (int window = 0; window < 5; ++window) {
    const std::int64_t t0 = wall_ns();
    std::int64_t n = 0;
    do {
      op();
      ++n;
    } while (wall_ns() - t0 < 40'000 && n < 20'000);
    best_ns = std::min(best_ns, static_cast<double>(wall_ns() - t0) / static_cast<double>(n));
  }
  return static_cast<int>(std::clamp(std::ceil(20'000.0 / best_ns), 1.0, 10'000.0));
}

// Times the gets of one workload (returns false when the tier lost the value): warm-up, then
// `reps` rounds, each a sample of whole gets and a sample of each part alone (fetches; decodes
// of the last fetch; checks of the last decode), in an order rotated round by round, so that a
// slow moment of the machine hits them alike; then more gets until `window_ns` has passed so
// that the server's CPU counter (10 ms ticks for /proc) has something to count, which counts
// the fetches too. `on_progress` hears the share of the rounds taken and of the window gone.
Measurement measure(RunContext& ctx, WorkloadGet& get, Tier& tier, int warmup, int reps,
                    std::int64_t window_ns,
                    const std::function<void(double, double)>& on_progress) {
  const auto lost = [&] {
    return std::runtime_error("the " + tier.name() + " tier (" + to_string(tier.codec().encoding) +
                              ") no longer holds the record");
  };
  const auto whole = [&] {
    if (!get.get()) throw lost();
  };
  const std::array<std::function<void()>, kGetPartCount> parts = {[&] {
                                                                    if (!get.fetch()) throw lost();
                                                                  },
                                                                  [&] {
                                                                    if (!get.decode()) throw lost();
                                                                  },
                                                                  [&] {
                                                                    if (!get.check()) throw lost();
                                                                  }};
  for (int i = 0; i < warmup; ++i) {
    ctx.check_stop();
    whole();
  }
  Measurement m;
  m.gets_per_sample = calls_per_sample(whole);
  for (std::size_t k = 0; k < kGetPartCount; ++k) {
    if (k == 1) parts[0]();  // a decode needs a fetch, a check a decode: the fetch before
    m.parts_per_sample[k] = calls_per_sample(parts[k]);
  }

  const bool has_server = tier.name() != "local";
  const std::optional<std::int64_t> s0 = has_server ? tier.server_cpu_ns() : std::nullopt;
  const std::int64_t start = wall_ns();
  std::int64_t requests = 0;  // whole gets and fetches: what the server answered
  m.wall_us.reserve(static_cast<std::size_t>(reps));
  m.cpu_us.reserve(static_cast<std::size_t>(reps));
  // With a precision: rounds until the median of the whole get's wall time is that precise.
  PointRounds rounds(ctx, 0, reps, 1 + kGetPartCount);
  rounds.track_median(0);
  const auto sample = [&](const std::function<void()>& op, int calls, std::vector<double>& wall,
                          std::vector<double>& cpu) {
    Stopwatch sw;
    for (int i = 0; i < calls; ++i) op();
    const std::int64_t c = sw.cpu_elapsed_ns();
    const std::int64_t w = sw.wall_elapsed_ns();
    wall.push_back(static_cast<double>(w) / 1e3 / calls);
    cpu.push_back(static_cast<double>(c) / 1e3 / calls);
  };
  for (int round = 0; rounds.next(); ++round) {
    ctx.check_stop();
    // The whole get and the fetch first, in turn; a decode after a fetch, a check after it.
    if (round % 2 == 0) {
      sample(whole, m.gets_per_sample, m.wall_us, m.cpu_us);
      sample(parts[0], m.parts_per_sample[0], m.part_wall_us[0], m.part_cpu_us[0]);
    } else {
      sample(parts[0], m.parts_per_sample[0], m.part_wall_us[0], m.part_cpu_us[0]);
      sample(whole, m.gets_per_sample, m.wall_us, m.cpu_us);
    }
    parts[0]();  // what the decodes decode: a fetch of this round
    for (std::size_t k = 1; k < kGetPartCount; ++k)
      sample(parts[k], m.parts_per_sample[k], m.part_wall_us[k], m.part_cpu_us[k]);
    requests += m.gets_per_sample + m.parts_per_sample[0] + 1;
    const double round_wall[] = {m.wall_us.back(), m.part_wall_us[0].back(),
                                 m.part_wall_us[1].back(), m.part_wall_us[2].back()};
    rounds.record(round_wall);
    on_progress(std::min(1.0, static_cast<double>(m.wall_us.size()) / reps), 0.0);
  }
  m.precision = rounds.precision();
  if (s0) {
    for (std::int64_t gone; (gone = wall_ns() - start) < window_ns;) {
      ctx.check_stop();
      on_progress(1.0, static_cast<double>(gone) / static_cast<double>(window_ns));
      whole();
      ++requests;
    }
    const std::optional<std::int64_t> s1 = tier.server_cpu_ns();
    if (s1 && requests > 0)
      m.server_cpu_us = static_cast<double>(*s1 - *s0) / 1e3 / static_cast<double>(requests);
  }
  return m;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// "redis, protobuf": a stack of the parts charts; never a measured figure (Compare matches on it).
std::string cell_label(const std::string& tier_name, const std::string& series) {
  return tier_name + ", " + series;
}

void add_matrix_groups(RunContext& ctx, const CachingPlan& plan) {
  for (const char* w : kWorkloads) {
    const std::string W = w;
    const std::string what =
        W == "document" ? "one " + std::to_string(plan.doc_bytes / 1024) + " KB document by key"
                        : "a list of " + std::to_string(plan.list_size) + " comments";
    Group wall{W + "_wall",
               "Wall time per get: " + what,
               "us/get",
               "",
               false,
               true,
               "Median wall time of one get returning a ready object (fetch, decode, check); bars "
               "per tier, one per encoding: native is typed rows in PostgreSQL, MessagePack in "
               "Redis and the object itself in local memory.",
               false,
               false,
               W == kWorkloads[0]};
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

// The time measuring a workload will take (measure()) when one get takes `get_s`: the gets
// before the rounds, the rounds (a whole get's sample and a fetch's, each of 20 µs at least,
// and two short ones: decodes and checks), then what is left of the server's CPU window; and the
// share of it done when the rounds are.
struct Expected {
  double seconds = 0, samples_share = 1;
};
Expected expected_time(const CachingPlan& plan, bool has_server, double get_s) {
  const double samples_s = plan.reps * (2 * std::max(get_s, 20e-6) + 40e-6);
  const double window_s = has_server ? static_cast<double>(plan.window_ns) / 1e9 : 0.0;
  const double until_samples_done = (plan.warmup + 2) * get_s + 800e-6 + samples_s;
  const double seconds = until_samples_done + std::max(0.0, window_s - samples_s);
  return {seconds, until_samples_done / seconds};
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

// Measures the gets of one workload from one tier and publishes its points (wall, client CPU,
// server CPU, bytes, the parts); returns the cell the findings compare.
Cell measure_cell(RunContext& ctx, const CachingPlan& plan, Tier& tier,
                  const std::string& tier_name, const std::string& series,
                  const std::string& workload, const Document& doc, const CommentList& list,
                  const std::function<void(double, double)>& on_progress) {
  WorkloadGet get(tier, workload, doc, list);
  Measurement m = measure(ctx, get, tier, plan.warmup, plan.reps, plan.window_ns, on_progress);
  const std::size_t bytes =
      workload == "document" ? tier.document_bytes(doc.key) : tier.list_bytes(list.group_id);
  Cell c;
  c.local = tier_name == "local";
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

std::unique_ptr<Tier> make_tier(const std::string& name, const Codec& codec,
                                const CachingServers& servers, std::size_t local_budget,
                                std::stop_token stop) {
  if (name == "postgres") return std::make_unique<PostgresTier>(servers.pg, codec, stop);
  if (name == "redis") return std::make_unique<RedisTier>(servers.redis, codec, stop);
  return std::make_unique<LocalTier>(local_budget, codec);
}

void store_and_check(Tier& tier, const std::string& tier_name, const std::string& series,
                     const Document& doc, const CommentList& list) {
  tier.put_document(doc);
  tier.put_list(list);
  auto d = tier.get_document(doc.key);
  auto l = tier.get_list(list.group_id);
  if (!d || !l)
    throw std::runtime_error(
        "the " + tier_name + " tier (" + series + ") did not keep the records" +
        (tier_name == "local" ? " (local_budget_mb is smaller than the list or document)" : ""));
  if (!(*d == doc) || !(*l == list))
    throw std::runtime_error("the " + tier_name + " tier (" + series +
                             ") returned records different from those stored");
}

const char* to_string(GetPart p) {
  switch (p) {
    case GetPart::Fetch:
      return "fetch";
    case GetPart::Decode:
      return "decode";
    case GetPart::Check:
      return "check";
  }
  return "?";
}

WorkloadGet::WorkloadGet(Tier& tier, const std::string& workload, const Document& doc,
                         const CommentList& list)
    : tier_(tier), document_(workload == "document"), doc_(doc), list_(list) {}

bool WorkloadGet::fetch() {
  return document_ ? tier_.fetch_document(doc_.key) : tier_.fetch_list(list_.group_id);
}

bool WorkloadGet::decode() {
  if (document_) return (decoded_document_ = tier_.decode_document()) != nullptr;
  return (decoded_list_ = tier_.decode_list()) != nullptr;
}

bool WorkloadGet::check() const {
  if (document_)
    return decoded_document_ && decoded_document_->key == doc_.key &&
           decoded_document_->body.size() == doc_.body.size();
  return decoded_list_ && decoded_list_->group_id == list_.group_id &&
         decoded_list_->comments.size() == list_.comments.size() &&
         (list_.comments.empty() || decoded_list_->comments.back().id == list_.comments.back().id);
}

bool WorkloadGet::get() {
  if (!fetch() || !decode()) return false;
  if (!check())
    throw std::runtime_error("the " + tier_.name() + " tier (" + to_string(tier_.codec().encoding) +
                             ") returned another record than the one asked for");
  return true;
}

// Every (tier, encoding) of the matrix: records stored and checked and one get of each workload
// timed, then both workloads' gets measured; the findings are updated after each, so a stopped
// run keeps them. The progress follows the time each part is expected to take: a measuring what
// that one get says (a list decoded natively can take a hundred times a document's), a store
// or the findings what the last ones took (the stores took 5 to 30% of a lecture run, the
// findings after the last tiers up to a fifth of a second each).
void run_matrix(RunContext& ctx, const CachingPlan& plan, const CachingServers& servers,
                const Document& doc, const CommentList& list, double from, double to) {
  add_matrix_groups(ctx, plan);
  struct Stored {
    std::string tier_name;
    Encoding enc;
    std::unique_ptr<Tier> tier;
    Expected expected[std::size(kWorkloads)];
  };
  // The parts: a store for each (tier, encoding), then for each its measurings and findings.
  // Before any is timed: a store, a get, and the findings' unit (below).
  constexpr double kStoreS = 0.05, kGetS = 1e-3, kFindingsUnitS = 0.006;
  // The findings are CPU work, as slow as the machine: their unit was a twentieth of a store's
  // time (0.006 s to 0.12 s at a load average of 25, 0.018 s to 0.45 s with two busy loops).
  constexpr double kFindingsPerStore = 0.05;
  constexpr std::size_t kPer = std::size(kWorkloads) + 1;
  ExpectedProgress progress(from, to);
  std::vector<std::pair<std::string, Encoding>> matrix;
  for (const auto& tier_name : plan.tiers)
    for (Encoding enc : plan.encodings) matrix.emplace_back(tier_name, enc);
  for (std::size_t k = 0; k < matrix.size(); ++k) progress.add(kStoreS);
  // The findings after the k-th (from 0) compare more cells, pairs of them: they take about
  // unit * (k + 1)^2 (a lecture run's took 0, 0, 0.05, 0.06, 0.07 and 0.2 s at a load average
  // of 25; 0, 0, 0.16, 0.3, 0.46 and 0.7 s with two busy loops beside).
  const auto findings_s = [](std::size_t k, double unit) {
    return unit * double((k + 1) * (k + 1));
  };
  for (std::size_t k = 0; k < matrix.size(); ++k) {
    for (std::size_t w = 0; w < std::size(kWorkloads); ++w)
      progress.add(expected_time(plan, matrix[k].first != "local", kGetS).seconds);
    progress.add(findings_s(k, kFindingsUnitS));
  }
  const auto first = [&](std::size_t k) { return matrix.size() + kPer * k; };
  double stores_s = 0, findings_unit = 0;  // the stores' time so far; the findings' unit taken
  const auto expect_findings = [&](std::size_t from, double unit) {
    for (std::size_t j = from; j < matrix.size(); ++j)
      progress.expect(first(j) + std::size(kWorkloads), findings_s(j, unit));
  };

  std::vector<Stored> stored;
  for (const auto& [tier_name, enc] : matrix) {
    ctx.check_stop();
    const std::size_t k = stored.size();
    const Codec codec{enc, plan.zlib_level};
    const std::string series = to_string(enc);
    ctx.progress(progress.at(k), "storing records in " + tier_name + " (" + series + ")");
    const std::int64_t began = wall_ns();
    Stored s{tier_name,
             enc,
             make_tier(tier_name, codec, servers, plan.local_budget, ctx.stop_token()),
             {}};
    store_and_check(*s.tier, tier_name, series, doc, list);
    for (std::size_t w = 0; w < std::size(kWorkloads); ++w) {
      WorkloadGet get(*s.tier, kWorkloads[w], doc, list);
      const std::int64_t t0 = wall_ns();
      get.get();  // checked when measured
      s.expected[w] =
          expected_time(plan, tier_name != "local", static_cast<double>(wall_ns() - t0) / 1e9);
      progress.expect(first(k) + w, s.expected[w].seconds);
    }
    const double store_s = static_cast<double>(wall_ns() - began) / 1e9;
    for (std::size_t j = k + 1; j < matrix.size(); ++j) progress.expect(j, store_s);  // as long
    stores_s += store_s;
    expect_findings(0, kFindingsPerStore * stores_s / double(k + 1));
    stored.push_back(std::move(s));
  }
  std::map<std::tuple<std::string, std::string, std::string>, Cell> cells;
  for (std::size_t k = 0; k < stored.size(); ++k) {
    auto& s = stored[k];
    const std::string series = to_string(s.enc);
    for (std::size_t w = 0; w < std::size(kWorkloads); ++w) {
      ctx.check_stop();
      const std::string W = kWorkloads[w];
      const std::string step = "measuring " + W + " gets from " + s.tier_name + " (" + series + ")";
      const std::size_t part = first(k) + w;
      const auto fraction = [&, part](double within) { return progress.at(part, within); };
      ctx.progress(fraction(0), step);
      // The samples as they are taken, then the server's CPU window as it goes (which takes
      // most of a cell's time): a report every 5% of the measuring.
      double reported = 0;
      const auto on_progress = [&](double taken, double window_gone) {
        const double within = std::max(taken * s.expected[w].samples_share, window_gone);
        const bool last_sample = taken >= 1 && window_gone <= 0;
        if (within - reported < 0.05 && !last_sample) return;
        reported = within;
        ctx.progress(fraction(within), step);
      };
      cells[{W, s.tier_name, series}] =
          measure_cell(ctx, plan, *s.tier, s.tier_name, series, W, doc, list, on_progress);
    }
    const std::size_t part = first(k) + std::size(kWorkloads);
    ctx.progress(progress.at(part), "updating the findings");
    const std::int64_t began = wall_ns();
    findings(ctx, cells);
    // The findings to come: from the unit these took, or the stores' when more (the first
    // findings have few pairs to compare and tell little).
    findings_unit =
        std::max(findings_unit, static_cast<double>(wall_ns() - began) / 1e9 / findings_s(k, 1.0));
    expect_findings(k + 1,
                    std::max(findings_unit, kFindingsPerStore * stores_s / double(stored.size())));
  }
}

}  // namespace perflab::caching
