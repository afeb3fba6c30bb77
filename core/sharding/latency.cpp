// The sharding experiment's open-loop latency groups: the spectra of Redis direct, perflab-proxy,
// twemproxy and Redis Cluster at one fixed rate, the collapse as latency, and the hockey stick.
#include "sharding/latency.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "common/confidence.h"
#include "common/figure_format.h"
#include "common/latency_knee.h"
#include "common/stats.h"
#include "common/text.h"
#include "sharding/servers.h"

namespace perflab::sharding {

namespace {

constexpr double kNsPerMs = 1e6;
// The hockey stick's offered rates, as shares of Redis direct's closed-loop maximum.
constexpr double kHockeyShares[] = {0.1, 0.3, 0.5, 0.7, 0.9, 1.1, 1.3, 1.5};
// A spectrum measures up to this many rounds per path, in all, to get the rounds asked for
// when the generator fell behind in some of them.
constexpr int kAttemptsPerRound = 2;

bool asked(const Params& p, const char* token) {
  const auto l = p.get_subset("latency");
  return std::find(l.begin(), l.end(), token) != l.end();
}

std::string rate_text(double rps) {
  return format_fixed(rps, 0) + " req/s";
}

// The paths of the fixed-rate spectra: their variant and their series.
struct Path {
  const char* token;
  const char* series;
};
constexpr Path kSpectrumPaths[] = {{"direct", "Redis direct"},
                                   {"coalesced+nodelay", "perflab-proxy"},
                                   {"twemproxy", "twemproxy"},
                                   {"cluster", "Redis Cluster"}};
constexpr Path kCollapsePaths[] = {{"per-reply", "per-reply, no nodelay (lazy)"},
                                   {"coalesced+nodelay", "coalesced+nodelay"}};
constexpr Path kHockeyPaths[] = {{"direct", "direct"}, {"coalesced+nodelay", "proxy"}};

// One open-loop path of a group over its rounds: the valid rounds' recorders, and the rounds
// left out.
struct PathRounds {
  Path path;
  std::vector<LatencyRecorder> valid;
  std::vector<double> p50_ms, p99_ms;  // of the valid rounds, for the findings
  int fell_behind = 0, not_held = 0, attempts = 0;
};

// The variants the groups `latency` asks for measure, each once; Redis Cluster only with one.
std::vector<Variant> wanted_variants(const Params& p, bool cluster) {
  std::vector<Variant> variants;
  auto want = [&](const Path* begin, const Path* end) {
    for (const Path* path = begin; path != end; ++path)
      if (std::none_of(variants.begin(), variants.end(),
                       [&](const Variant& v) { return v.token == path->token; }))
        variants.push_back(variant(path->token));
  };
  if (asked(p, "spectra")) want(std::begin(kSpectrumPaths), std::end(kSpectrumPaths));
  if (asked(p, "collapse")) want(std::begin(kCollapsePaths), std::end(kCollapsePaths));
  if (asked(p, "hockey")) want(std::begin(kHockeyPaths), std::end(kHockeyPaths));
  if (!cluster) std::erase_if(variants, [](const Variant& v) { return uses_cluster(v); });
  return variants;
}

// The measurements of one run's latency groups.
class Latency {
 public:
  Latency(RunContext& ctx, const Params& p, const TargetNeeds& need, double from)
      : ctx_(ctx),
        p_(p),
        run_(ctx, need, "latency:key:", p.get_int("keyspace"), from, from),
        servers_(start_servers(ctx, run_.target, run_.cluster,
                               wanted_variants(p, run_.cluster.has_value()))),
        test_(parse_bench_test(p.get_subset("tests").front())),
        rounds_(static_cast<int>(p.get_int("latency_rounds"))),
        seconds_(p.get_double("latency_s")) {
    base_.password = run_.target.nodes.front().password;
    base_.clients = static_cast<int>(p.get_int("clients"));
    base_.keyspace = p.get_int("keyspace");
    base_.data_size = static_cast<int>(p.get_int("data_size"));
    base_.key_prefix = run_.key_prefix;
    base_.reply_timeout = run_.target.timeout;
  }

  void progress_range(double from, double to, double total_s) {
    from_ = from;
    to_ = to;
    total_s_ = std::max(total_s, 1e-9);
  }

