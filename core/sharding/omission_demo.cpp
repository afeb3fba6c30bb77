// The coordinated-omission demonstration (omission_demo.h): the rounds, the spectra on one
// chart, redis-benchmark's percentiles beside them, and the findings on the two p99s.
#include "sharding/omission_demo.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "common/confidence.h"
#include "common/figure_format.h"
#include "common/latency_spectrum.h"
#include "common/stats.h"
#include "common/text.h"
#include "sharding/loadgen.h"
#include "sharding/redis_benchmark.h"
#include "targets/periodic_pause.h"
#include "targets/server_binary.h"

namespace perflab::sharding {

namespace {

using namespace std::chrono_literals;

// redis-benchmark's percentiles (its --csv row), on the spectrum's x axis.
constexpr double kPeerPercentiles[] = {50, 95, 99};

double peer_ms(const BenchResult& r, double percent) {
  return percent == 50 ? r.p50_ms : percent == 95 ? r.p95_ms : r.p99_ms;
}

// redis-benchmark's pause starts this long after it is started (its connections made), and its
// run must last long enough to hold the whole pause and as long again.
constexpr std::chrono::milliseconds kPeerFirstPause{250};

std::string context(const OmissionOptions& o) {
  return "GET at " + format_fixed(o.rate, 0) + " req/s on " + std::to_string(o.clients) +
         " connections, Redis paused " + std::to_string(o.pause.count()) + " ms every " +
         format_fixed(std::chrono::duration<double>(o.every).count(), 1) + " s";
}

Group omission_group(const OmissionOptions& o) {
  Group g;
  g.id = kOmissionGroup;
  g.title = "Coordinated omission: " + context(o);
  g.unit = "ms";
  g.x_label = "percentile";
  g.numeric_x = true;
  g.percentile_x = true;
  g.log_y = true;
  g.lower_is_better = true;
  g.interleaved = true;  // round r of every series measured across pauses of the same round
  g.description =
      "The same load measured two ways while the server stalls: closed loop (latency from each "
      "write, as redis-benchmark) and open loop (latency from when each request was due). Only "
      "the open loop counts the stall for every request that waited for it.";
  return g;
}

// One rate-scheduled measurement (closed or open loop) with the server paused once, in the
// middle of it. Returns the result and the seconds the server was stopped.
std::pair<BenchResult, double> across_pause(RunContext& ctx, pid_t server, const BenchOptions& b,
                                            const OmissionOptions& o) {
  PeriodicPause pause(server,
                      {.first = (o.every - o.pause) / 2, .pause = o.pause, .every = o.every},
                      ctx.stop_token());
  BenchResult r = run_bench(b, BenchTest::Get, ctx.stop_token());
  pause.finish();
  return {std::move(r), pause.paused_seconds()};
}

// redis-benchmark across the pauses: a run must hold a whole pause and a little more. Its -n is
// sized from the last run's speed, for the rounds after (it grows and shrinks with the
// machine's load); a run too short is run again with the new -n.
BenchResult peer_across_pause(RunContext& ctx, pid_t server, BenchOptions& b,
                              const OmissionOptions& o) {
  const double needed_s = std::chrono::duration<double>(kPeerFirstPause + o.pause).count() + 0.15;
  for (int attempt = 0;; ++attempt) {
    PeriodicPause pause(server, {.first = kPeerFirstPause, .pause = o.pause, .every = o.every},
                        ctx.stop_token());
    BenchResult r = run_redis_benchmark(b, BenchTest::Get, ctx.stop_token());
    pause.finish();
    if (r.cancelled) return r;
    const double scale = r.seconds > 0 ? std::clamp(1.3 * needed_s / r.seconds, 0.1, 50.0) : 4.0;
    b.requests = std::max<std::int64_t>(
        1000, static_cast<std::int64_t>(std::ceil(static_cast<double>(b.requests) * scale)));
    if ((r.seconds >= needed_s && pause.pauses() > 0) || attempt == 3) return r;
  }
}

// The figures of each round, in the order measured.
struct Rounds {
  std::vector<LatencyRecorder> closed, open;
  std::vector<BenchResult> peer;
  std::vector<double> closed_p99, open_p99, peer_p99;
  // The open loop's p99 less the generator's own lag in sending each request, and that lag's
  // p99 (ms): how much of the open loop's figure the generator could have added itself.
  std::vector<double> open_less_p99, generator_lag_p99;
  std::vector<double> paused_s, window_s;  // the open loop's: the server stopped, the measurement
  std::vector<std::string> verdicts;  // the open loop's rate, per round (open_loop_rate_verdict)
};

void publish(RunContext& ctx, const OmissionOptions& o, const Rounds& m) {
  Group g = omission_group(o);
  // Where the open loop's spectrum turns up: above 1 - the share of the time the server was
  // paused, every request waited for a pause.
  std::vector<double> shares;
  for (std::size_t i = 0; i < m.paused_s.size(); ++i)
    if (m.window_s[i] > 0) shares.push_back(m.paused_s[i] / m.window_s[i]);
  if (const double share = quantile(shares, 0.5); share > 0 && share < 1)
    g.markers.push_back(
        {kOmissionOpen, 100 * (1 - share), "paused " + format_percent(share) + " of the time"});
  ctx.add_latency_spectrum(g, kOmissionOpen, m.open, 1e6);
  ctx.add_latency_spectrum(g, kOmissionClosed, m.closed, 1e6);
  if (!m.peer.empty()) {
    for (const double pct : kPeerPercentiles) {
      Point p;
      p.label = spectrum_label(pct);
      p.x = pct;
      for (const auto& r : m.peer) p.samples.push_back(peer_ms(r, pct));
      ctx.add_point(kOmissionGroup, kOmissionPeer, std::move(p));
    }
  }
  const std::string ctx_text = context(o);
  // A generator that falls behind its schedule adds its own lag to the open loop's figures: the
  // verdicts are judged with that lag taken out too, and withheld only when it could change
  // them. The closed loop's latency runs from each write, so no lag of the generator is in it.
  ctx.add_comparison(
      {"omission.p99_open_vs_closed", ctx_text,
       ComparedPair{kOmissionOpen, kOmissionClosed, "p99 latency", Quantity::Time, Better::Lower},
       true, "", std::nullopt, false, kOmissionGroup},
      kGeneratorLagError, {m.open_p99, m.open_less_p99, m.closed_p99, m.closed_p99});
  if (m.peer_p99.size() == m.open_p99.size())
    ctx.add_comparison({"omission.p99_open_vs_redis_benchmark", ctx_text,
                        ComparedPair{kOmissionOpen, "redis-benchmark (closed loop)", "p99 latency",
                                     Quantity::Time, Better::Lower},
                        true, "", std::nullopt, false, kOmissionGroup},
                       kGeneratorLagError, {m.open_p99, m.open_less_p99, m.peer_p99, m.peer_p99});
  if (!m.generator_lag_p99.empty())
    ctx.add_finding(figure_finding(
        {"omission.generator_lag", ctx_text,
         "the generator's own send lag in the open loop, p99 (from when a request was due to its "
         "write; taken out of the verdicts above)",
         "ms", kOmissionGroup},
        quantile(m.generator_lag_p99, 0.5),
        m.generator_lag_p99.size() >= 2 ? std::optional<Estimate>(median_ci(m.generator_lag_p99))
                                        : std::nullopt));
  // The share of each open-loop measurement the server was stopped: the share of the requests
  // that waited for a pause, where the open loop's spectrum turns up.
  if (auto share = share_finding({"omission.paused_share", ctx_text, "the server paused",
                                  "an open-loop measurement", std::nullopt, kOmissionGroup},
                                 m.paused_s, m.window_s))
    ctx.add_finding(std::move(*share));
  if (!m.verdicts.empty()) {
    // The worst round's: one whose rate was not held, else the first.
    auto worst = std::find_if(m.verdicts.begin(), m.verdicts.end(),
                              [](const std::string& v) { return !v.starts_with("rate held"); });
    if (worst == m.verdicts.end()) worst = m.verdicts.begin();
    ctx.add_finding(note_finding(
        {"omission.open_loop_rate", ctx_text, "open loop: " + *worst, "", kOmissionGroup}));
  }
}

}  // namespace

void omission_demo(RunContext& ctx, const OmissionOptions& o) {
  const RedisTarget target = ctx.targets().redis(1, ctx.stop_token());
  // The managed server behind the target's first node: the one measured and paused.
  const ManagedRedis* server = nullptr;
  for (const ManagedRedis* r : ctx.targets().managed_redis())
    if (target.managed && r->port() == target.nodes.front().port) server = r;
  if (!server) {
    ctx.add_finding(note_finding({"omission.skipped", "",
                                  "coordinated-omission demonstration left out: Perflab pauses "
                                  "only a Redis server it started, never a user's",
                                  ""}));
    return;
  }
  const pid_t pid = server->pid();
  for (const auto& t : ctx.targets().describe()) ctx.add_target(t);

  BenchOptions b;
  b.host = target.nodes.front().host;
  b.port = target.nodes.front().port;
  b.clients = o.clients;
  b.pipeline = 1;  // each connection sends, waits, sends
  b.keyspace = o.keyspace;
  b.key_prefix = o.key_prefix;
  b.tests = {BenchTest::Get};
  b.rate = o.rate;
  b.requests = std::max<std::int64_t>(
      o.clients, std::llround(o.rate * std::chrono::duration<double>(o.every).count()));
  // A reply may wait out a whole pause.
  b.reply_timeout = std::max(target.timeout, o.pause + std::chrono::milliseconds(2000));
  BenchOptions peer = b;
  peer.rate = 0;
  peer.requests = 5000;  // sized by the first run (peer_across_pause)
  std::optional<std::string> no_peer;
  try {
    find_server_binary("redis-benchmark");
  } catch (const std::exception&) {
    no_peer = "redis-benchmark is not installed (Debian package redis-tools)";
  }
  if (no_peer)
    ctx.add_finding(note_finding(
        {"omission.redis_benchmark.skipped", "", "redis-benchmark left out: " + *no_peer, ""}));

  Rounds m;  // whole rounds only, so the two loops and the peer pair up round by round
  try {
    for (int round = 0; round < o.rounds; ++round) {
      ctx.progress(static_cast<double>(round) / o.rounds, "coordinated omission: round " +
                                                              std::to_string(round + 1) + " of " +
                                                              std::to_string(o.rounds));
      std::optional<BenchResult> closed, open, peer_result;
      double paused = 0;
      for (int k = 0; k < 2; ++k) {  // the two loops take turns going first
        const bool is_open = (k == 0) == (round % 2 == 1);
        BenchOptions run = b;
        run.from_intended = is_open;
        run.seed = static_cast<std::uint64_t>(round * 2 + k + 1);
        auto [r, stopped_s] = across_pause(ctx, pid, run, o);
        ctx.check_stop();
        if (is_open) paused = stopped_s;
        (is_open ? open : closed) = std::move(r);
      }
      if (!no_peer) {
        peer_result = peer_across_pause(ctx, pid, peer, o);
        ctx.check_stop();
      }
      m.closed.push_back(closed->latency);
      // The p99s as the spectra read them, with and without the generator's own lag alike.
      const auto p99 = [](const LatencyRecorder& r) {
        return static_cast<double>(r.value_at_percentile_ns(99)) / 1e6;
      };
      m.closed_p99.push_back(p99(closed->latency));
      m.open.push_back(open->latency);
      m.open_p99.push_back(p99(open->latency));
      m.paused_s.push_back(paused);
      m.window_s.push_back(open->seconds);
      m.open_less_p99.push_back(p99(open->latency_less_lag));
      m.generator_lag_p99.push_back(open->open_loop.generator_lag_p99_ms);
      m.verdicts.push_back(open_loop_rate_verdict(*open));
      if (peer_result) {
        m.peer_p99.push_back(peer_result->p99_ms);
        m.peer.push_back(std::move(*peer_result));
      }
    }
  } catch (const Cancelled&) {
    publish(ctx, o, m);  // what the finished rounds measured
    throw;
  }
  publish(ctx, o, m);
}

}  // namespace perflab::sharding
