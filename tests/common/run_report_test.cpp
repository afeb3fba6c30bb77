// What a run is exported as besides its JSON: CSV one row per point, Google Benchmark's JSON
// for its compare script, and the text report with its tables, findings and noise warnings.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "common/figure_format.h"
#include "common/report.h"
#include "common/run_io.h"
#include "sample_run.h"

using namespace perflab;

TEST(RunCsv, OneRowPerPointWithQuoting) {
  const std::string csv = run_to_csv(sample_run());
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "group,series,label,x,unit,n,min,median,mean,p95,max,stddev,ci_lo,ci_hi,ci_level,cv,"
            "cpu");
  EXPECT_NE(csv.find("append,interpolate,single writer,,us/op,3,100,110,110,"), std::string::npos);
  EXPECT_NE(csv.find("\"10, \"\"concurrent\"\" writers\""), std::string::npos);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
}

TEST(RunGbench, CompatibleWithCompareScript) {
  auto j = nlohmann::json::parse(run_to_gbench_json(sample_run()));
  ASSERT_TRUE(j.contains("context"));
  const auto& b = j["benchmarks"];
  // Time units only: 3 points; per point its samples as iterations + mean/median/stddev, and
  // where there are several samples their cv and the median's interval (lo, hi).
  ASSERT_EQ(b.size(), (3u + 6u) + (3u + 6u) + (1u + 3u));
  for (const auto& e : b) {
    for (const char* k :
         {"name", "run_type", "repetitions", "iterations", "real_time", "cpu_time", "time_unit"})
      EXPECT_TRUE(e.contains(k)) << k;
    EXPECT_EQ(e["time_unit"], "us");
  }
  EXPECT_EQ(b[0]["name"], "append/interpolate/single writer");
  EXPECT_EQ(b[0]["run_type"], "iteration");
  EXPECT_DOUBLE_EQ(b[0]["cpu_time"].get<double>(), 20);
  bool median_found = false;
  for (const auto& e : b)
    if (e["run_type"] == "aggregate" && e["aggregate_name"] == "median" &&
        e["run_name"] == "append/iolist/single writer") {
      EXPECT_DOUBLE_EQ(e["real_time"].get<double>(), 85);
      median_found = true;
    }
  EXPECT_TRUE(median_found);
  // The interval and cv are the run's own (the point's median_ci and cv), beside the median.
  const perflab::Run run = sample_run();
  const Point& pt = run.series.at(1).points.at(0);
  std::map<std::string, double> agg;
  for (const auto& e : b)
    if (e["run_type"] == "aggregate" && e["run_name"] == "append/iolist/single writer")
      agg[e["aggregate_name"].get<std::string>()] = e["real_time"].get<double>();
  ASSERT_TRUE(pt.median_ci.has_interval());
  EXPECT_DOUBLE_EQ(agg.at("median_ci_lo"), pt.median_ci.lo);
  EXPECT_DOUBLE_EQ(agg.at("median_ci_hi"), pt.median_ci.hi);
  EXPECT_LE(agg.at("median_ci_lo"), agg.at("median"));
  EXPECT_GE(agg.at("median_ci_hi"), agg.at("median"));
  EXPECT_DOUBLE_EQ(agg.at("cv"), pt.cv);
  EXPECT_GT(agg.at("cv"), 0);
}

TEST(Report, ShowsTablesAndFindings) {
  const std::string t = format_run_report(sample_run());
  EXPECT_NE(t.find("Append 100 events (us/op, lower is better)"), std::string::npos);
  EXPECT_NE(t.find("interpolate"), std::string::npos);
  // A figure without an interval stands with the article's claim beside it, not judged.
  EXPECT_NE(t.find("ratio: 0.77; article 0.78 (0.78 ± 0.08): not judged"), std::string::npos) << t;
  // Small ratios keep three significant digits (a 100x collapse is not "0.01").
  perflab::Run r = sample_run();
  Finding collapse = figure_finding({"collapse", "", "collapse", ""}, 0.00782);
  collapse.claim = claim_below(0.00754, 1.0 / 30);
  generate_text(collapse);
  r.findings.push_back(collapse);
  const std::string u = format_run_report(r);
  EXPECT_NE(u.find("collapse: 0.00782; article 0.00754 (≤ 0.0333): not judged"), std::string::npos)
      << u;
}