  void spectra() {
    const double rate = p_.get_double("latency_rate");
    const std::string id = "latency_rate";
    Group g = spectrum_group(id, bench_title(test_) + " latency at " + rate_text(rate) +
                                     ", open loop (-c " + std::to_string(base_.clients) + ")");
    g.description =
        "Percentile spectrum of each path at the same offered rate, open loop: each "
        "request's latency runs from its intended send time. Rounds where the "
        "generator itself fell behind are left out.";
    g.baseline_series = "Redis direct";
    std::vector<PathRounds> paths = measure(kSpectrumPaths, rate, 1);
    publish(g, paths, rate);
    for (std::size_t i = 1; i < paths.size(); ++i)
      compare_p(g, paths[i], paths[0], 99, "latency_rate_p99." + std::string(paths[i].path.token));
  }

  void collapse() {
    const double rate = p_.get_double("collapse_rate");
    const int depth = static_cast<int>(p_.get_int("collapse_depth"));
    Group g = spectrum_group("latency_collapse", "The collapse as latency: " + bench_title(test_) +
                                                     " through the proxy at " + rate_text(rate) +
                                                     ", -P " + std::to_string(depth));
    g.description =
        "The proxy's two write strategies at the same offered rate with up to -P "
        "requests outstanding per connection: per-reply writes without TCP_NODELAY hold a "
        "reply until the client acknowledges the one before it, for up to the ~40 ms delayed "
        "ACK, or until the client's next request carries the ACK.";
    g.baseline_series = "coalesced+nodelay";
    std::vector<PathRounds> paths = measure(kCollapsePaths, rate, depth);
    publish(g, paths, rate);
    if (paths.size() == 2) compare_p(g, paths[0], paths[1], 50, "latency_collapse_p50");
  }

  void hockey();

 private:
  void hockey_findings(const Group& g, double max_rps, const std::vector<double>& closed,
                       const std::vector<std::vector<std::optional<double>>>& knees,
                       const std::vector<std::optional<double>>& median_knee);

  Group spectrum_group(const std::string& id, std::string title) const {
    Group g;
    g.id = id;
    g.title = std::move(title);
    g.unit = "ms";
    g.x_label = "percentile";
    g.numeric_x = g.percentile_x = true;
    g.lower_is_better = true;
    g.log_y = true;
    return g;
  }

  // The paths that could be started, each measured until `rounds_` valid rounds or
  // kAttemptsPerRound x rounds_ attempts, the paths taking turns round by round.
  template <std::size_t N>
  std::vector<PathRounds> measure(const Path (&wanted)[N], double rate, int depth) {
    std::vector<PathRounds> paths;
    for (const Path& path : wanted)
      if (servers_.ports.contains(path.token)) paths.push_back({path, {}, {}, {}, 0, 0, 0});
    for (bool more = true; more;) {
      more = false;
      for (auto& pr : paths) {
        if (static_cast<int>(pr.valid.size()) >= rounds_ ||
            pr.attempts >= kAttemptsPerRound * rounds_)
          continue;
        const BenchResult r = once(pr.path, rate, depth);
        ++pr.attempts;
        if (r.open_loop.fell_behind) {
          ++pr.fell_behind;
        } else {
          if (!r.open_loop.rate_held) ++pr.not_held;
          pr.valid.push_back(r.latency);
          pr.p50_ms.push_back(static_cast<double>(r.latency.value_at_percentile_ns(50)) / kNsPerMs);
          pr.p99_ms.push_back(static_cast<double>(r.latency.value_at_percentile_ns(99)) / kNsPerMs);
        }
        more = true;
      }
    }
    return paths;
  }

  BenchResult once(const Path& path, double rate, int depth) {
    ctx_.check_stop();
    ctx_.progress(from_ + (to_ - from_) * std::min(1.0, spent_s_ / total_s_),
                  std::string("latency: ") + path.series + " at " + rate_text(rate));
    BenchOptions o =
        variant_bench_options(base_, servers_, variant(path.token), run_.target.nodes.front().host);
    o.pipeline = depth;
    o.rate = rate;
    o.tests = {test_};
    o.requests = std::max<std::int64_t>(100, std::llround(rate * seconds_));
    // Past its knee a path completes fewer than offered: it stops issuing at twice the length.
    o.time_limit = std::chrono::milliseconds(std::llround(seconds_ * 2000));
    BenchResult r = run_bench(o, test_, ctx_.stop_token());
    if (r.cancelled) ctx_.check_stop();
    if (r.errors > 0)
      throw std::runtime_error(std::string(path.series) + " answered " + std::to_string(r.errors) +
                               " of " + std::to_string(r.requests) + " requests with an error, " +
                               "e.g. " + r.first_error);
    spent_s_ += seconds_;
    return r;
  }

