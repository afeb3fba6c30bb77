// The sharding experiment's open-loop latency groups against managed Redis servers: the spectra
// of each path at a fixed rate, the collapse as latency, the hockey stick with its knees; and
// an open-loop rate well below the measured maximum held within 1%.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "common/latency_spectrum.h"
#include "finding_charts.h"
#include "finding_rules.h"
#include "run_probes.h"
#include "runner/experiment.h"
#include "servers.h"
#include "sharding/experiment.h"
#include "sharding/loadgen.h"
#include "targets/managed_redis.h"
#include "tiny_plan.h"

using namespace perflab;
using namespace perflab::sharding;

namespace {

// A spectrum series holds a point per percentile, one sample and one recorder per round: no
// round is left out, however far the generator fell behind (its lag is taken out of the
// verdicts instead, and stated where it exceeds the limit).
void expect_spectrum(const Run& run, const std::string& group, const std::string& series,
                     const std::string& id, std::size_t rounds) {
  SCOPED_TRACE(group + " / " + series);
  const Series* s = run.find_series(group, series);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->points.size(), kSpectrumPercentiles.size());
  EXPECT_EQ(s->latency.size(), rounds);
  if (const Finding* lag = test::find_finding(run, group + "." + id + ".generator_lag")) {
    EXPECT_GT(lag->value, kGeneratorLagLimitMs);
  }
  double last = 0;
  for (std::size_t i = 0; i < s->points.size(); ++i) {
    EXPECT_EQ(s->points[i].x, kSpectrumPercentiles[i]);
    EXPECT_EQ(s->points[i].samples.size(), rounds);
    EXPECT_GE(s->points[i].stats.median, last);  // a spectrum never falls
    last = s->points[i].stats.median;
  }
  for (const LatencyRecorder& r : series_latency(*s)) EXPECT_GT(r.count(), 0u);
}

