#pragma once
// The IO-list experiment's client pool: N worker threads, each with a connection and an event
// store of its own, released together for one operation (Benchfella's concurrent benches).
#include <atomic>
#include <barrier>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

#include "iolist/event_store.h"
#include "targets/postgres.h"
#include "targets/targets.h"

namespace perflab::iolist {

// One operation of a client pool: wall time from release until the last worker is done, and
// the CPU time the workers' threads used (µs).
struct ClientPoolSample {
  double wall_us = 0, cpu_us = 0;
};

// N worker threads, each with its own connection, released together for one operation; the
// sample is the wall time from release until the last one is done (Benchfella's µs/op for
// its concurrent benches), plus the CPU time the workers' threads used.
class ClientPool {
 public:
  using Work = std::function<void(std::size_t worker, EventStore& store)>;

  // Every connection's waits are bounded and end on a stop (PgConnection), so the workers always
  // come back to the barrier.
  ClientPool(std::size_t n, const PgTarget& pg, EventIdAllocator& ids, std::stop_token stop);
  // Worker i connected to targets[i % targets.size()]: clients spread over servers (standbys).
  ClientPool(std::size_t n, const std::vector<PgTarget>& targets, EventIdAllocator& ids,
             std::stop_token stop);
  ~ClientPool();
  ClientPool(const ClientPool&) = delete;
  ClientPool& operator=(const ClientPool&) = delete;

  using Sample = ClientPoolSample;

  // Runs `work` on every worker at once; rethrows the first worker's exception.
  Sample run(const Work& work);

  EventStore& store(std::size_t i) { return *stores_[i]; }
  PgConnection& connection(std::size_t i) { return conns_[i]; }  // worker i's own
  std::size_t size() const { return conns_.size(); }

  // CPU time the server's backends of these connections have used so far (schedstat clock),
  // or -1 when it cannot be read. Meaningful only for a server on this machine.
  std::int64_t backend_cpu_ns() const;
  // The server's process ids of these connections (PostgreSQL's backends when connected
  // directly; through a pooler they are the pooler's own keys, not processes).
  std::vector<int> backend_pids() const;

 private:
  void loop(std::size_t i);

  std::vector<PgConnection> conns_;
  std::vector<std::unique_ptr<EventStore>> stores_;
  std::vector<std::thread> threads_;
  std::vector<std::int64_t> cpu_;
  std::barrier<> start_, done_;
  const Work* work_ = nullptr;
  std::atomic<bool> quit_{false};
  std::mutex mu_;
  std::exception_ptr error_;
};

}  // namespace perflab::iolist
