// A finding names the chart it is about (Finding::group): set by the specs, stored in run files
// only when set, and the check the experiments' tests hold their runs to.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/run_io.h"
#include "finding_charts.h"
#include "sample_run.h"

using namespace perflab;
using perflab::test::finding_chart_violations;

namespace {

const ComparedPair kAppends{"iolist", "interpolate", "time per append", Quantity::Time,
                            Better::Lower};
const std::vector<double> kA{80, 81, 79, 80, 82}, kB{100, 101, 99, 100, 102};

Finding append_comparison(const std::string& group) {
  ComparisonSpec spec{"append.iolist_vs_interpolate", "Append", kAppends, true};
  spec.group = group;
  return *comparison_finding(spec, 0.02, kA, kB);
}

}  // namespace

TEST(FindingChart, EverySpecCarriesItsChart) {
  EXPECT_EQ(append_comparison("append").group, "append");
  ShareSpec share{"append.build_share", "Append", "spent building", "one append"};
  share.group = "append_breakdown";
  const std::vector<double> part{1, 2, 3}, whole{10, 11, 12};
  EXPECT_EQ(share_finding(share, part, whole)->group, "append_breakdown");
  EXPECT_EQ(figure_finding({"moved.jump", "jump", "keys moved", "%", "dist_moved"}, 20).group,
            "dist_moved");
  EXPECT_EQ(figure_finding({"moved.jump", "jump", "keys moved", "%"}, 20).group, "");
}

TEST(FindingChart, StoredOnlyWhenSet) {
  perflab::Run r = sample_run();
  r.findings = {append_comparison("append"), append_comparison("")};
  const auto j = nlohmann::json::parse(run_to_json(r));
  EXPECT_EQ(j["findings"][0]["group"], "append");
  EXPECT_FALSE(j["findings"][1].contains("group"));
  const perflab::Run back = run_from_json(run_to_json(r));
  EXPECT_EQ(back.findings[0].group, "append");
  EXPECT_EQ(back.findings[1].group, "");
}

TEST(FindingChart, TheCheckFindsWhatIsWrong) {
  perflab::Run r = sample_run();
  r.findings = {append_comparison("append")};
  EXPECT_TRUE(finding_chart_violations(r).empty());
  // A comparison of a chart's series that names none, or a chart the run does not have.
  r.findings = {append_comparison(""), append_comparison("nowhere")};
  const auto v = finding_chart_violations(r);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NE(v[0].find("names no chart"), std::string::npos) << v[0];
  EXPECT_NE(v[1].find("does not have"), std::string::npos) << v[1];
  // A chart without points.
  r.ensure_group({"empty", "Nothing yet", "us/op", "", false, true, ""});
  r.findings = {append_comparison("empty")};
  ASSERT_EQ(finding_chart_violations(r).size(), 1u);
  // A CPU total (client + server) and a note are about no single chart.
  ComparisonSpec cpu{"document.cpu", "document",
                     ComparedPair{"Redis", "PostgreSQL", "CPU per get (client + server)",
                                  Quantity::Cpu, Better::Lower}};
  r.findings = {*comparison_finding(cpu, 0.02, kA, kB), note_finding({"n", "", "a note", ""})};
  EXPECT_TRUE(finding_chart_violations(r).empty());
}