TEST(ShardingLatency, SpectraCollapseAndHockeyStick) {
  auto exp = make_sharding_experiment();
  auto params = test::tiny();
  params["sweep"] = "false";
  params["tests"] = "set";
  params["latency"] = "spectra,collapse,hockey";
  params["latency_rate"] = "1000";
  params["latency_s"] = "0.2";
  params["collapse_rate"] = "200";
  params["latency_rounds"] = "5";
  const perflab::Run run = execute(*exp, test::shared_targets(), params, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;

  const Group* rate = run.group("latency_rate");
  ASSERT_NE(rate, nullptr);
  EXPECT_TRUE(rate->percentile_x && rate->log_y);
  EXPECT_EQ(rate->unit, "ms");
  const std::pair<const char*, const char*> paths[] = {{"Redis direct", "direct"},
                                                       {"perflab-proxy", "coalesced+nodelay"},
                                                       {"twemproxy", "twemproxy"},
                                                       {"Redis Cluster", "cluster"}};
  for (const auto& [series, id] : paths) expect_spectrum(run, "latency_rate", series, id, 5);
  expect_spectrum(run, "latency_collapse", "per-reply, no nodelay (lazy)", "per-reply", 5);
  expect_spectrum(run, "latency_collapse", "coalesced+nodelay", "coalesced+nodelay", 5);

  const Group* hockey = run.group("latency_hockey");
  ASSERT_NE(hockey, nullptr);
  EXPECT_TRUE(hockey->numeric_x && !hockey->percentile_x);
  const Finding* max = test::find_finding(run, "latency_hockey.closed_loop_max");
  ASSERT_NE(max, nullptr);
  EXPECT_GT(max->value, 0);
  for (const char* path : {"direct", "proxy"}) {
    SCOPED_TRACE(path);
    const std::string p99 = std::string(path) + " p99";
    const Series* s50 = run.find_series("latency_hockey", std::string(path) + " p50");
    const Series* s99 = run.find_series("latency_hockey", p99);
    ASSERT_NE(s99, nullptr);
    ASSERT_NE(s50, nullptr);
    ASSERT_EQ(s50->points.size(), s99->points.size());
    EXPECT_EQ(s99->points.size(), 8u);  // every offered rate, every round
    double offered = 0;
    for (const Point& pt : s99->points) {
      ASSERT_TRUE(pt.extra.contains("offered"));
      EXPECT_GT(pt.extra.at("offered"), offered);  // in the order of the sweep
      offered = pt.extra.at("offered");
      ASSERT_TRUE(pt.x.has_value());
      EXPECT_GT(*pt.x, 0);
      EXPECT_LE(*pt.x, 1.05 * offered);  // never faster than offered
      EXPECT_EQ(pt.samples.size(), 5u);
      EXPECT_TRUE(pt.extra.contains("generator_lag_p99_ms"));
    }
    // A knee is marked on the chart, at an achieved rate of the path's p99 series; or a note
    // says why there is none.
    const auto marker = std::find_if(hockey->markers.begin(), hockey->markers.end(),
                                     [&](const Marker& m) { return m.series == p99; });
    const Finding* knee = test::find_finding(run, "latency_hockey.knee." + std::string(path));
    if (marker == hockey->markers.end()) {
      EXPECT_EQ(knee, nullptr);
      // Why, from the lightest point's figures.
      const Finding* none = test::find_finding(run, "latency_hockey.no_knee." + std::string(path));
      ASSERT_NE(none, nullptr);
      EXPECT_NE(none->text.find("its lightest offered rate, "), std::string::npos) << none->text;
      continue;
    }
    ASSERT_NE(knee, nullptr);
    EXPECT_NE(marker->label.find("knee"), std::string::npos);
    EXPECT_TRUE(std::any_of(s99->points.begin(), s99->points.end(),
                            [&](const Point& pt) { return pt.x == marker->x; }));
  }
  const bool ratio = test::find_finding(run, "latency_hockey.knee_ratio") != nullptr;
  EXPECT_TRUE(ratio);  // a comparison with its interval, or a note that says there is none
  for (const auto& v : test::finding_chart_violations(run)) ADD_FAILURE() << v;
  for (const auto& f : run.findings) {
    SCOPED_TRACE(f.id);
    for (const auto& v : test::finding_rule_violations(f)) ADD_FAILURE() << v;
  }
}

// "The target rate is held within 1% below the knee": Redis direct's closed-loop maximum
// measured, then an open-loop run at a tenth of it (at most 2,000 req/s) for 4 s completes at
// >= 99% of the target, unless the generator itself fell behind and the result says so.
TEST(ShardingLatency, HoldsTheTargetRateWellBelowTheMaximum) {
  ManagedRedis redis;
  BenchOptions o;
  o.port = redis.port();
  o.clients = 10;
  o.keyspace = 1000;
  o.key_prefix = test::unique_name("latency-held") + ":";
  o.requests = 1'000'000;
  o.time_limit = std::chrono::milliseconds(1000);
  const BenchResult closed = run_bench(o, BenchTest::Get);
  ASSERT_GT(closed.rps, 0);
  o.rate = std::min(2000.0, closed.rps / 10);
  o.requests = std::llround(o.rate * 4);
  o.time_limit = std::chrono::milliseconds(0);
  const BenchResult r = run_bench(o, BenchTest::Get);
  std::printf("closed-loop maximum %.0f req/s; target %.0f req/s: achieved %.1f; %s\n", closed.rps,
              o.rate, r.rps, open_loop_verdict(r).c_str());
  ASSERT_EQ(r.requests, o.requests);
  EXPECT_EQ(r.errors, 0);
  EXPECT_LE(r.rps, 1.01 * o.rate);
  // A generator that fell behind (a starved thread on a loaded machine) measured its own delays,
  // not the server: the result says it is not valid, and there is no rate to judge.
  if (r.open_loop.fell_behind) {
    EXPECT_EQ(open_loop_verdict(r).rfind("not valid: the generator fell behind", 0), 0u);
    return;
  }
  EXPECT_GE(r.rps, 0.99 * o.rate);
  EXPECT_EQ(open_loop_verdict(r).rfind("rate held", 0), 0u);
}

}  // namespace