  // Each path's spectrum, and what its rounds say about the rate: left out, too few, not held.
  void publish(const Group& g, const std::vector<PathRounds>& paths, double rate) {
    ctx_.add_group(g);
    bool drawn = false;
    for (const PathRounds& pr : paths)
      drawn = ctx_.add_latency_spectrum(g, pr.path.series, pr.valid, kNsPerMs) || drawn;
    // Findings name the chart only when it has points (every round left out: it has none).
    const std::string chart = drawn ? g.id : "";
    for (const PathRounds& pr : paths) {
      const std::string context = std::string(pr.path.series) + " at " + rate_text(rate);
      const std::string id = g.id + "." + pr.path.token;
      if (pr.fell_behind > 0)
        ctx_.add_finding(figure_finding(
            {id + ".fell_behind", context,
             "rounds left out, not valid: the generator fell behind (its own send lag p99 above " +
                 format_figure(kGeneratorLagLimitMs) + " ms), its delays would count as the path's",
             "rounds", chart},
            pr.fell_behind));
      if (static_cast<int>(pr.valid.size()) < rounds_)
        ctx_.add_finding(figure_finding({id + ".valid_rounds", context,
                                         "valid rounds, fewer than the " + std::to_string(rounds_) +
                                             " asked: the spectrum's intervals are wider or absent",
                                         "rounds", chart},
                                        static_cast<double>(pr.valid.size())));
      if (pr.not_held > 0)
        ctx_.add_finding(
            figure_finding({id + ".not_held", context,
                            "valid rounds that completed below " + format_percent(kRateHeldShare) +
                                " of the offered rate: the path is past its knee there",
                            "rounds", chart},
                           pr.not_held));
    }
  }

  // a / b of the latency at percentile `pct` over their valid rounds (paired when no round of
  // either was left out).
  void compare_p(const Group& g, const PathRounds& a, const PathRounds& b, int pct,
                 std::string id) {
    const bool paired = a.valid.size() == b.valid.size() && a.attempts == b.attempts &&
                        a.fell_behind == 0 && b.fell_behind == 0;
    const auto& sa = pct == 50 ? a.p50_ms : a.p99_ms;
    const auto& sb = pct == 50 ? b.p50_ms : b.p99_ms;
    ctx_.add_comparison(
        {std::move(id), g.title,
         ComparedPair{a.path.series, b.path.series, "p" + std::to_string(pct) + " latency",
                      Quantity::Time, Better::Lower},
         paired, "", std::nullopt, false, g.id},
        sa, sb);
  }

