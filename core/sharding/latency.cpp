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
// The fixed-rate spectra's rate when latency_rate is 0: this share of Redis direct's closed-loop
// maximum, light enough for the proxies beside it (each adds a hop on the same cores).
constexpr double kSpectrumShare = 0.25;
// Redis direct's closed-loop maximum: the median of this many runs of half a round each.
constexpr int kClosedLoopRuns = 3;

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

// One open-loop path of a group over its rounds (the paths take turns round by round): each
// round's recorder, its percentiles with and without the generator's own lag, and that lag.
struct PathRounds {
  Path path;
  std::vector<LatencyRecorder> rounds{};
  std::vector<double> p50_ms{}, p99_ms{}, p50_less_ms{}, p99_less_ms{}, lag_p99_ms{};
  int not_held = 0;
};

double p_ms(const LatencyRecorder& r, double pct) {
  return static_cast<double>(r.value_at_percentile_ns(pct)) / kNsPerMs;
}

double median_of(const std::vector<double>& v) {
  return v.empty() ? 0 : quantile(v, 0.5);
}

// One closed-loop run of the maximum: half a round, at least 0.2 s.
double closed_loop_s(double round_s) {
  return std::max(0.2, round_s / 2);
}

// Two significant digits: an offered rate derived from a measurement reads as a round figure.
double round_rate(double rps) {
  if (!(rps > 0)) return 1;
  const double scale = std::pow(10.0, std::floor(std::log10(rps)) - 1);
  return std::max(1.0, std::round(rps / scale) * scale);
}

// The variants the groups `latency` asks for measure, each once; Redis Cluster only with one.
std::vector<Variant> wanted_variants(const LatencySettings& l, bool cluster) {
  std::vector<Variant> variants;
  auto want = [&](const Path* begin, const Path* end) {
    for (const Path* path = begin; path != end; ++path)
      if (std::none_of(variants.begin(), variants.end(),
                       [&](const Variant& v) { return v.token == path->token; }))
        variants.push_back(variant(path->token));
  };
  if (l.asked("spectra")) want(std::begin(kSpectrumPaths), std::end(kSpectrumPaths));
  if (l.asked("collapse")) want(std::begin(kCollapsePaths), std::end(kCollapsePaths));
  if (l.asked("hockey")) want(std::begin(kHockeyPaths), std::end(kHockeyPaths));
  if (!cluster) std::erase_if(variants, [](const Variant& v) { return uses_cluster(v); });
  return variants;
}

// The measurements of one run's latency groups.
class Latency {
 public:
  Latency(RunContext& ctx, const ShardingSettings& s, const TargetNeeds& need, double from)
      : ctx_(ctx),
        l_(s.latency),
        run_(ctx, need, "latency:key:", s.keyspace, from, from),
        servers_(start_servers(ctx, run_.target, run_.cluster,
                               wanted_variants(s.latency, run_.cluster.has_value()))),
        test_(parse_bench_test(s.tests.front())),
        rounds_(s.latency.rounds),
        seconds_(s.latency.round_s) {
    base_.password = run_.target.nodes.front().password;
    base_.clients = s.clients;
    base_.keyspace = s.keyspace;
    base_.data_size = s.data_size;
    base_.key_prefix = run_.key_prefix;
    base_.reply_timeout = run_.target.timeout;
  }

  void progress_range(double from, double to, double total_s) {
    from_ = from;
    to_ = to;
    total_s_ = std::max(total_s, 1e-9);
  }

  void spectra() {
    const double asked_rate = l_.rate;
    const double rate = asked_rate > 0 ? asked_rate : round_rate(kSpectrumShare * closed_max());
    const std::string id = "latency_rate";
    Group g = spectrum_group(id, bench_title(test_) + " latency at " + rate_text(rate) +
                                     ", open loop (-c " + std::to_string(base_.clients) + ")");
    g.description =
        "Percentile spectrum of each path at the same offered rate, open loop: each request's "
        "latency runs from its intended send time" +
        std::string(asked_rate > 0 ? ""
                                   : " (" + format_percent(kSpectrumShare) +
                                         " of Redis direct's closed-loop maximum)") +
        ". The generator's own lag is taken out of the verdicts.";
    g.baseline_series = "Redis direct";
    std::vector<PathRounds> paths = measure(kSpectrumPaths, rate, 1);
    // The comparisons lead the chart's findings; what the rounds say of the generator follows.
    for (std::size_t i = 1; i < paths.size(); ++i)
      compare_p(g, paths[i], paths[0], 99, "latency_rate_p99." + std::string(paths[i].path.token));
    publish(g, paths, rate);
  }

