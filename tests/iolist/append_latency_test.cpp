// The IO-list experiment's append latency at a fixed rate against a real managed PostgreSQL: a
// percentile spectrum per builder and for pgbench -R (its --log read into recorders), the
// achieved rate of every round beside the target, and a rate no writer can hold reported as not
// valid rather than as figures.
#include <gtest/gtest.h>

#include "common/latency_spectrum.h"
#include "finding_rules.h"
#include "iolist/experiment.h"
#include "run_probes.h"
#include "runner/experiment.h"
#include "servers.h"

using namespace perflab;

namespace {

std::map<std::string, std::string> latency_params(const std::string& rate,
                                                  const std::string& seconds) {
  return {{"benchmarks", "latency"},
          {"builders", "interpolate,iolist"},
          {"events", "20"},
          {"latency_rate", rate},
          {"latency_seconds", seconds},
          {"latency_rounds", "5"},
          // A loaded test machine's scheduler wakes the writer late by milliseconds.
          {"latency_lag_limit_ms", "100"}};
}

}  // namespace

TEST(IoListAppendLatency, EveryBuilderAndPgbenchHaveASpectrumAndTheirAchievedRate) {
  auto exp = make_iolist_experiment();
  Targets targets(test::isolated_pg(test::unique_name("perflab_lat")));
  const perflab::Run run = execute(*exp, targets, latency_params("100", "0.5"), {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  const Group* g = run.group("append_latency");
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(g->percentile_x);
  EXPECT_TRUE(g->log_y);
  int spectra = 0;
  for (const std::string s : {"interpolate", "iolist", "pgbench"}) {
    SCOPED_TRACE(s);
    const Point* rate = run.find_point("append_latency_rate", "achieved", s);
    ASSERT_NE(rate, nullptr);
    ASSERT_EQ(rate->samples.size(), 5u);
    EXPECT_EQ(rate->extra.at("target_rps"), 100);
    for (double a : rate->samples) EXPECT_GT(a, 0);
    const auto invalid = static_cast<std::size_t>(rate->extra.at("rounds_not_valid"));
    EXPECT_EQ(invalid > 0,
              test::find_finding(run, "append_latency." + s + ".not_valid") != nullptr);
    const Series* series = run.find_series("append_latency", s);
    if (invalid == 5) {
      EXPECT_EQ(series, nullptr);
      continue;
    }
    ++spectra;
    ASSERT_NE(series, nullptr);
    ASSERT_EQ(series->points.size(), 5u);
    ASSERT_EQ(series->latency.size(), 5u - invalid);
    // Every round's 50 appends (100/s for 0.5 s): pgbench's from its per-transaction log.
    for (const auto& r : series_latency(*series)) EXPECT_EQ(r.count(), 50u);
    for (const Point& p : series->points) EXPECT_GT(p.stats.median, 0);
  }
  std::string notes;
  for (const auto& f : run.findings)
    if (f.kind == FindingKind::Note) notes += f.text + "\n";
  EXPECT_GT(spectra, 0) << "every round of every series was not valid:\n" << notes;
  // pgbench's schedule lag under -R, read from its log.
  const Finding* lag = test::find_finding(run, "append_latency.pgbench.schedule_lag_p99");
  ASSERT_NE(lag, nullptr);
  EXPECT_GE(lag->value, 0);
  EXPECT_EQ(lag->unit, "ms");
  for (const auto& f : run.findings)
    for (const auto& v : test::finding_rule_violations(f)) ADD_FAILURE() << v;
}

TEST(IoListAppendLatency, ARateNoWriterHoldsIsReportedNotValid) {
  auto exp = make_iolist_experiment();
  Targets targets(test::isolated_pg(test::unique_name("perflab_lat")));
  auto params = latency_params("10000", "0.01");
  params["builders"] = "iolist";
  const perflab::Run run = execute(*exp, targets, params, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  for (const std::string s : {"iolist", "pgbench"}) {
    SCOPED_TRACE(s);
    const Point* rate = run.find_point("append_latency_rate", "achieved", s);
    ASSERT_NE(rate, nullptr);
    EXPECT_EQ(rate->extra.at("rounds_not_valid"), 5);
    EXPECT_EQ(run.find_series("append_latency", s), nullptr);
    const Finding* f = test::find_finding(run, "append_latency." + s + ".not_valid");
    ASSERT_NE(f, nullptr);
    EXPECT_NE(f->text.find("5 of 5 rounds at 10000 req/s not valid"), std::string::npos) << f->text;
    EXPECT_NE(f->text.find("rate not held"), std::string::npos) << f->text;
  }
  EXPECT_EQ(test::find_finding(run, "append_latency.iolist_vs_pgbench.p99"), nullptr);
}