  RunContext& ctx_;
  const Params& p_;
  RunServers run_;
  ServersUnderTest servers_;
  BenchTest test_;
  int rounds_;
  double seconds_;
  BenchOptions base_;
  double from_ = 0, to_ = 1, total_s_ = 1, spent_s_ = 0;
};

// The samples of one path at one offered rate of the hockey stick, over the rounds.
struct HockeyCell {
  std::vector<double> achieved, p50, p99;
  int left_out = 0;  // rounds where the generator fell behind
};

double median_of(const std::vector<double>& v) {
  return v.empty() ? 0 : quantile(v, 0.5);
}

// The knee's offered rate of one path's points (latency_knee): a point without valid samples
// is one the sweep cannot call held, so the knee is below it.
std::optional<double> knee_rate(const std::vector<KneePoint>& points) {
  const auto k = latency_knee(points);
  return k ? std::optional<double>(points[*k].offered) : std::nullopt;
}

void Latency::hockey() {
  const std::size_t np = std::size(kHockeyPaths), nr = std::size(kHockeyShares);
  for (const Path& path : kHockeyPaths)
    if (!servers_.ports.contains(path.token)) return;  // (the proxy always starts)
  // Redis direct's closed-loop maximum, median of 3 runs: the offered rates are shares of it.
  std::vector<double> closed;
  for (int i = 0; i < 3; ++i) {
    ctx_.check_stop();
    ctx_.progress(from_ + (to_ - from_) * std::min(1.0, spent_s_ / total_s_),
                  "latency: Redis direct's closed-loop maximum");
    BenchOptions o =
        variant_bench_options(base_, servers_, variant("direct"), run_.target.nodes.front().host);
    o.tests = {test_};
    o.requests = 100'000'000;
    o.time_limit = std::chrono::milliseconds(std::llround(seconds_ * 1000));
    const BenchResult r = run_bench(o, test_, ctx_.stop_token());
    if (r.cancelled) ctx_.check_stop();
    closed.push_back(r.rps);
  }
  const double max_rps = median_of(closed);
  std::vector<double> offered;
  for (double share : kHockeyShares) offered.push_back(std::max(1.0, std::round(share * max_rps)));

  std::vector<std::vector<HockeyCell>> cells(np, std::vector<HockeyCell>(nr));
  std::vector<std::vector<std::optional<double>>> knees(np);  // per path, per round
  for (int round = 0; round < rounds_; ++round) {
    std::vector<std::vector<KneePoint>> points(np);
    for (std::size_t i = 0; i < nr; ++i)
      for (std::size_t j = 0; j < np; ++j) {
        const BenchResult r = once(kHockeyPaths[j], offered[i], 1);
        HockeyCell& c = cells[j][i];
        if (r.open_loop.fell_behind) {
          ++c.left_out;
          points[j].push_back({offered[i], 0, HUGE_VAL});
          continue;
        }
        const double p99 = static_cast<double>(r.latency.value_at_percentile_ns(99)) / kNsPerMs;
        c.achieved.push_back(r.rps);
        c.p50.push_back(static_cast<double>(r.latency.value_at_percentile_ns(50)) / kNsPerMs);
        c.p99.push_back(p99);
        points[j].push_back({offered[i], r.rps, p99});
      }
    for (std::size_t j = 0; j < np; ++j) knees[j].push_back(knee_rate(points[j]));
  }

  Group g;
  g.id = "latency_hockey";
  g.title = bench_title(test_) + " latency against throughput: direct vs proxy, open loop (-c " +
            std::to_string(base_.clients) + ")";
  g.unit = "ms";
  g.x_label = "achieved throughput (req/s)";
  g.numeric_x = g.lower_is_better = g.log_y = true;
  g.description =
      "p50 and p99 over a sweep of offered rates (shares of Redis direct's closed-loop maximum), "
      "x the rate achieved. The knee: the highest offered rate held within 1% whose p99 stays "
      "within " +
      format_figure(kKneeP99Factor) + " times the lightest load's.";
  std::vector<std::optional<double>> median_knee(np);
  for (std::size_t j = 0; j < np; ++j) {
    std::vector<KneePoint> points;
    for (std::size_t i = 0; i < nr; ++i) {
      const HockeyCell& c = cells[j][i];
      points.push_back(c.p99.empty()
                           ? KneePoint{offered[i], 0, HUGE_VAL}
                           : KneePoint{offered[i], median_of(c.achieved), median_of(c.p99)});
    }
    const auto k = latency_knee(points);
    if (!k) continue;
    median_knee[j] = offered[*k];
    g.markers.push_back({std::string(kHockeyPaths[j].series) + " p99", points[*k].achieved,
                         std::string(kHockeyPaths[j].series) + " knee: " + rate_text(offered[*k])});
  }
  ctx_.add_group(g);
  for (std::size_t j = 0; j < np; ++j)
    for (const char* which : {"p50", "p99"})
      for (std::size_t i = 0; i < nr; ++i) {
        const HockeyCell& c = cells[j][i];
        if (c.achieved.empty()) continue;
        Point pt;
        pt.x = median_of(c.achieved);
        pt.label = rate_text(offered[i]) + " offered";
        pt.samples = std::string(which) == "p50" ? c.p50 : c.p99;
        pt.extra["offered"] = offered[i];
        pt.extra["rounds_left_out"] = c.left_out;
        ctx_.add_point(g.id, std::string(kHockeyPaths[j].series) + " " + which, std::move(pt));
      }
  hockey_findings(g, max_rps, closed, knees, median_knee);
}

void Latency::hockey_findings(const Group& g, double max_rps, const std::vector<double>& closed,
                              const std::vector<std::vector<std::optional<double>>>& knees,
                              const std::vector<std::optional<double>>& median_knee) {
  const std::string context = g.title;
  ctx_.add_finding(figure_finding({"latency_hockey.closed_loop_max", context,
                                   "Redis direct's closed-loop maximum, what the offered rates "
                                   "are shares of",
                                   "req/s", g.id},
                                  max_rps, median_ci(closed)));
  for (std::size_t j = 0; j < std::size(kHockeyPaths); ++j) {
    const std::string who = kHockeyPaths[j].series;
    if (!median_knee[j]) {
      ctx_.add_finding(note_finding({"latency_hockey.no_knee." + who, context,
                                     who + " has no knee: its lightest offered rate was not "
                                           "held, or the generator fell behind there",
                                     "", g.id}));
      continue;
    }
    std::vector<double> per_round;
    for (const auto& k : knees[j])
      if (k) per_round.push_back(*k);
    ctx_.add_finding(figure_finding(
        {"latency_hockey.knee." + who, context,
         who + "'s knee (offered rate held within 1% with p99 within " +
             format_figure(kKneeP99Factor) +
             "x the lightest load's; interval over the rounds' "
             "knees)",
         "req/s", g.id},
        *median_knee[j],
        per_round.size() >= 2 ? std::optional<Estimate>(median_ci(per_round)) : std::nullopt));
  }
  // proxy / direct over the rounds where both had a knee (the same round: paired).
  std::vector<double> proxy, direct;
  for (std::size_t r = 0; r < knees[0].size(); ++r)
    if (knees[0][r] && knees[1][r]) {
      direct.push_back(*knees[0][r]);
      proxy.push_back(*knees[1][r]);
    }
  if (direct.size() < 2) {
    ctx_.add_finding(
        note_finding({"latency_hockey.knee_ratio", context,
                      "the knee of the proxy against Redis direct has no interval: only " +
                          std::to_string(direct.size()) + " round(s) gave both a knee",
                      "", g.id}));
    return;
  }
  ctx_.add_comparison({"latency_hockey.knee_ratio", context,
                       ComparedPair{"perflab-proxy", "Redis direct", "knee (offered req/s)",
                                    Quantity::Throughput, Better::Higher},
                       true, "", std::nullopt, false, g.id},
                      proxy, direct);
}

}  // namespace

std::vector<std::string> latency_tokens() {
  return {"none", "spectra", "collapse", "hockey"};
}

bool wants_latency(const Params& p) {
  return asked(p, "spectra") || asked(p, "collapse") || asked(p, "hockey");
}

bool latency_uses_cluster(const Params& p) {
  return asked(p, "spectra");
}

double latency_seconds(const Params& p) {
  const double per_round =
      p.get_double("latency_s") * static_cast<double>(p.get_int("latency_rounds"));
  double paths = 0;
  if (asked(p, "spectra")) paths += std::size(kSpectrumPaths);
  if (asked(p, "collapse")) paths += std::size(kCollapsePaths);
  if (asked(p, "hockey")) paths += std::size(kHockeyPaths) * std::size(kHockeyShares);
  return per_round * paths;
}

}  // namespace perflab::sharding

