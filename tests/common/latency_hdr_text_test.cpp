// HdrHistogram's percentile-distribution text, parsed back and compared with the recorder it
// came from, and its header and footer lines as HdrHistogram prints them.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "common/latency_hdr_text.h"

using namespace perflab;

namespace {

struct Line {
  double value = 0, percentile = 0, inverse = 0;
  std::uint64_t total = 0;
  bool has_inverse = false;
};

struct Parsed {
  std::vector<std::string> header, footer;
  std::vector<Line> lines;
};

// Reads the text as HdrHistogram's plotter does: the table's rows are the lines that do not
// start with '#' after the header, fields split on spaces.
Parsed parse(const std::string& text) {
  Parsed p;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (p.header.size() < 2) {
      p.header.push_back(line);
      continue;
    }
    if (line.starts_with("#")) {
      p.footer.push_back(line);
      continue;
    }
    std::istringstream f(line);
    Line l;
    f >> l.value >> l.percentile >> l.total;
    l.has_inverse = static_cast<bool>(f >> l.inverse);
    p.lines.push_back(l);
  }
  return p;
}

}  // namespace

TEST(HdrText, ParsesBackToTheRecordersPercentiles) {
  LatencyRecorder r;
  std::mt19937_64 rng(11);
  std::lognormal_distribution<double> d(std::log(300e3), 0.8);
  for (int i = 0; i < 200000; ++i) r.record_ns(std::llround(d(rng)));
  const Parsed p = parse(hdr_percentile_distribution(r));
  ASSERT_GT(p.lines.size(), 50u);
  double previous_percentile = -1;
  for (std::size_t i = 0; i < p.lines.size(); ++i) {
    const Line& l = p.lines[i];
    const bool last = i + 1 == p.lines.size();
    EXPECT_EQ(l.has_inverse, !last) << i;
    EXPECT_GT(l.percentile, previous_percentile) << i;
    previous_percentile = l.percentile;
    // The value: the highest equivalent of the bucket holding that percentile, in ms (3 decimals).
    const std::int64_t at = r.value_at_quantile_ns(l.percentile);
    const auto expect = LatencyRecorder::highest_equivalent_ns(LatencyRecorder::index_of(at));
    EXPECT_NEAR(l.value, static_cast<double>(expect) / 1e6, 0.0005) << i;
    // TotalCount: how many values lie at or below that bucket.
    std::uint64_t below = 0;
    for (std::size_t k = 0; k <= LatencyRecorder::index_of(at); ++k) below += r.count_at_index(k);
    EXPECT_EQ(l.total, below) << i;
    if (!last) {
      EXPECT_NEAR(l.inverse, 1.0 / (1.0 - l.percentile), 0.005 + 1e-6 * l.inverse) << i;
    }
  }
  EXPECT_EQ(p.lines.front().percentile, 0.0);
  EXPECT_EQ(p.lines.back().percentile, 1.0);
  EXPECT_EQ(p.lines.back().total, r.count());
  // HdrHistogram's default 5 ticks per half distance: 0, 10, 20, 30, 40, 50, 55, 60 ... %.
  EXPECT_NEAR(p.lines[1].percentile, 0.1, 1e-12);
  EXPECT_NEAR(p.lines[5].percentile, 0.5, 1e-12);
  EXPECT_NEAR(p.lines[6].percentile, 0.55, 1e-12);
  ASSERT_EQ(p.footer.size(), 3u);
  std::smatch m;
  ASSERT_TRUE(std::regex_match(
      p.footer[1], m, std::regex(R"(#\[Max +=  *([0-9.]+), Total count +=  *([0-9]+)\])")));
  EXPECT_NEAR(std::stod(m[1]), static_cast<double>(r.max_ns()) / 1e6,
              r.max_ns() / 1e6 / 1000 + 0.0005);
  EXPECT_EQ(std::stoull(m[2]), r.count());
  ASSERT_TRUE(std::regex_match(
      p.footer[0], m, std::regex(R"(#\[Mean += +([0-9.]+), StdDeviation += +([0-9.]+)\])")));
  EXPECT_NEAR(std::stod(m[1]), r.mean_ns() / 1e6, r.mean_ns() / 1e6 / 1000 + 0.0005);
}

TEST(HdrText, HeaderLinesAndFooterAsHdrHistogramPrintsThem) {
  // One value of 1 ms: its bucket is 999,936 .. 1,000,447 ns (512 ns wide), its middle 1,000,192.
  LatencyRecorder r;
  r.record_ns(1'000'000);
  EXPECT_EQ(hdr_percentile_distribution(r),
            "       Value     Percentile TotalCount 1/(1-Percentile)\n"
            "\n"
            "       1.000 0.000000000000          1           1.00\n"
            "       1.000 1.000000000000          1\n"
            "#[Mean    =        1.000, StdDeviation   =        0.000]\n"
            "#[Max     =        1.000, Total count    =            1]\n"
            "#[Buckets =           26, SubBuckets     =         2048]\n");
  // Empty: the header and the footer, no rows.
  EXPECT_EQ(hdr_percentile_distribution(LatencyRecorder()),
            "       Value     Percentile TotalCount 1/(1-Percentile)\n"
            "\n"
            "#[Mean    =        0.000, StdDeviation   =        0.000]\n"
            "#[Max     =        0.000, Total count    =            0]\n"
            "#[Buckets =           26, SubBuckets     =         2048]\n");
  // Two buckets, 3 values and 1: a bucket reports every level it reaches before the next one.
  LatencyRecorder two;
  two.record_ns(2'000'000, 3);
  two.record_ns(4'000'000);
  const Parsed p = parse(hdr_percentile_distribution(two, 1));
  std::vector<double> percentiles;
  for (const auto& l : p.lines) percentiles.push_back(l.percentile);
  // 1 tick per half distance: 0, 50% and 75% all at 2 ms (75% of the values reached there),
  // then 87.5% at 4 ms, then 100%.
  EXPECT_EQ(percentiles, (std::vector<double>{0, 0.5, 0.75, 0.875, 1.0}));
  EXPECT_EQ(p.lines[2].total, 3u);
  EXPECT_EQ(p.lines[3].total, 4u);
  EXPECT_NEAR(p.lines[3].value, 4.0, 0.002);
  EXPECT_THROW(hdr_percentile_distribution(two, 0), std::invalid_argument);
  EXPECT_THROW(hdr_percentile_distribution(two, 5, 0), std::invalid_argument);
}
