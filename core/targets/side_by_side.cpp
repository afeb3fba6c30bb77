// run_side_by_side (targets/side_by_side.h): one thread per job, joined.
#include "targets/side_by_side.h"

#include <system_error>
#include <thread>

namespace perflab {

void run_side_by_side(std::vector<std::function<void()>> jobs) {
  if (jobs.empty()) return;
  std::vector<std::thread> threads;
  threads.reserve(jobs.size() - 1);
  for (std::size_t i = 0; i + 1 < jobs.size(); ++i) {
    try {
      threads.emplace_back([&job = jobs[i]] { job(); });  // jobs outlives the threads
    } catch (const std::system_error&) {
      jobs[i]();  // no thread to be had: this one at least still stops
    }
  }
  jobs.back()();
  for (auto& t : threads) t.join();
}

}  // namespace perflab