  void collapse() {
    const double rate = l_.collapse_rate;
    const int depth = l_.collapse_depth;
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
    if (paths.size() == 2) compare_p(g, paths[0], paths[1], 50, "latency_collapse_p50");
    publish(g, paths, rate);
  }

  void hockey();

  // Redis direct's closed-loop maximum (req/s), measured on first use: the median of
  // kClosedLoopRuns runs; the rates of the spectra and the hockey stick are shares of it.
  double closed_max() {
    if (closed_.empty())
      for (int i = 0; i < kClosedLoopRuns; ++i) {
        ctx_.check_stop();
        ctx_.progress(from_ + (to_ - from_) * std::min(1.0, spent_s_ / total_s_),
                      "latency: Redis direct's closed-loop maximum");
        BenchOptions o = variant_bench_options(base_, servers_, variant("direct"),
                                               run_.target.nodes.front().host);
        o.tests = {test_};
        o.requests = 100'000'000;
        o.time_limit = std::chrono::milliseconds(std::llround(closed_loop_s(seconds_) * 1000));
        const BenchResult r = run_bench(o, test_, ctx_.stop_token());
        if (r.cancelled) ctx_.check_stop();
        closed_.push_back(r.rps);
        spent_s_ += closed_loop_s(seconds_);
      }
    return median_of(closed_);
  }

 private:
  void hockey_findings(const Group& g, double max_rps,
                       const std::vector<std::vector<std::optional<double>>>& knees,
                       const std::vector<std::optional<double>>& median_knee,
                       const std::vector<std::string>& no_knee);

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

