#include "targets/worker_thread.h"

#include <pthread.h>
#include <signal.h>

#include <thread>

namespace perflab {

WorkerThread& WorkerThread::start() {
  return *new WorkerThread;
}

WorkerThread::WorkerThread() {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);  // the new thread inherits the mask
  std::thread([this] { loop(); }).detach();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void WorkerThread::post(std::function<void()> job) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void WorkerThread::loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return !queue_.empty(); });
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job();
  }
}

}  // namespace perflab