namespace perflab::sharding {

std::vector<ParamSpec> latency_params() {
  return {
      {.name = "latency",
       .type = ParamType::SubsetOf,
       .default_value = "none",
       .choices = latency_tokens(),
       .help = "open-loop latency groups (docs/latency.md): spectra of direct, perflab-proxy, "
               "twemproxy and Redis Cluster at latency_rate; collapse: the proxy's write "
               "strategies at collapse_rate with -P collapse_depth; hockey: latency against "
               "throughput, direct vs proxy, with the knees",
       .label = "Latency groups"},
      {.name = "latency_rate",
       .type = ParamType::Double,
       .default_value = "5000",
       .min = 1,
       .max = 10'000'000,
       .help = "offered rate of the fixed-rate spectra (all connections together)",
       .label = "Spectra's rate",
       .unit = "req/s"},
      {.name = "latency_rounds",
       .type = ParamType::Int,
       .default_value = "5",
       .min = 1,
       .max = 100,
       .help = "valid rounds per path (a fresh recorder each; one where the generator fell "
               "behind is left out and measured again, up to twice as many in all)",
       .label = "Latency rounds"},
      {.name = "latency_s",
       .type = ParamType::Double,
       .default_value = "1",
       .min = 0.2,
       .max = 600,
       .help = "seconds of one open-loop round of one path",
       .label = "Latency round length",
       .unit = "s"},
      {.name = "collapse_rate",
       .type = ParamType::Double,
       .default_value = "500",
       .min = 1,
       .max = 10'000'000,
       .help = "offered rate of the collapse's spectra (below what per-reply writes without "
               "TCP_NODELAY complete at -P collapse_depth)",
       .label = "Collapse's rate",
       .unit = "req/s"},
      {.name = "collapse_depth",
       .type = ParamType::Int,
       .default_value = "4",
       .min = 2,
       .max = 1024,
       .help = "most requests outstanding per connection (-P) in the collapse's spectra",
       .label = "Collapse's pipeline depth"},
  };
}

void run_latency(RunContext& ctx, const Params& p, const TargetNeeds& need, double from,
                 double to) {
  if (!wants_latency(p)) return;
  Latency l(ctx, p, need, from);
  l.progress_range(from, to, latency_seconds(p));
  if (asked(p, "spectra")) l.spectra();
  if (asked(p, "collapse")) l.collapse();
  if (asked(p, "hockey")) l.hockey();
}

}  // namespace perflab::sharding