  // The paths that could be started, `rounds_` rounds each, the paths taking turns round by
  // round. No round is left out: where the generator fell behind, its own lag is taken out of
  // the verdicts instead (compare_p).
  template <std::size_t N>
  std::vector<PathRounds> measure(const Path (&wanted)[N], double rate, int depth) {
    std::vector<PathRounds> paths;
    for (const Path& path : wanted)
      if (servers_.ports.contains(path.token)) paths.push_back({.path = path});
    for (int round = 0; round < rounds_; ++round)
      for (auto& pr : paths) {
        const BenchResult r = once(pr.path, rate, depth);
        if (!r.open_loop.rate_held) ++pr.not_held;
        pr.rounds.push_back(r.latency);
        pr.p50_ms.push_back(p_ms(r.latency, 50));
        pr.p99_ms.push_back(p_ms(r.latency, 99));
        pr.p50_less_ms.push_back(p_ms(r.latency_less_lag, 50));
        pr.p99_less_ms.push_back(p_ms(r.latency_less_lag, 99));
        pr.lag_p99_ms.push_back(r.open_loop.generator_lag_p99_ms);
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

  // Each path's spectrum, and what its rounds say: the generator's own lag where it fell
  // behind, the rounds that did not hold the rate.
  void publish(const Group& g, const std::vector<PathRounds>& paths, double rate) {
    ctx_.add_group(g);
    bool drawn = false;
    for (const PathRounds& pr : paths)
      drawn = ctx_.add_latency_spectrum(g, pr.path.series, pr.rounds, kNsPerMs) || drawn;
    // Findings name the chart only when it has points.
    const std::string chart = drawn ? g.id : "";
    for (const PathRounds& pr : paths) {
      const std::string context = std::string(pr.path.series) + " at " + rate_text(rate);
      const std::string id = g.id + "." + pr.path.token;
      if (!pr.lag_p99_ms.empty() && quantile(pr.lag_p99_ms, 0.5) > kGeneratorLagLimitMs)
        ctx_.add_finding(figure_finding(
            {id + ".generator_lag", context,
             "the generator's own send lag, p99 (above " + format_figure(kGeneratorLagLimitMs) +
                 " ms: it fell behind; in the spectrum, taken out of the verdicts)",
             "ms", chart},
            quantile(pr.lag_p99_ms, 0.5),
            pr.lag_p99_ms.size() >= 2 ? std::optional<Estimate>(median_ci(pr.lag_p99_ms))
                                      : std::nullopt));
      if (pr.not_held > 0)
        ctx_.add_finding(
            figure_finding({id + ".not_held", context,
                            "rounds that completed below " + format_percent(kRateHeldShare) +
                                " of the offered rate: the path is past its knee there",
                            "rounds", chart},
                           pr.not_held));
    }
  }

  // a / b of the latency at percentile `pct` over their rounds (paired: round r of each was
  // measured in the same turn), judged with the generator's own lag taken out of either side.
  void compare_p(const Group& g, const PathRounds& a, const PathRounds& b, int pct,
                 std::string id) {
    const bool p50 = pct == 50;
    ctx_.add_comparison(
        {std::move(id), g.title,
         ComparedPair{a.path.series, b.path.series, "p" + std::to_string(pct) + " latency",
                      Quantity::Time, Better::Lower},
         a.rounds.size() == b.rounds.size(), "", std::nullopt, false, g.id},
        kGeneratorLagError,
        {p50 ? a.p50_ms : a.p99_ms, p50 ? a.p50_less_ms : a.p99_less_ms, p50 ? b.p50_ms : b.p99_ms,
         p50 ? b.p50_less_ms : b.p99_less_ms});
  }

  RunContext& ctx_;
  const LatencySettings& l_;
  RunServers run_;
  ServersUnderTest servers_;
  BenchTest test_;
  int rounds_;
  double seconds_;
  BenchOptions base_;
  double from_ = 0, to_ = 1, total_s_ = 1, spent_s_ = 0;
  std::vector<double> closed_;  // Redis direct's closed-loop runs (req/s)
};

// The samples of one path at one offered rate of the hockey stick, over the rounds: the rate
// achieved, the percentiles, the p99 without the generator's own lag (what the knee is judged
// on) and that lag's p99.
struct HockeyCell {
  std::vector<double> achieved, p50, p99, p99_less, lag_p99;
};

// The knee's offered rate of one path's points (latency_knee).
std::optional<double> knee_rate(const std::vector<KneePoint>& points) {
  const auto k = latency_knee(points);
  return k ? std::optional<double>(points[*k].offered) : std::nullopt;
}

// Why a path's sweep has no knee, from its lightest point (latency_knee fails only there): the
// rate it achieved against the one offered, and the rounds' generator lag.
std::string no_knee_reason(const KneePoint& lightest, const HockeyCell& c) {
  std::string s = "its lightest offered rate, " + rate_text(lightest.offered) +
                  ", was not held (it completed " + rate_text(lightest.achieved) + ", below " +
                  format_percent(kKneeHeldShare) + ")";
  const double lag = median_of(c.lag_p99);
  if (lag > kGeneratorLagLimitMs)
    s += ", and the generator itself fell behind there (its own send lag p99 " +
         format_figure(lag) + " ms): the machine is too busy to offer even that";
  else
    s += ": the path could not serve the lightest load of the sweep";
  return s;
}

void Latency::hockey() {
  const std::size_t np = std::size(kHockeyPaths), nr = std::size(kHockeyShares);
  for (const Path& path : kHockeyPaths)
    if (!servers_.ports.contains(path.token)) return;  // (the proxy always starts)
  // The offered rates are shares of Redis direct's closed-loop maximum.
  const double max_rps = closed_max();
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
        c.achieved.push_back(r.rps);
        c.p50.push_back(p_ms(r.latency, 50));
        c.p99.push_back(p_ms(r.latency, 99));
        c.p99_less.push_back(p_ms(r.latency_less_lag, 99));
        c.lag_p99.push_back(r.open_loop.generator_lag_p99_ms);
        points[j].push_back({offered[i], r.rps, c.p99_less.back()});
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
      "x the rate achieved. The knee: the highest offered rate held within 1% whose p99, the "
      "generator's own lag taken out, stays within " +
      format_figure(kKneeP99Factor) + " times the lightest load's.";
  std::vector<std::optional<double>> median_knee(np);
  std::vector<std::string> no_knee(np);  // why a path has none
  for (std::size_t j = 0; j < np; ++j) {
    std::vector<KneePoint> points;
    for (std::size_t i = 0; i < nr; ++i) {
      const HockeyCell& c = cells[j][i];
      points.push_back({offered[i], median_of(c.achieved), median_of(c.p99_less)});
    }
    const auto k = latency_knee(points);
    if (!k) {
      no_knee[j] = no_knee_reason(points.front(), cells[j].front());
      continue;
    }
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
        pt.extra["generator_lag_p99_ms"] = median_of(c.lag_p99);
        ctx_.add_point(g.id, std::string(kHockeyPaths[j].series) + " " + which, std::move(pt));
      }
  hockey_findings(g, max_rps, knees, median_knee, no_knee);
}

void Latency::hockey_findings(const Group& g, double max_rps,
                              const std::vector<std::vector<std::optional<double>>>& knees,
                              const std::vector<std::optional<double>>& median_knee,
                              const std::vector<std::string>& no_knee) {
  const std::string context = g.title;
  ctx_.add_finding(figure_finding({"latency_hockey.closed_loop_max", context,
                                   "Redis direct's closed-loop maximum, what the offered rates "
                                   "are shares of",
                                   "req/s", g.id},
                                  max_rps, median_ci(closed_)));
  for (std::size_t j = 0; j < std::size(kHockeyPaths); ++j) {
    const std::string who = kHockeyPaths[j].series;
    if (!median_knee[j]) {
      ctx_.add_finding(note_finding({"latency_hockey.no_knee." + who, context,
                                     who + " has no knee: " + no_knee[j], "", g.id}));
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

bool wants_latency(const LatencySettings& l) {
  return l.asked("spectra") || l.asked("collapse") || l.asked("hockey");
}

bool latency_uses_cluster(const LatencySettings& l) {
  return l.asked("spectra");
}

double latency_seconds(const LatencySettings& l) {
  const double per_round = l.round_s * static_cast<double>(l.rounds);
  double paths = 0;
  if (l.asked("spectra")) paths += std::size(kSpectrumPaths);
  if (l.asked("collapse")) paths += std::size(kCollapsePaths);
  if (l.asked("hockey")) paths += std::size(kHockeyPaths) * std::size(kHockeyShares);
  // Redis direct's closed-loop maximum, measured once for the hockey stick and the spectra's
  // rate.
  const bool closed = l.asked("hockey") || (l.asked("spectra") && !(l.rate > 0));
  return per_round * paths + (closed ? kClosedLoopRuns * closed_loop_s(l.round_s) : 0.0);
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
       .default_value = "0",
       .min = 0,
       .max = 10'000'000,
       .help = "offered rate of the fixed-rate spectra (all connections together); 0: a quarter "
               "of Redis direct's closed-loop maximum, measured first on this machine",
       .label = "Spectra's rate",
       .unit = "req/s"},
      {.name = "latency_rounds",
       .type = ParamType::Int,
       .default_value = "5",
       .min = 1,
       .max = 100,
       .help = "rounds per path, the paths taking turns (a fresh recorder each; where the "
               "generator fell behind, its own lag is taken out of the verdicts)",
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

void run_latency(RunContext& ctx, const ShardingSettings& s, const TargetNeeds& need, double from,
                 double to) {
  if (!wants_latency(s.latency)) return;
  Latency l(ctx, s, need, from);
  l.progress_range(from, to, latency_seconds(s.latency));
  if (s.latency.asked("spectra")) l.spectra();
  if (s.latency.asked("collapse")) l.collapse();
  if (s.latency.asked("hockey")) l.hockey();
}

}  // namespace perflab::sharding
