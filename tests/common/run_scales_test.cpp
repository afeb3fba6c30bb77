// How a group's chart opens: the value axis's own title (Group::y_label, stored in run files)
// and the x scale of a numeric group (opens_on_log_x).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/run_io.h"
#include "sample_run.h"

using namespace perflab;

namespace {

// A run with one numeric group whose points sit at `xs` (Point::x, or only the label).
perflab::Run sweep_at(const std::vector<double>& xs, bool label_only = false) {
  perflab::Run r;
  Group g{"sweep", "A sweep", "us/op", "bytes of JSON per event", true, true, ""};
  r.groups.push_back(g);
  for (double x : xs) {
    Point p;
    p.label = std::to_string(static_cast<long long>(x));
    if (!label_only) p.x = x;
    p.samples = {1, 2, 3};
    r.add_point("sweep", "iolist", p);
  }
  return r;
}

}  // namespace

TEST(RunJson, AnAxisTitleRoundTripsAndOlderFilesHaveNone) {
  perflab::Run r = sample_run();
  r.groups.front().y_label = "keys on the node";
  const perflab::Run back = run_from_json(run_to_json(r));
  EXPECT_EQ(back.groups.front().y_label, "keys on the node");
  const auto plain = nlohmann::json::parse(run_to_json(sample_run()));
  for (const auto& g : plain["groups"]) EXPECT_EQ(g.count("y_label"), 0u);
  EXPECT_EQ(run_from_json(plain.dump()).groups.front().y_label, "");
}

TEST(RunScales, SweepsOverDecadesOpenOnLogX) {
  const perflab::Run payload = sweep_at({1024, 65536, 1048576});
  EXPECT_TRUE(opens_on_log_x(payload, payload.groups.front()));
  const perflab::Run labels = sweep_at({1, 10, 100, 1000, 8191}, true);  // x read from the labels
  EXPECT_TRUE(opens_on_log_x(labels, labels.groups.front()));
}

TEST(RunScales, NarrowOrNonPositiveSweepsStayLinearUnlessTheGroupSaysLog) {
  perflab::Run depth = sweep_at({1, 2, 4, 8, 16, 32, 64});  // under two decades
  EXPECT_FALSE(opens_on_log_x(depth, depth.groups.front()));
  depth.groups.front().log_x = true;
  EXPECT_TRUE(opens_on_log_x(depth, depth.groups.front()));
  const perflab::Run seconds = sweep_at({0, 1, 2, 500});  // a time line from 0
  EXPECT_FALSE(opens_on_log_x(seconds, seconds.groups.front()));
  perflab::Run categories = sample_run();
  for (const auto& g : categories.groups) {
    if (!g.numeric_x) {
      EXPECT_FALSE(opens_on_log_x(categories, g));
    }
  }
}
