// What a run file can honestly hold: counts past the bounds and inconsistent statistics are
// refused naming the field; what Perflab writes still reads; a series' latency rounds are pooled
// in memory independent of their number, and a curve of a huge count ends.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "common/latency_codec.h"
#include "common/latency_curve.h"
#include "common/run_bounds.h"
#include "common/run_io.h"
#include "sample_run.h"

using namespace perflab;
using nlohmann::json;

namespace {

// A run of one categorical group "g" with one series "a" of one point, as JSON to change.
json one_point_run(const json& point) {
  json j = json::parse(run_to_json(sample_run()));
  j["groups"] = json::array({{{"id", "g"}, {"title", "g"}, {"unit", "us"}, {"numeric_x", false}}});
  j["series"] = json::array({{{"group", "g"}, {"name", "a"}, {"points", json::array({point})}}});
  j["findings"] = json::array();
  return j;
}

std::string refusal(const json& j) {
  try {
    run_from_json(j.dump());
  } catch (const RunFormatError& e) {
    return e.what();
  }
  return "accepted";
}

const json kStats = {{"n", 10},    {"min", 80},  {"median", 100}, {"mean", 101},
                     {"p95", 120}, {"max", 130}, {"stddev", 5}};
const json kCi = {{"lo", 90}, {"hi", 110}, {"level", 0.95}, {"method", "order-statistic"}};

// A point without samples keeping `stats` (kStats changed by `change`) and, when given, `ci`.
std::string stored(const std::function<void(json&)>& change, const json& ci = nullptr) {
  json st = kStats;
  change(st);
  json p = {{"label", "p"}, {"samples", json::array()}, {"stats", st}};
  if (!ci.is_null()) p["ci"] = ci;
  return refusal(one_point_run(p));
}

// A spectrum run: group "lat" with series "a" keeping `rounds` as its latency recorders.
json spectrum_run(const std::vector<std::string>& rounds) {
  json j = json::parse(run_to_json(sample_run()));
  j["groups"] =
      json::array({{{"id", "lat"}, {"unit", "us"}, {"numeric_x", true}, {"percentile_x", true}}});
  j["series"] = json::array(
      {{{"group", "lat"}, {"name", "a"}, {"points", json::array()}, {"latency", rounds}}});
  j["findings"] = json::array();
  return j;
}

std::string encoded(std::int64_t ns, std::uint64_t times, std::int64_t tail_ns) {
  LatencyRecorder r;
  r.record_ns(ns, times);
  r.record_ns(tail_ns);
  return encode_latency(r);
}

// The refusal of a field of the point ("series[0].points[0]." then `rest`).
std::string at(const char* rest) {
  std::string s = "field \"series[0].points[0].";
  s += rest;
  return s;
}

}  // namespace

TEST(RunBounds, StoredStatisticsSamplesCannotGiveAreRefusedNamingTheField) {
  EXPECT_EQ(stored([](json& s) { s["n"] = 0; }, kCi),
            at("ci\": an interval of 0 samples (stats.n): a median's interval needs at least two"));
  EXPECT_EQ(stored([](json& s) { s["n"] = 1; }, kCi),
            at("ci\": an interval of 1 samples (stats.n): a median's interval needs at least two"));
  EXPECT_EQ(stored([](json& s) { s["min"] = 140; }), at("stats.min\": 140 is above max 130"));
  EXPECT_EQ(stored([](json& s) { s["median"] = 200; }),
            at("stats.median\": 200 is outside min-max 80-130"));
  EXPECT_EQ(stored([](json& s) { s["median"] = 70; }),
            at("stats.median\": 70 is outside min-max 80-130"));
  EXPECT_EQ(stored([](json& s) { s["p95"] = 90; }),
            at("stats.p95\": 90 is not between the median 100 and max 130"));
  EXPECT_EQ(stored([](json& s) { s["mean"] = 131; }),
            at("stats.mean\": 131 is outside min-max 80-130"));
  json off = kCi;
  off["lo"] = 101;
  EXPECT_EQ(stored([](json&) {}, off), at("ci\": the median 100 is outside its interval 101-110"));
  EXPECT_EQ(stored([](json& s) { s["n"] = INT64_MAX; }),
            at("stats.n\": 9223372036854775807 is more samples than a point holds (at most "
               "1000000)"));

  // What samples can give still reads:
  EXPECT_EQ(stored([](json&) {}, kCi), "accepted");
  // A latency's p95 equal to its median (one bucket), and to max.
  EXPECT_EQ(stored([](json& s) { s["p95"] = 100, s["max"] = 100, s["mean"] = 95; }), "accepted");
  // One sample: no interval; no samples at all: zeros, as older files keep them.
  EXPECT_EQ(stored([](json& s) {
              s = {{"n", 1},   {"min", 5}, {"median", 5}, {"mean", 5},
                   {"p95", 5}, {"max", 5}, {"stddev", 0}};
            }),
            "accepted");
  EXPECT_EQ(stored([](json& s) { s = {{"n", 0}}; }), "accepted");
  // A mean a rounding above max, as summing equal samples gives it.
  EXPECT_EQ(stored([](json& s) {
              s = {{"n", 3},     {"min", 0.1}, {"median", 0.1}, {"mean", 0.10000000000000002},
                   {"p95", 0.1}, {"max", 0.1}, {"stddev", 0}};
            }),
            "accepted");
  // Every point Perflab writes, its samples taken away: the stored figures still read.
  json j = json::parse(run_to_json(sample_run()));
  for (auto& s : j["series"])
    for (auto& p : s["points"]) p["samples"] = json::array();
  EXPECT_EQ(refusal(j), "accepted");
}

