// A server paused on a schedule from a thread of its own (periodic_pause.h).
#include "targets/periodic_pause.h"

#include <optional>

#include "targets/freeze.h"

namespace perflab {

PeriodicPause::PeriodicPause(pid_t server, PauseSchedule schedule, std::stop_token stop)
    : server_(server), schedule_(schedule) {
  thread_ = std::jthread([this, stop, t0 = std::chrono::steady_clock::now()](std::stop_token own) {
    loop(std::move(own), stop, t0);
  });
}

PeriodicPause::~PeriodicPause() {
  finish();
}

void PeriodicPause::finish() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  wake();
  thread_.join();
}

void PeriodicPause::wake() {
  { std::lock_guard lock(mu_); }  // a waiter between its check and its wait gets the notify
  cv_.notify_all();
}

int PeriodicPause::pauses() const {
  std::lock_guard lock(mu_);
  return pauses_;
}

double PeriodicPause::paused_seconds() const {
  std::lock_guard lock(mu_);
  return paused_s_;
}

bool PeriodicPause::paused() const {
  std::lock_guard lock(mu_);
  return paused_;
}

void PeriodicPause::loop(std::stop_token own, std::stop_token stop,
                         std::chrono::steady_clock::time_point t0) {
  using Clock = std::chrono::steady_clock;
  // A run's Stop ends the waits as the destructor does.
  std::stop_callback on_stop(stop, [this] { wake(); });
  const auto ended = [&] { return own.stop_requested() || stop.stop_requested(); };
  // Waits until `t` unless the schedule ends first; false when it ended.
  const auto wait_until = [&](Clock::time_point t) {
    std::unique_lock lock(mu_);
    cv_.wait_until(lock, t, ended);
    return !ended();
  };
  for (Clock::time_point start = t0 + schedule_.first; wait_until(start);
       start += schedule_.every) {
    std::optional<Freeze> freeze;
    {
      std::lock_guard lock(mu_);
      if (ended()) break;
      freeze.emplace(server_);
      paused_ = true;
      ++pauses_;
    }
    const auto stopped_at = Clock::now();
    wait_until(stopped_at + schedule_.pause);
    freeze->thaw();  // before anything else, also when the schedule ended mid-pause
    std::lock_guard lock(mu_);
    paused_ = false;
    paused_s_ += std::chrono::duration<double>(Clock::now() - stopped_at).count();
  }
}

}  // namespace perflab
