#include "cli/interrupt.h"

#include <chrono>

namespace perflab {

namespace {
std::atomic<bool> g_interrupted{false};
extern "C" void on_signal(int) {
  g_interrupted = true;
}
}  // namespace

InterruptStop::InterruptStop(std::function<void()> on_interrupt) {
  g_interrupted = false;
  old_int_ = std::signal(SIGINT, on_signal);
  old_term_ = std::signal(SIGTERM, on_signal);
  watcher_ = std::jthread([this, on_interrupt = std::move(on_interrupt)](std::stop_token st) {
    while (!st.stop_requested()) {
      if (g_interrupted.exchange(false)) {
        if (on_interrupt) on_interrupt();
        stop_.request_stop();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
}

InterruptStop::~InterruptStop() {
  watcher_.request_stop();
  watcher_.join();
  std::signal(SIGINT, old_int_);
  std::signal(SIGTERM, old_term_);
}

}  // namespace perflab