TEST(RunBounds, CountsPastTheBoundsAreRefusedSayingTheLimit) {
  json big = {{"label", "p"}, {"samples", json::array()}};
  for (std::size_t i = 0; i <= run_bounds::kMaxPointSamples; ++i) big["samples"].push_back(1);
  EXPECT_EQ(refusal(one_point_run(big)),
            "field \"series[0].points[0].samples\": 1000001 samples in one point, more than "
            "1000000 (the most a run file may hold)");

  json markers = one_point_run({{"label", "1"}, {"x", 1}, {"samples", {1, 2}}});
  markers["groups"][0]["numeric_x"] = true;
  for (int i = 0; i < 65; ++i) markers["groups"][0]["markers"].push_back({{"x", i}});
  EXPECT_EQ(refusal(markers),
            "field \"groups[0].markers\": 65 markers on one chart, more than 64 (the most a run "
            "file may hold)");
  markers["groups"][0]["markers"].erase(64);
  EXPECT_EQ(refusal(markers), "accepted");

  json series = one_point_run({{"label", "1"}, {"samples", {1, 2}}});
  const json one = series["series"][0];
  for (int i = 1; i <= 256; ++i) {
    series["series"].push_back(one);
    series["series"].back()["name"] = std::to_string(i);
  }
  EXPECT_EQ(refusal(series),
            "field \"series[256]\": is one series too many for group 'g': a chart shows at most "
            "256");
  series["series"].erase(256);
  EXPECT_EQ(refusal(series), "accepted");

  json many = one_point_run({{"label", "1"}, {"samples", {1, 2}}});
  many["series"] = json::array();
  for (int i = 0; i <= 10'000; ++i) many["series"].push_back(one);
  EXPECT_EQ(refusal(many),
            "field \"series\": 10001 series, more than 10000 (the most a run file may hold)");

  json groups = one_point_run({{"label", "1"}, {"samples", {1, 2}}});
  for (int i = 1; i <= 1000; ++i) groups["groups"].push_back({{"id", std::to_string(i)}});
  EXPECT_EQ(refusal(groups),
            "field \"groups\": 1001 groups, more than 1000 (the most a run file may hold)");

  const std::vector<std::string> rounds(10'001, encoded(1000, 3, 2000));
  EXPECT_EQ(refusal(spectrum_run(rounds)),
            "field \"series[0].latency\": 10001 latency rounds in one series, more than 10000 "
            "(the most a run file may hold)");
}

TEST(RunBounds, LatencyCountsPast2To53AreRefused) {
  // One recorder of 2^60 values.
  EXPECT_EQ(refusal(spectrum_run({encoded(1000, std::uint64_t{1} << 60, 5000)})),
            "field \"series[0].latency[0]\": latency recorder text: latency recorder: its "
            "counters sum to more than 2^53 values");
  // Two recorders past 2^53 together, each within it (and past 2^64 had they been summed).
  const std::string half = encoded(1000, std::uint64_t{1} << 52, 5000);
  EXPECT_EQ(refusal(spectrum_run({half, half})),
            "field \"series[0].latency[1]\": the series' recorders hold 9007199254740994 values "
            "up to here, more than 2^53 (9007199254740992)");
  EXPECT_EQ(refusal(spectrum_run({half})), "accepted");
}

// A recorder whose tail is one value in 2^60: the iteration ends at the largest value (on a
// percent a double cannot tell from the one before, it would never reach it).
TEST(RunBounds, PercentileStepsOfAHugeCountEnd) {
  LatencyRecorder r;
  r.record_ns(1000, std::uint64_t{1} << 60);
  r.record_ns(5000);
  const auto steps = percentile_steps(r);
  ASSERT_FALSE(steps.empty());
  EXPECT_LT(steps.size(), 2000u);
  EXPECT_EQ(steps.back().cumulative, r.count());
  EXPECT_EQ(steps.back().value_ns,
            LatencyRecorder::highest_equivalent_ns(LatencyRecorder::index_of(5000)));
}

// The most rounds a series may hold, 10,000 (a 0.4 MB file), read and drawn as one curve: the
// rounds are pooled one at a time, not all decoded at once (10,000 recorders of 216 KiB:
// 2.2 GB). Measured in a child process: its peak resident memory stays under 1 GiB (ASan's
// quarantine included).
TEST(RunBounds, ManyLatencyRoundsArePooledInBoundedMemory) {
  const std::vector<std::string> rounds(run_bounds::kMaxSeriesRounds, encoded(100'000, 3, 120'000));
  const std::string text = spectrum_run(rounds).dump();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      const perflab::Run run = run_from_json(text);
      const auto curve = spectrum_curve(run.series[0], "us");
      _exit(!curve.empty() && curve.back().value >= 120 ? 0 : 1);
    } catch (...) {
      _exit(2);
    }
  }
  int status = 0;
  rusage usage{};
  ASSERT_EQ(wait4(child, &status, 0, &usage), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_LT(usage.ru_maxrss, 1L << 20) << "peak RSS in KiB";
}
