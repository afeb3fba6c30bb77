// A run whose server freezes at a step, and the checks of its end (frozen_run.h).
#include "frozen_run.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <stop_token>

#include "run_probes.h"
#include "servers.h"

namespace perflab::test {

namespace {

using Clock = std::chrono::steady_clock;

// Freezes the server the first time a progress step contains the run's step; thawed when it goes.
class FreezeAtStep {
 public:
  explicit FreezeAtStep(const FrozenRun& r) : server_(r.server), step_(r.step) {}

  RunHooks hooks() {
    return at_first_step(step_, [this] {
      freeze_ = std::make_unique<Freeze>(server_);
      at_ = Clock::now();
      frozen_ = true;
    });
  }
  bool frozen() const { return frozen_; }
  double seconds_since_freeze() const {
    return std::chrono::duration<double>(Clock::now() - at_).count();
  }

 private:
  pid_t server_;
  std::string step_;
  std::unique_ptr<Freeze> freeze_;
  Clock::time_point at_;
  std::atomic<bool> frozen_{false};  // read by the thread that presses Stop
};

}  // namespace

perflab::Run expect_fails_within(const FrozenRun& r, double bound_s, double slack_s,
                                 const std::string& message) {
  FreezeAtStep freeze(r);
  perflab::Run run = execute(r.experiment, r.targets, r.params, freeze.hooks(), {});
  const double took = freeze.seconds_since_freeze();
  if (!freeze.frozen()) {
    ADD_FAILURE() << "no step contained \"" << r.step << "\": " << run.message;
    return run;
  }
  std::printf("%s ended %.2f s after the freeze (bound %.0f s)\n", r.what.c_str(), took, bound_s);
  EXPECT_EQ(run.status, RunStatus::Failed);
  EXPECT_NE(run.message.find(message), std::string::npos) << run.message;
  EXPECT_LT(took, bound_s + slack_s);  // does not hang
  return run;
}

perflab::Run expect_stops_within_a_second(const FrozenRun& r) {
  FreezeAtStep freeze(r);
  std::stop_source stop;
  StopLater stopper(
      stop, [&freeze] { return freeze.frozen(); }, std::chrono::milliseconds(500));
  perflab::Run run = execute(r.experiment, r.targets, r.params, freeze.hooks(), stop.get_token());
  const double took = stopper.seconds_since_stop();
  if (!freeze.frozen() || !stopper.requested()) {
    ADD_FAILURE() << "the run ended before Stop was pressed in the freeze: " << run.message;
    return run;
  }
  std::printf("%s ended %.3f s after Stop during the freeze\n", r.what.c_str(), took);
  // Within a second is the target, the figure printed above; the test holds that the run
  // returns, with a bound no loaded machine with ASan comes near.
  EXPECT_LT(took, 15.0);
  EXPECT_EQ(run.status, RunStatus::Cancelled) << run.message;
  return run;
}

}  // namespace perflab::test
