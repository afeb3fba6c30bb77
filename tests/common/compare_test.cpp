#include <gtest/gtest.h>

#include "common/compare.h"
#include "sample_run.h"

using namespace perflab;

TEST(Compare, RatiosSortedAndUnmatchedListedApart) {
  perflab::Run a = sample_run();
  perflab::Run b = sample_run();
  b.series[0].points[0].samples = {55, 55, 55};  // interpolate single writer: 110 -> 55
  b.series[0].points[0].stats = summarize(b.series[0].points[0].samples);
  b.series[1].points[0].label = "renamed";
  b.series[1].points[0].stats = summarize(b.series[1].points[0].samples);
  const Comparison c = compare_runs(a, b);
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_EQ(c.rows[0].name, "append/interpolate/single writer");
  EXPECT_DOUBLE_EQ(c.rows[0].ratio, 0.5);
  EXPECT_DOUBLE_EQ(c.rows[0].percent, -50);
  EXPECT_DOUBLE_EQ(c.rows[1].ratio, 1.0);
  EXPECT_EQ(c.only_in_old, std::vector<std::string>{"append/iolist/single writer"});
  EXPECT_EQ(c.only_in_new, std::vector<std::string>{"append/iolist/renamed"});
  const std::string ratio = format_comparison(c, CompareFormat::Ratio);
  EXPECT_NE(ratio.find("0.50"), std::string::npos);
  EXPECT_NE(ratio.find("only in the old run"), std::string::npos);
  const std::string pct = format_comparison(c, CompareFormat::Percent);
  EXPECT_NE(pct.find("-50.00%"), std::string::npos);
}
