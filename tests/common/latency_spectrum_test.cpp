// A percentile spectrum in a run: its points, its axis, its recorders through a run file.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/latency_codec.h"
#include "common/latency_spectrum.h"
#include "common/run_io.h"

using namespace perflab;

namespace {

Group spectrum_group() {
  Group g{"spectrum", "Latency spectrum", "ms", "percentile", true, true, "", true, true};
  g.percentile_x = true;
  return g;
}

std::vector<LatencyRecorder> exponential_rounds(int n, std::uint64_t seed) {
  std::vector<LatencyRecorder> rounds(static_cast<std::size_t>(n));
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> e(1.0 / 300e3);
  for (auto& r : rounds)
    for (int i = 0; i < 10000; ++i) r.record_ns(std::llround(e(rng)) + 20000);
  return rounds;
}

}  // namespace

TEST(LatencySpectrum, EachNineTakesTheSameWidthOnItsAxis) {
  EXPECT_DOUBLE_EQ(spectrum_position(50), 2);
  EXPECT_NEAR(spectrum_position(90), 10, 1e-9);
  EXPECT_NEAR(spectrum_position(99), 100, 1e-9);
  EXPECT_NEAR(spectrum_position(99.99), 10000, 1e-6);
  for (double p : kSpectrumPercentiles)
    EXPECT_NEAR(spectrum_percent(spectrum_position(p)), p, 1e-9);
  EXPECT_THROW(spectrum_position(100), std::invalid_argument);
  EXPECT_THROW(spectrum_position(-1), std::invalid_argument);
  EXPECT_EQ(spectrum_label(99.9), "99.9%");
  EXPECT_EQ(spectrum_label(50), "50%");
}

TEST(LatencySpectrum, PointsAreEachRoundsPercentileInTheGroupsUnit) {
  perflab::Run run;
  const auto rounds = exponential_rounds(5, 1);
  ASSERT_TRUE(add_latency_spectrum(run, spectrum_group(), "direct", rounds, 1e6));
  const Series* s = run.find_series("spectrum", "direct");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->points.size(), kSpectrumPercentiles.size());
  for (std::size_t i = 0; i < kSpectrumPercentiles.size(); ++i) {
    const Point& p = s->points[i];
    EXPECT_EQ(*p.x, kSpectrumPercentiles[i]);
    ASSERT_EQ(p.samples.size(), rounds.size());
    for (std::size_t r = 0; r < rounds.size(); ++r)
      EXPECT_DOUBLE_EQ(
          p.samples[r],
          static_cast<double>(rounds[r].value_at_percentile_ns(kSpectrumPercentiles[i])) / 1e6);
    EXPECT_TRUE(p.median_ci.has_interval());
  }
  // A spectrum rises: each percentile's median at or above the one before.
  for (std::size_t i = 1; i < s->points.size(); ++i)
    EXPECT_GE(s->points[i].stats.median, s->points[i - 1].stats.median);
  ASSERT_EQ(s->latency.size(), rounds.size());
  EXPECT_EQ(series_latency(*s), rounds);
}

TEST(LatencySpectrum, NoValuesAddNothingAndAWrongGroupIsRefused) {
  perflab::Run run;
  std::vector<LatencyRecorder> empty(3);
  EXPECT_FALSE(add_latency_spectrum(run, spectrum_group(), "x", empty, 1e6));
  EXPECT_TRUE(run.series.empty());
  Group plain = spectrum_group();
  plain.percentile_x = false;
  EXPECT_THROW(add_latency_spectrum(run, plain, "x", exponential_rounds(1, 2), 1e6),
               std::invalid_argument);
}

TEST(LatencySpectrum, RecordersAndMarkersSurviveARunFile) {
  perflab::Run run;
  run.experiment = "sharding";
  Group g = spectrum_group();
  g.markers.push_back({"direct", 99, "the tail"});
  ASSERT_TRUE(add_latency_spectrum(run, g, "direct", exponential_rounds(3, 3), 1e6));
  const perflab::Run back = run_from_json(run_to_json(run));
  ASSERT_NE(back.group("spectrum"), nullptr);
  EXPECT_TRUE(back.group("spectrum")->percentile_x);
  ASSERT_EQ(back.group("spectrum")->markers.size(), 1u);
  EXPECT_EQ(back.group("spectrum")->markers[0].label, "the tail");
  EXPECT_EQ(back.group("spectrum")->markers[0].x, 99);
  EXPECT_EQ(back.group("spectrum")->markers[0].series, "direct");
  const Series* s = back.find_series("spectrum", "direct");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(series_latency(*s), exponential_rounds(3, 3));
}

TEST(LatencySpectrum, ADamagedRecorderInARunFileIsRefusedByName) {
  perflab::Run run;
  run.experiment = "sharding";
  ASSERT_TRUE(add_latency_spectrum(run, spectrum_group(), "direct", exponential_rounds(2, 4), 1e6));
  std::string text = run_to_json(run);
  const std::string good = run.series[0].latency[1];
  text.replace(text.find(good), good.size(), "bm90IHpsaWI=");
  try {
    run_from_json(text);
    FAIL() << "a damaged recorder was read";
  } catch (const RunFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("series[0].latency[1]"), std::string::npos) << e.what();
  }
}
