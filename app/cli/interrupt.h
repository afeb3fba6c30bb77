#pragma once
// Ctrl-C (SIGINT) and SIGTERM as a stop request, for the commands of perflab-cli that measure.
// The signal handler only sets a flag (async-signal-safe); a watcher thread turns it into a
// std::stop_source request within 50 ms, which the run or the load generator honours.
#include <atomic>
#include <csignal>
#include <functional>
#include <stop_token>
#include <thread>

namespace perflab {

class InterruptStop {
 public:
  // on_interrupt (may be empty) runs on the watcher thread when a signal arrives. The previous
  // handlers come back when the object goes.
  explicit InterruptStop(std::function<void()> on_interrupt = {});
  ~InterruptStop();
  InterruptStop(const InterruptStop&) = delete;
  InterruptStop& operator=(const InterruptStop&) = delete;

  std::stop_token token() const { return stop_.get_token(); }

 private:
  std::stop_source stop_;
  void (*old_int_)(int) = nullptr;
  void (*old_term_)(int) = nullptr;
  std::jthread watcher_;
};

}  // namespace perflab
