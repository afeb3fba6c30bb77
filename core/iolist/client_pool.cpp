// The IO-list experiment's client pool: worker threads released together, one sample per
// operation (iolist/client_pool.h).
#include "iolist/client_pool.h"

#include <optional>

#include "common/clock.h"
#include "common/machine_noise.h"

namespace perflab::iolist {

ClientConnections::ClientConnections(std::size_t n, const std::vector<PgTarget>& targets,
                                     EventIdAllocator& ids, std::stop_token stop) {
  conns_.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    conns_.push_back(targets.at(i % targets.size()).connect(stop));
  for (std::size_t i = 0; i < n; ++i)
    stores_.emplace_back(
        std::make_unique<EventStore>(conns_[i], targets[i % targets.size()].schema, ids));
}

ClientPool::ClientPool(std::size_t n, const PgTarget& pg, EventIdAllocator& ids,
                       std::stop_token stop)
    : ClientPool(n, std::vector<PgTarget>{pg}, ids, std::move(stop)) {}

ClientPool::ClientPool(std::size_t n, const std::vector<PgTarget>& targets, EventIdAllocator& ids,
                       std::stop_token stop)
    : clients_(n, targets, ids, std::move(stop)), threads_(n, [this](std::size_t i) { work(i); }) {}

ReleasedThreads::ReleasedThreads(std::size_t t, Body body)
    : body_(std::move(body)),
      cpu_(t, 0),
      wait_(t, 0),
      start_(static_cast<std::ptrdiff_t>(t + 1)),
      done_(static_cast<std::ptrdiff_t>(t + 1)) {
  for (std::size_t k = 0; k < t; ++k) threads_.emplace_back([this, k] { loop(k); });
}

ReleasedThreads::~ReleasedThreads() {
  quit_ = true;
  start_.arrive_and_wait();
  for (auto& t : threads_) t.join();
}

ClientPoolSample ReleasedThreads::run() {
  // The machine's counters just outside the wall time: reading them is not the operation's.
  const std::optional<CpuTimes> m0 = read_cpu_times();
  const std::int64_t t0 = wall_ns();
  start_.arrive_and_wait();
  done_.arrive_and_wait();
  const std::int64_t t1 = wall_ns();
  const std::optional<CpuTimes> m1 = read_cpu_times();
  ClientPoolSample s;
  s.wall_us = static_cast<double>(t1 - t0) / 1000.0;
  if (const auto ticks = m0 && m1 ? idle_ticks(*m0, *m1) : std::nullopt) {
    s.machine_ticks = double(ticks->all);
    s.idle_ticks = double(ticks->idle);
  }
  for (auto c : cpu_) s.cpu_us += static_cast<double>(c) / 1000.0;
  for (auto w : wait_) s.wait_us = w < 0 || s.wait_us < 0 ? -1 : s.wait_us + double(w) / 1000.0;
  return s;
}

void ReleasedThreads::loop(std::size_t k) {
  const ThreadRunDelay delay;  // a pread each read: little within the operation's wall time
  for (;;) {
    start_.arrive_and_wait();
    if (quit_) return;
    // Read after the release: between operations a thread spins in the barrier, and its wait
    // for a CPU there is not the operation's.
    const std::int64_t c0 = thread_cpu_ns(), w0 = delay.ns();
    body_(k);
    cpu_[k] = thread_cpu_ns() - c0;
    const std::int64_t w1 = delay.ns();
    wait_[k] = w0 >= 0 && w1 >= 0 ? w1 - w0 : -1;
    done_.arrive_and_wait();
  }
}

ClientPool::Sample ClientPool::run(const Work& work) {
  work_ = &work;
  error_ = nullptr;
  const Sample s = threads_.run();
  if (error_) std::rethrow_exception(error_);
  return s;
}

ClientPool::Sample ClientPool::append(const std::vector<ClientAppend>& appends,
                                      const AppendOptions& options,
                                      std::vector<AppendTiming>& timings) {
  return run([&](std::size_t w, EventStore& store) {
    const ClientAppend& a = appends.at(w);
    store.append_to_stream(a.stream_uuid, a.expected_version, *a.events, options, &timings.at(w));
  });
}

ClientPool::Sample ClientPool::read(const std::vector<ClientRead>& reads,
                                    std::vector<std::vector<RecordedEvent>>& got) {
  got.resize(size());
  return run([&](std::size_t w, EventStore& store) {
    const ClientRead& rd = reads.at(w);
    got[w] = store.read_stream_forward(rd.stream_uuid, rd.start_version, rd.count);
  });
}

void ClientPool::reserve_stream_ids(std::size_t count) {
  run([&](std::size_t, EventStore& store) { store.reserve_stream_ids(count); });
}

std::int64_t ClientPool::backend_cpu_ns() const {
  return clients_.backend_cpu_ns();
}

std::vector<int> ClientPool::backend_pids() const {
  return clients_.backend_pids();
}

std::int64_t ClientConnections::backend_cpu_ns() const {
  std::int64_t sum = 0;
  for (const auto& c : conns_) {
    const std::int64_t ns = other_process_cpu_ns(c.backend_pid());
    if (ns < 0) return -1;
    sum += ns;
  }
  return sum;
}

std::vector<int> ClientConnections::backend_pids() const {
  std::vector<int> pids;
  for (const auto& c : conns_) pids.push_back(c.backend_pid());
  return pids;
}

void ClientPool::work(std::size_t i) {
  try {
    (*work_)(i, clients_.store(i));
  } catch (...) {
    std::lock_guard lock(mu_);
    if (!error_) error_ = std::current_exception();
  }
}

}  // namespace perflab::iolist
