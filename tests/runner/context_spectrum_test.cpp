// A latency spectrum published through the run context: the points and recorders in the run,
// and the window told, as for any point.
#include <gtest/gtest.h>

#include <vector>

#include "common/latency_spectrum.h"
#include "runner/experiment.h"

using namespace perflab;

TEST(RunContextSpectrum, AddsTheRoundsAndTellsTheWindow) {
  Targets targets;  // managed: nothing starts
  perflab::Run run;
  std::vector<perflab::Run> updates;
  RunHooks hooks;
  hooks.on_update = [&](const perflab::Run& r) { updates.push_back(r); };
  RunContext ctx(targets, Params{}, hooks, {}, run);
  Group g;
  g.id = "spectrum";
  g.unit = "ms";
  g.numeric_x = true;
  g.percentile_x = true;
  std::vector<LatencyRecorder> rounds(2);
  for (int i = 1; i <= 1000; ++i) {
    rounds[0].record_ns(i * 1'000'000);  // 1 .. 1000 ms
    rounds[1].record_ns(i * 2'000'000);  // 2 .. 2000 ms
  }
  ASSERT_TRUE(ctx.add_latency_spectrum(g, "loop", rounds, 1e6));
  const Series* s = run.find_series("spectrum", "loop");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->points.size(), kSpectrumPercentiles.size());
  EXPECT_EQ(s->points[2].x, 99);
  ASSERT_EQ(s->points[2].samples.size(), 2u);
  EXPECT_NEAR(s->points[2].samples[0], 990, 1);  // p99 of 1..1000 ms, in ms
  EXPECT_NEAR(s->points[2].samples[1], 1980, 2);
  EXPECT_EQ(series_latency(*s), rounds);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_NE(updates[0].find_series("spectrum", "loop"), nullptr);
  // No values: nothing added, nobody told.
  std::vector<LatencyRecorder> empty(1);
  EXPECT_FALSE(ctx.add_latency_spectrum(g, "none", empty, 1e6));
  EXPECT_EQ(run.find_series("spectrum", "none"), nullptr);
  EXPECT_EQ(updates.size(), 1u);
}
