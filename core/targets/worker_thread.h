#pragma once
// A long-lived thread that runs the jobs posted to it, in order, with every signal blocked (so
// asynchronous signals go to the program's own threads). Made once and never destroyed: it may
// have to outlive static destructors, or be blocked in a job when the program exits.
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>

namespace perflab {

class WorkerThread {
 public:
  // A new worker, never destroyed; keep the reference (e.g. in a function-local static).
  static WorkerThread& start();

  void post(std::function<void()> job);

  // Runs f on the worker and waits for its result (or its exception).
  template <class F>
  auto run(F&& f) -> decltype(f()) {
    using R = decltype(f());
    auto task = std::make_shared<std::packaged_task<R()>>(std::forward<F>(f));
    std::future<R> result = task->get_future();
    post([task] { (*task)(); });
    return result.get();
  }

 private:
  WorkerThread();
  void loop();
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
};

}  // namespace perflab
