// A process paused on a schedule (targets/periodic_pause.h): stopped during each pause, running
// between them, and never left stopped when the schedule ends mid-pause (destructor or Stop).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <stop_token>
#include <thread>

#include "servers.h"
#include "targets/periodic_pause.h"

using namespace perflab;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// A child process of the test's own that only sleeps; killed and reaped with the object.
struct Sleeper {
  pid_t pid = ::fork();
  Sleeper() {
    if (pid == 0) {
      ::execlp("sleep", "sleep", "600", static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }
  ~Sleeper() {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
};

// Waits up to `bound` for `done`; whether it came true.
bool eventually(const std::function<bool()>& done, std::chrono::milliseconds bound = 5s) {
  for (const auto until = Clock::now() + bound; Clock::now() < until;
       std::this_thread::sleep_for(5ms))
    if (done()) return true;
  return done();
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

TEST(PeriodicPause, StopsTheProcessDuringEachPauseOnly) {
  Sleeper child;
  ASSERT_GT(child.pid, 0);
  ASSERT_TRUE(eventually([&] { return test::process_state(child.pid) == 'S'; }));
  int stopped_seen = 0;
  {
    PeriodicPause pause(child.pid, {.first = 100ms, .pause = 300ms, .every = 1000ms});
    // Each of two pauses: the process is seen stopped ('T') while paused() says so, then
    // running again once it is over.
    for (int k = 0; k < 2; ++k) {
      ASSERT_TRUE(eventually([&] { return pause.paused(); })) << "pause " << k;
      if (eventually([&] { return test::process_state(child.pid) == 'T'; }, 250ms)) ++stopped_seen;
      ASSERT_TRUE(eventually([&] { return !pause.paused(); })) << "pause " << k;
      EXPECT_TRUE(eventually([&] { return test::process_state(child.pid) != 'T'; }));
    }
    EXPECT_EQ(pause.pauses(), 2);
    // Each pause lasted its 300 ms, give or take a loaded machine's scheduling.
    EXPECT_GE(pause.paused_seconds(), 2 * 0.3 - 0.01);
    EXPECT_LT(pause.paused_seconds(), 2 * 0.3 + 5.0);
  }
  EXPECT_GE(stopped_seen, 1);  // a 300 ms stop is seen within its 250 ms at least once
  EXPECT_NE(test::process_state(child.pid), 'T');
}

TEST(PeriodicPause, EndingMidPauseThawsTheProcessAtOnce) {
  Sleeper child;
  ASSERT_GT(child.pid, 0);
  auto pause = std::make_unique<PeriodicPause>(
      child.pid, PauseSchedule{.first = 0ms, .pause = 600s, .every = 601s});
  ASSERT_TRUE(eventually([&] { return test::process_state(child.pid) == 'T'; }));
  const auto t0 = Clock::now();
  pause.reset();  // ten minutes early
  const double took = seconds_since(t0);
  std::printf("the schedule ended %.3f s after it was asked to, mid-pause\n", took);
  EXPECT_LT(took, 5.0);  // a wait on a condition variable: a few ms
  EXPECT_TRUE(eventually([&] { return test::process_state(child.pid) != 'T'; }));
}

TEST(PeriodicPause, StopMidPauseThawsAndEndsTheSchedule) {
  Sleeper child;
  ASSERT_GT(child.pid, 0);
  std::stop_source stop;
  PeriodicPause pause(child.pid, {.first = 0ms, .pause = 600s, .every = 601s}, stop.get_token());
  ASSERT_TRUE(eventually([&] { return test::process_state(child.pid) == 'T'; }));
  const auto t0 = Clock::now();
  stop.request_stop();
  ASSERT_TRUE(eventually([&] { return !pause.paused(); }));
  std::printf("Stop thawed the process %.3f s after it was pressed\n", seconds_since(t0));
  EXPECT_TRUE(eventually([&] { return test::process_state(child.pid) != 'T'; }));
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(pause.pauses(), 1);  // no pause after Stop
  EXPECT_NE(test::process_state(child.pid), 'T');
}

TEST(PeriodicPause, AStopRequestedBeforeTheFirstPauseMeansNone) {
  Sleeper child;
  ASSERT_GT(child.pid, 0);
  std::stop_source stop;
  stop.request_stop();
  PeriodicPause pause(child.pid, {.first = 0ms, .pause = 600s, .every = 601s}, stop.get_token());
  pause.finish();
  EXPECT_EQ(pause.pauses(), 0);
  EXPECT_NE(test::process_state(child.pid), 'T');
}
