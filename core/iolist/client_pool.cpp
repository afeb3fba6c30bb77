// The IO-list experiment's client pool: worker threads released together, one sample per
// operation (iolist/client_pool.h).
#include "iolist/client_pool.h"

#include "common/clock.h"

namespace perflab::iolist {

ClientPool::ClientPool(std::size_t n, const PgTarget& pg, EventIdAllocator& ids,
                       std::stop_token stop)
    : ClientPool(n, std::vector<PgTarget>{pg}, ids, std::move(stop)) {}

ClientPool::ClientPool(std::size_t n, const std::vector<PgTarget>& targets, EventIdAllocator& ids,
                       std::stop_token stop)
    : start_(static_cast<std::ptrdiff_t>(n + 1)), done_(static_cast<std::ptrdiff_t>(n + 1)) {
  conns_.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    conns_.push_back(targets.at(i % targets.size()).connect(stop));
  for (std::size_t i = 0; i < n; ++i)
    stores_.emplace_back(
        std::make_unique<EventStore>(conns_[i], targets[i % targets.size()].schema, ids));
  cpu_.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) threads_.emplace_back([this, i] { loop(i); });
}

ClientPool::~ClientPool() {
  quit_ = true;
  start_.arrive_and_wait();
  for (auto& t : threads_) t.join();
}

ClientPool::Sample ClientPool::run(const Work& work) {
  work_ = &work;
  error_ = nullptr;
  const std::int64_t t0 = wall_ns();
  start_.arrive_and_wait();
  done_.arrive_and_wait();
  const std::int64_t t1 = wall_ns();
  if (error_) std::rethrow_exception(error_);
  Sample s;
  s.wall_us = static_cast<double>(t1 - t0) / 1000.0;
  for (auto c : cpu_) s.cpu_us += static_cast<double>(c) / 1000.0;
  return s;
}

std::int64_t ClientPool::backend_cpu_ns() const {
  std::int64_t sum = 0;
  for (const auto& c : conns_) {
    const std::int64_t ns = other_process_cpu_ns(c.backend_pid());
    if (ns < 0) return -1;
    sum += ns;
  }
  return sum;
}

std::vector<int> ClientPool::backend_pids() const {
  std::vector<int> pids;
  for (const auto& c : conns_) pids.push_back(c.backend_pid());
  return pids;
}

void ClientPool::loop(std::size_t i) {
  for (;;) {
    start_.arrive_and_wait();
    if (quit_) return;
    const std::int64_t c0 = thread_cpu_ns();
    try {
      (*work_)(i, *stores_[i]);
    } catch (...) {
      std::lock_guard lock(mu_);
      if (!error_) error_ = std::current_exception();
    }
    cpu_[i] = thread_cpu_ns() - c0;
    done_.arrive_and_wait();
  }
}

}  // namespace perflab::iolist