TEST(Report, FindingsCarryIntervalVerdictAndTheArticleJudged) {
  const perflab::Run r = judged_run();
  const Finding& f = r.findings.back();
  ASSERT_TRUE(f.ci && f.verdict());
  EXPECT_EQ(*f.verdict(), Verdict::Faster);
  EXPECT_EQ(f.ci->method, CiMethod::PairedBootstrap);
  EXPECT_EQ(f.ci->n, 12u);
  EXPECT_TRUE(f.ci->lo < 0.8 && 0.8 < f.ci->hi);
  EXPECT_EQ(f.reproduction(), Reproduction::NotReproduced);  // [0.77, 0.79] lies below it
  const std::string t = format_run_report(r);
  EXPECT_NE(t.find("Append, time per append: iolist / interpolate: " + format_estimate(*f.ci) +
                   " — iolist faster; article 0.78 (0.78 ± 0.01): not reproduced"),
            std::string::npos)
      << t;
  // Every point's median with its interval and CV in the table.
  const Point* p = r.find_point("append", "interpolate", "12 rounds");
  EXPECT_NE(t.find(format_estimate(p->median_ci)), std::string::npos) << t;
  EXPECT_NE(t.find("median [CI] (level)"), std::string::npos);
  EXPECT_EQ(t.find("95% CI]"), std::string::npos);
}

TEST(Report, NoisyPointsAndABusyMachineAreWarned) {
  perflab::Run r = sample_run();
  Point noisy{"noisy", std::nullopt, {100, 150, 80, 130, 60, 170}, {}, {}};
  r.add_point("append", "iolist", noisy);
  std::string t = format_run_report(r);
  // One line with the count; the list only when asked for.
  EXPECT_NE(t.find("1 of 3 figures noisy (CV above 10%)"), std::string::npos) << t;
  EXPECT_NE(t.find("`--verbose` lists them"), std::string::npos) << t;
  EXPECT_EQ(t.find("append/iolist/noisy: this figure is noisy"), std::string::npos) << t;
  const std::string verbose = format_run_report(r, true);
  EXPECT_NE(verbose.find("append/iolist/noisy: this figure is noisy (CV"), std::string::npos)
      << verbose;
  EXPECT_EQ(t.find("the machine was busy"), std::string::npos);
  MachineNoise m;
  m.load_per_core_before = 1.8;
  m.loaded = true;
  r.machine = m;
  t = format_run_report(r);
  EXPECT_NE(t.find("warning: the machine was busy (load 1.8 per core before the run)"),
            std::string::npos)
      << t;
}

// Intervals short of 95% are said once per run, with their real level and what would reach 95%.
TEST(Report, IntervalsShortOf95PercentAreSaidOnce) {
  const std::string t = format_run_report(sample_run());  // three samples a point: 75%
  EXPECT_NE(t.find("Intervals in this run reach at most 75% CI, n = 3 (too few repetitions for "
                   "95%); a median's interval reaches 95% from 6 repetitions."),
            std::string::npos)
      << t;
  perflab::Run full;
  full.add_point(
      "append", "iolist",
      Point{"twelve", std::nullopt, {9, 10, 11, 10, 9, 10, 11, 10, 9, 10, 11, 10}, {}, {}});
  EXPECT_FALSE(interval_level_note(full).has_value());
}

TEST(Report, NoiseSummaryForTheWindowsBanner) {
  perflab::Run r = sample_run();
  EXPECT_FALSE(run_noise_summary(r).has_value());
  r.add_point("append", "iolist", Point{"noisy", std::nullopt, {100, 150, 80, 130, 60}, {}, {}});
  EXPECT_EQ(run_noise_summary(r),
            "1 figure is noisy (CV above 10%): append/iolist/noisy — rerun, or raise repetitions.");
  MachineNoise m;
  m.steal_share = 0.07;
  m.stolen = true;
  r.machine = m;
  EXPECT_EQ(run_noise_summary(r),
            "The machine was busy (CPU steal 7% during the run): every "
            "figure may be noisy — rerun, or raise repetitions.");
}
