// Run files holding values no measurement can have are refused, naming the field: negative,
// beyond any magnitude, denormal, a run that ends before it starts, no measured point at all.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "common/run_io.h"
#include "common/run_measured.h"
#include "sample_run.h"

using namespace perflab;

const auto refusal = refusal_of_changed;

TEST(RunValues, ImpossibleMeasurementsAreRefusedNamingTheField) {
  EXPECT_EQ(refusal([](auto& j) { j["series"][0]["points"][0]["samples"][1] = -1; }),
            "field \"series[0].points[0].samples[1]\": -1 is negative, which this quantity "
            "cannot be");
  EXPECT_EQ(refusal([](auto& j) { j["series"][0]["points"][0]["samples"][0] = 1e308; }),
            "field \"series[0].points[0].samples[0]\": 1e+308 is beyond any measured figure (at "
            "most 1e15 either way)");
  EXPECT_EQ(refusal([](auto& j) { j["series"][0]["points"][0]["samples"][2] = 5e-324; }),
            "field \"series[0].points[0].samples[2]\": 5e-324 is a denormal number, below any "
            "measured figure");
  EXPECT_EQ(refusal([](auto& j) { j["series"][2]["points"][0]["x"] = -1e308; }),
            "field \"series[2].points[0].x\": -1e+308 is beyond any measured figure (at most "
            "1e15 either way)");
  EXPECT_EQ(refusal([](auto& j) { j["series"][2]["points"][0]["x"] = -4; }),
            "field \"series[2].points[0].x\": -4 is negative, which this quantity cannot be");
  EXPECT_EQ(refusal([](auto& j) { j["series"][0]["points"][0]["extra"]["cpu"] = 2e20; }),
            "field \"series[0].points[0].extra.cpu\": 2e+20 is beyond any measured figure (at "
            "most 1e15 either way)");
  EXPECT_EQ(refusal([](auto& j) { j["findings"][0]["value"] = 1e-310; }),
            "field \"findings[0].value\": 1e-310 is a denormal number, below any measured figure");
  EXPECT_EQ(refusal([](auto& j) { j["ended_unix_ms"] = 1'699'999'999'000; }),
            "field \"ended_unix_ms\": is before started_unix_ms: a run cannot end before it "
            "starts");
  // A point stored without samples: its statistics are measured quantities too.
  EXPECT_EQ(refusal([](auto& j) {
              auto& p = j["series"][0]["points"][0];
              p.erase("samples");
              p["stats"]["stddev"] = -3;
            }),
            "field \"series[0].points[0].stats.stddev\": -3 is negative, which this quantity "
            "cannot be");
  // What stays: a zero, and a run still running (no end yet).
  EXPECT_EQ(refusal([](auto& j) { j["series"][0]["points"][0]["samples"][1] = 0; }), "accepted");
  EXPECT_EQ(refusal([](auto& j) {
              j["status"] = "running";
              j["ended_unix_ms"] = 0;
            }),
            "accepted");
}

TEST(RunValues, ARunWithoutPointsIsRefusedWhereMeasurementsAreNeeded) {
  perflab::Run run = sample_run();
  for (auto& s : run.series) s.points.clear();
  // It is a run (the window opens a failed one for its message) ...
  EXPECT_NO_THROW(run_from_json(run_to_json(run)));
  // ... with nothing to chart, report, compare or export.
  const auto path = std::filesystem::temp_directory_path() / "perflab-run-values-empty.json";
  save_run(run, path);
  try {
    load_measured_run(path);
    ADD_FAILURE() << "accepted";
  } catch (const RunFormatError& e) {
    EXPECT_EQ(std::string(e.what()), path.string() + ": field \"series\": no measured point");
  }
  run.status = RunStatus::Failed;
  run.message = "PostgreSQL refused the connection";
  try {
    check_measured(run);
    ADD_FAILURE() << "accepted";
  } catch (const RunFormatError& e) {
    EXPECT_EQ(std::string(e.what()),
              "field \"series\": no measured point (status failed: PostgreSQL refused the "
              "connection)");
  }
  std::filesystem::remove(path);
}
