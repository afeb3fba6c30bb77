// The sharding experiment, with tiny parameters, against managed Redis servers.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <stop_token>
#include <string>
#include <vector>

#include "finding_charts.h"
#include "finding_rules.h"
#include "run_probes.h"
#include "runner/experiment.h"
#include "servers.h"
#include "sharding/experiment.h"
#include "targets/cluster.h"
#include "targets/managed_redis.h"
#include "targets/ownership.h"
#include "tiny_plan.h"

using namespace perflab;
using perflab::test::tiny;

namespace {

TEST(ShardingExperiment, ProducesTheSweepAndTheDistribution) {
  auto exp = make_sharding_experiment();
  ASSERT_EQ(exp->id(), "sharding");
  perflab::Run run = execute(*exp, test::shared_targets(), tiny(), {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  for (const char* g : {"sweep_set", "sweep_mset", "dist_nodes", "dist_moved"})
    EXPECT_NE(run.group(g), nullptr) << g;
  for (const char* s :
       {"direct redis", "coalesced+nodelay", "per-reply, no nodelay (lazy)", "twemproxy"}) {
    for (const char* g : {"sweep_set", "sweep_mset"}) {
      const Series* ser = run.find_series(g, s);
      ASSERT_NE(ser, nullptr) << g << " / " << s;
      ASSERT_EQ(ser->points.size(), 2u);
      EXPECT_EQ(ser->points[0].x, 1.0);
      EXPECT_EQ(ser->points[1].x, 2.0);
      for (const auto& p : ser->points) {
        EXPECT_EQ(p.samples.size(), 2u);  // repetitions
        EXPECT_GT(p.stats.median, 0);
        EXPECT_TRUE(p.extra.count("p99_ms"));
        EXPECT_GT(p.extra.at("requests"), 0);
      }
    }
  }
  // 2000 keys over 4 nodes, for each scheme.
  for (const char* s : {"modula (crc32)", "ketama", "jump"}) {
    const Series* ser = run.find_series("dist_nodes", s);
    ASSERT_NE(ser, nullptr) << s;
    double sum = 0;
    for (const auto& p : ser->points) sum += p.stats.median;
    EXPECT_EQ(sum, 2000);
  }
  auto finding = [&](const std::string& id) { return test::find_finding(run, id); };
  ASSERT_NE(finding("collapse_p2.set"), nullptr);
  ASSERT_TRUE(finding("collapse_p2.set")->claim.has_value());
  // The article's claim is a collapse of about two orders of magnitude, not its exact figure.
  EXPECT_EQ(finding("collapse_p2.set")->claim->kind, Claim::Kind::Below);
  EXPECT_NE(finding("vs_twemproxy_p1.set"), nullptr);
  // Every comparison and share of a chart's series names that chart (the presentation view shows
  // it beside it).
  for (const auto& v : test::finding_chart_violations(run)) ADD_FAILURE() << v;
  // Every ratio of the sweep carries its interval (variants took turns: paired) and a verdict;
  // the moved shares are exact counts; no finding says what its numbers refute.
  for (const auto& f : run.findings) {
    SCOPED_TRACE(f.id);
    for (const auto& v : test::finding_rule_violations(f)) ADD_FAILURE() << v;
    if (f.id.rfind("moved.", 0) == 0) {
      EXPECT_FALSE(f.ci.has_value());
      continue;
    }
    ASSERT_TRUE(f.ci.has_value());
    EXPECT_EQ(f.ci->method, CiMethod::PairedBootstrap);
    EXPECT_TRUE(f.ci->lo <= f.value && f.value <= f.ci->hi);
    ASSERT_TRUE(f.verdict().has_value());
    EXPECT_EQ(f.comparison.better, Better::Higher);  // req/s
  }
  ASSERT_NE(finding("moved.modula"), nullptr);
  EXPECT_GT(finding("moved.modula")->value, finding("moved.jump")->value);
}

TEST(ShardingExperiment, MeasuresToAPrecisionWithinItsBudget) {
  auto exp = make_sharding_experiment();
  auto p = tiny();
  p["tests"] = "set";
  p["depths"] = "2";
  p["variants"] = "coalesced+nodelay,per-reply";
  p["distribution_keys"] = "100";
  p["point_budget_s"] = "0.2";
  p["precision"] = "0.01";  // not reachable in 3 s: the budget ends the point
  p["precision_budget_s"] = "3";
  const auto t0 = std::chrono::steady_clock::now();
  perflab::Run run = execute(*exp, test::shared_targets(), p, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));
  const Series* s = run.find_series("sweep_set", "coalesced+nodelay");
  ASSERT_NE(s, nullptr);
  const Point& pt = s->points.at(0);
  ASSERT_TRUE(pt.precision.has_value());
  EXPECT_FALSE(pt.precision->reached);
  EXPECT_GE(pt.precision->rounds, 2);  // at least `repetitions`
  EXPECT_EQ(pt.samples.size(), static_cast<std::size_t>(pt.precision->rounds));
  const Finding* collapse = test::find_finding(run, "collapse_p2.set");
  ASSERT_NE(collapse, nullptr);
  EXPECT_TRUE(collapse->ci.has_value());
}

// The default run's rules on a small sweep: each depth measures only the variants its findings
// compare, each point until its comparisons have verdicts (at least 6 rounds, where a 95%
// interval first exists), the points sharing the run's budget; the run says how many settled.
TEST(ShardingExperiment, MeasuresToVerdictsWithinTheRunsBudget) {
  auto exp = make_sharding_experiment();
  std::map<std::string, std::string> p{{"tests", "set"},
                                       {"depths", "1,2"},
                                       {"variants", "direct,coalesced+nodelay,coalesced,per-reply"},
                                       {"clients", "2"},
                                       {"requests", "500"},
                                       {"point_budget_s", "0.2"},
                                       {"nodes", "2"},
                                       {"distribution_keys", "100"},
                                       {"budget_s", "30"}};
  const Params defaults = Params::resolve(exp->params());
  for (const char* name : {"verdicts", "compared_only"})  // the defaults, not set here
    EXPECT_TRUE(defaults.get_bool(name)) << name;
  const auto t0 = std::chrono::steady_clock::now();
  perflab::Run run = execute(*exp, test::shared_targets(), p, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(180));  // no hang
  // -P 1: coalesced+nodelay / direct only; -P 2: the collapse and coalesced without nodelay.
  const auto depths = [&](const char* series) {
    std::vector<double> x;
    const Series* s = run.find_series("sweep_set", series);
    for (const auto& pt : s ? s->points : std::vector<Point>{}) {
      x.push_back(*pt.x);
      EXPECT_TRUE(pt.precision.has_value());
      EXPECT_GE(pt.precision ? pt.precision->rounds : 0, 6);
    }
    return x;
  };
  EXPECT_EQ(depths("direct redis"), std::vector<double>{1});
  EXPECT_EQ(depths("coalesced+nodelay"), (std::vector<double>{1, 2}));
  EXPECT_EQ(depths("per-reply, no nodelay (lazy)"), std::vector<double>{2});
  EXPECT_EQ(depths("coalesced, no nodelay"), std::vector<double>{2});
  // Every finding's words hold to its interval, the note's count to the findings.
  for (const auto& f : run.findings)
    for (const auto& v : test::finding_rule_violations(f)) ADD_FAILURE() << f.id << ": " << v;
  // The collapse (about a hundredfold) has its verdict, and the point stopped on it.
  const Finding* collapse = test::find_finding(run, "collapse_p2.set");
  ASSERT_NE(collapse, nullptr);
  ASSERT_TRUE(collapse->verdict().has_value());
  EXPECT_EQ(*collapse->verdict(), Verdict::Slower);
  // The note counts the comparisons with a verdict, from the findings themselves.
  const Finding* note = test::find_finding(run, "verdicts");
  ASSERT_NE(note, nullptr);
  std::size_t comparisons = 0, settled = 0;
  for (const auto& f : run.findings)
    if (f.kind == FindingKind::Comparison) {
      ++comparisons;
      const auto v = f.verdict();
      settled += v && settles(*v) ? 1 : 0;
    }
  EXPECT_EQ(comparisons, 3u);
  EXPECT_EQ(
      note->text.rfind(std::to_string(settled) + " of 3 comparisons reached a verdict in ", 0), 0u)
      << note->text;
  EXPECT_NE(note->text.find("(budget 30 s)"), std::string::npos) << note->text;
}

TEST(ShardingExperiment, CleansUpOnlyTheKeysItWrote) {
  // An external node (the shared managed one, configured as a user's) and a prefix with a glob
  // character: cleanup must not read it as a pattern that matches the user's keys.
  RedisTarget shared = test::shared_targets().redis(1);
  TargetsConfig cfg;
  cfg.redis_nodes = shared.nodes;
  const std::string tag = test::unique_name("u");
  cfg.redis_prefix = "t*" + tag + ":";
  RedisClient r = shared.connect(0);
  const std::string users_key = "tX" + tag + ":bench:session";  // matches t*<tag>:bench:*
  r.command({"SET", users_key, "a user's"});
  Targets targets(cfg);
  auto p = tiny();
  p["nodes"] = "1";
  p["variants"] = "direct";
  p["keyspace"] = "50";
  perflab::Run run = execute(*make_sharding_experiment(), targets, p, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  EXPECT_EQ(r.command({"GET", users_key}).str, "a user's");
  RedisReply left = r.command({"KEYS", "t\\*" + tag + ":bench:*"});
  EXPECT_TRUE(left.elements.empty()) << left.elements.size() << " benchmark keys left";
  EXPECT_EQ(r.command({"EXISTS", cfg.redis_prefix + std::string(kPrefixMarkKey)}).integer, 1);
  r.command({"DEL", users_key, cfg.redis_prefix + std::string(kPrefixMarkKey)});
}

// Stop as soon as the first proxy benchmark begins (a progress hook, not a guessed delay): the
// run ends promptly, is marked cancelled and keeps the key distribution measured before it.
TEST(ShardingExperiment, StopsWhenAsked) {
  auto exp = make_sharding_experiment();
  auto p = tiny();
  p["requests"] = "100000000";
  p["point_budget_s"] = "600";
  std::stop_source stop;
  std::chrono::steady_clock::time_point stopped_at;
  const RunHooks hooks = test::at_first_step(", -P ", [&] {
    stopped_at = std::chrono::steady_clock::now();
    stop.request_stop();
  });
  perflab::Run run = execute(*exp, test::shared_targets(), p, hooks, stop.get_token());
  ASSERT_TRUE(stop.stop_requested()) << "no benchmark step was reported";
  const auto after_stop = std::chrono::steady_clock::now() - stopped_at;
  EXPECT_EQ(run.status, RunStatus::Cancelled);
  EXPECT_NE(run.group("dist_nodes"), nullptr);  // what was measured is kept
  // Proves the stop is honoured rather than the 10^8 requests being sent (hours), with a bound
  // no loaded machine with ASan comes near.
  EXPECT_LT(after_stop, std::chrono::seconds(60));
}

}  // namespace
