// PointProgress and the IO-list run's forecasts: the progress follows time, so the time left of
// a default run holds although its points take from 0.1 s to 40 s.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "iolist/experiment.h"
#include "iolist/iolist_run.h"
#include "iolist/point_progress.h"
#include "time_left_trace.h"

using namespace perflab;
using namespace perflab::iolist;

namespace {

using Trace = test::ProgressTrace;

using Key = std::tuple<PointKind, std::int64_t, std::string>;

// What each point of two default runs took (release build, this 2-core machine, from their
// progress lines): with nothing else running, and with two busy loops beside it.
const std::map<Key, std::pair<double, double>> kTook{
    {{PointKind::Build, 1, "interpolate"}, {0.19, 0.26}},
    {{PointKind::Build, 1, "iolist"}, {0.36, 0.29}},
    {{PointKind::Build, 10, "interpolate"}, {0.21, 0.50}},
    {{PointKind::Build, 10, "iolist"}, {0.20, 0.33}},
    {{PointKind::Build, 100, "interpolate"}, {0.20, 0.46}},
    {{PointKind::Build, 100, "iolist"}, {0.21, 0.34}},
    {{PointKind::Build, 1000, "interpolate"}, {0.29, 0.33}},
    {{PointKind::Build, 1000, "iolist"}, {0.21, 0.40}},
    {{PointKind::Build, 8191, "interpolate"}, {0.13, 0.45}},
    {{PointKind::Build, 8191, "iolist"}, {0.12, 0.16}},
    {{PointKind::Relay, 1, ""}, {0.16, 0.23}},
    {{PointKind::Append, 1, "0"}, {0.79, 0.95}},
    {{PointKind::Append, 10, "0"}, {3.05, 5.21}},
    {{PointKind::Append, 100, "0"}, {27.0, 39.8}},
    {{PointKind::Append, 1, "1"}, {2.03, 1.85}},
    {{PointKind::Pgbench, 1, ""}, {3.24, 2.97}},
    {{PointKind::Pgbench, 10, ""}, {3.46, 5.47}},
    {{PointKind::Pgbench, 100, ""}, {25.7, 42.7}},
    {{PointKind::Streams, 0, ""}, {2.94, 4.64}},
    {{PointKind::Read, 1, ""}, {0.08, 0.45}},
    {{PointKind::Read, 10, ""}, {0.46, 1.15}},
    {{PointKind::Read, 100, ""}, {4.68, 7.53}},
    {{PointKind::Payload, 1024, ""}, {0.86, 1.83}},
    {{PointKind::Payload, 65536, ""}, {3.64, 5.73}},
    {{PointKind::Payload, 1048576, ""}, {2.52, 2.77}},
    {{PointKind::Client, 0, ""}, {0.78, 1.04}},
};

const IoListSettings& defaults() {
  static const IoListSettings s =
      IoListSettings::from(Params::resolve(make_iolist_experiment()->params()));
  return s;
}

// A default run replayed from kTook (loaded or not): each point's steps evenly over its time.
// With `alike`, every step counts the same, as the run's progress did before.
Trace replay(bool loaded, bool alike) {
  PointProgress p;
  plan_points(defaults(), 11, p);  // 5 builders × 2 transports + synchronous_commit off
  std::size_t all_steps = 0, steps_done = 0;
  for (const auto& pt : p.planned()) all_steps += pt.steps;
  Trace trace;
  double t = 0;
  const std::vector<PointProgress::Planned> points = p.planned();
  for (const auto& pt : points) {
    const auto it = kTook.find({pt.kind, pt.n, pt.tag});
    EXPECT_NE(it, kTook.end()) << "a point of the default run not in kTook: " << pt.n;
    if (it == kTook.end()) continue;
    const double took = loaded ? it->second.second : it->second.first;
    const double f = p.begin(pt.kind, pt.n, pt.tag, t);
    trace.emplace_back(t, alike ? double(steps_done) / double(all_steps) : f);
    for (std::size_t i = 0; i < pt.steps; ++i) {
      t += took / double(pt.steps);
      const double g = p.step();
      trace.emplace_back(t, alike ? double(++steps_done) / double(all_steps) : g);
    }
  }
  trace.emplace_back(t, 1.0);
  return trace;
}

}  // namespace

