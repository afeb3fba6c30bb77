// stop_in_background (background_stop.h): one thread per handed-over Targets, joined at exit.
#include "background_stop.h"

#include <mutex>
#include <thread>
#include <vector>

namespace perflab::gui {

namespace {

struct Stops {
  std::mutex mu;
  std::vector<std::thread> threads;
  ~Stops() { join(); }  // at exit, should main() not have waited
  void join() {
    std::vector<std::thread> going;
    {
      std::lock_guard lock(mu);
      going.swap(threads);
    }
    for (auto& t : going) t.join();
  }
};

Stops& stops() {
  static Stops s;
  return s;
}

}  // namespace

void stop_in_background(std::shared_ptr<Targets> targets) {
  if (!targets) return;
  Stops& s = stops();
  std::lock_guard lock(s.mu);
  s.threads.emplace_back([t = std::move(targets)]() mutable { t.reset(); });
}

void wait_for_background_stops() {
  stops().join();
}

}  // namespace perflab::gui