TEST(PointProgress, PointsBeginInTheirOrderAndSkippedOnesCountAsDone) {
  PointProgress p;
  p.add(PointKind::Build, 1, "iolist", 2, 1);
  p.add(PointKind::Append, 1, "0", 4, 2);
  p.add(PointKind::Append, 10, "0", 4, 1);
  EXPECT_DOUBLE_EQ(p.begin(PointKind::Build, 1, "iolist", 0), 0);
  EXPECT_DOUBLE_EQ(p.step(), 0.125);  // half of a quarter
  EXPECT_DOUBLE_EQ(p.step(), 0.25);
  EXPECT_DOUBLE_EQ(p.step(), 0.25);  // a step more than planned: the point stays done
  // A point not planned (or planned before the current one) changes nothing.
  EXPECT_DOUBLE_EQ(p.begin(PointKind::Read, 1, "", 1), 0.25);
  EXPECT_DOUBLE_EQ(p.begin(PointKind::Build, 1, "iolist", 1), 0.25);
  EXPECT_DOUBLE_EQ(p.step(), 0.25);
  // The single writer skipped: 10 writers begin where it would have ended. The build took
  // 1 s as foretold, so the forecasts stand.
  EXPECT_DOUBLE_EQ(p.begin(PointKind::Append, 10, "0", 1), 0.75);
  EXPECT_DOUBLE_EQ(p.step(), 0.8125);
}

// A point measured to verdicts is foretold its share of the run's budget, and reaches as far
// as its time says (PointRounds::done), never back.
TEST(PointProgress, APointForetoldAnewReachesWhereItsTimeSays) {
  PointProgress p;
  p.add(PointKind::Append, 1, "0", 10, 1.0);
  p.add(PointKind::Append, 10, "0", 10, 1.0);
  p.foretell(0, 9.0);  // now 9 s of 10
  EXPECT_DOUBLE_EQ(p.planned()[0].forecast_s, 9.0);
  EXPECT_DOUBLE_EQ(p.begin(PointKind::Append, 1, "0", 0), 0);
  EXPECT_NEAR(p.reach(0.5), 0.45, 1e-9);
  EXPECT_NEAR(p.reach(0.2), 0.45, 1e-9);  // never back
  EXPECT_NEAR(p.begin(PointKind::Append, 10, "0", 9), 0.9, 1e-9);
  EXPECT_NEAR(p.reach(1.0), 1.0, 1e-9);
}

TEST(PointProgress, ForecastsAreScaledByWhatTheirKindTookElseByAll) {
  PointProgress p;
  p.add(PointKind::Build, 1, "", 1, 1);
  p.add(PointKind::Append, 1, "", 1, 1);
  p.add(PointKind::Append, 10, "", 1, 4);
  p.add(PointKind::Read, 1, "", 1, 2);
  p.begin(PointKind::Build, 1, "", 0);
  p.begin(PointKind::Append, 1, "", 3);  // the build took three times its forecast
  EXPECT_DOUBLE_EQ(p.expected(1), 3);
  EXPECT_DOUBLE_EQ(p.expected(2), 12);
  EXPECT_DOUBLE_EQ(p.expected(3), 6);
  p.begin(PointKind::Append, 10, "", 3.5);  // the single writer took half its forecast
  EXPECT_DOUBLE_EQ(p.expected(2), 2);
  EXPECT_DOUBLE_EQ(p.expected(3), 2 * 3.5 / 2);  // no read yet: all the points, 3.5 s for 2 s
  p.begin(PointKind::Read, 1, "", 5.5);          // 5.5 s for 6 s
  EXPECT_DOUBLE_EQ(p.expected(3), 2 * 5.5 / 6);
}

TEST(PointProgress, TheTimeLeftOfADefaultRunHolds) {
  for (const bool loaded : {false, true}) {
    const Trace trace = replay(loaded, false);
    for (const double share : {0.25, 0.5, 0.75}) {
      const double real = trace.back().first * (1 - share);
      EXPECT_NEAR(test::time_left_at(trace, share), real, 0.25 * real)
          << (loaded ? "loaded" : "quiet") << ", at " << share;
    }
  }
  // Every step alike, as before: 2.3 to 4 times the time left (a build sample counted as a
  // round of 100 writers).
  const Trace alike = replay(false, true);
  EXPECT_GT(test::time_left_at(alike, 0.25), 2 * alike.back().first * 0.75);
}
