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
#include <string>
#include <thread>
#include <vector>

#include "iolist/event_store.h"
#include "targets/postgres.h"
#include "targets/targets.h"

namespace perflab::iolist {

// One operation of a client pool: wall time from release until the last worker is done, the
// CPU time the workers' threads used, and the time they spent runnable but waiting for a CPU
// (the scheduler's run delay, /proc/thread-self/schedstat; -1 where it cannot be read) (µs);
// and the machine's clock ticks over all its CPUs during it, all and idle (/proc/stat: no
// thread ready to run; -1 where it cannot be read).
struct ClientPoolSample {
  double wall_us = 0, cpu_us = 0, wait_us = 0;
  double machine_ticks = -1, idle_ticks = -1;
};

// T threads released together for each operation, each running body(k) once; the sample is the
// wall time from release until the last is done and the CPU time the threads used for it. The
// body must not throw (a pool catches its clients' failures). Joined when it goes.
class ReleasedThreads {
 public:
  using Body = std::function<void(std::size_t thread)>;
  ReleasedThreads(std::size_t t, Body body);
  ~ReleasedThreads();
  ReleasedThreads(const ReleasedThreads&) = delete;
  ReleasedThreads& operator=(const ReleasedThreads&) = delete;
  ClientPoolSample run();
  std::size_t size() const { return threads_.size(); }

 private:
  void loop(std::size_t k);

  Body body_;
  std::vector<std::int64_t> cpu_, wait_;
  std::barrier<> start_, done_;
  std::atomic<bool> quit_{false};
  std::vector<std::thread> threads_;
};

// One client's append in a pool's operation: to stream_uuid, expecting its version, these events.
struct ClientAppend {
  std::string stream_uuid;
  std::int64_t expected_version = 0;
  const std::vector<EventData>* events = nullptr;
};

// One client's read in a pool's operation: up to `count` events of the stream from
// start_version on (EventStore::read_stream_forward).
struct ClientRead {
  std::string stream_uuid;
  std::int64_t start_version = 1;
  int count = 0;
};

// N clients appending or reading at once, however they are driven (a thread each: ClientPool; a
// few threads driving many connections asynchronously: AsyncPool). What measure_appends and the
// reads measure.
class ClientDriver {
 public:
  virtual ~ClientDriver() = default;
  virtual std::size_t size() const = 0;
  // The OS threads that drive the clients.
  virtual std::size_t threads() const = 0;
  // Client w makes appends[w] on the round-trip or pipeline transport `options` say, every client
  // at once; timings[w] receives its phases (as far as the driver times them). Throws the first
  // client's failure once every client is done.
  virtual ClientPoolSample append(const std::vector<ClientAppend>& appends,
                                  const AppendOptions& options,
                                  std::vector<AppendTiming>& timings) = 0;
  // Client r reads reads[r] with EventStore's statement and decoding, every client at once;
  // got[r] receives its events. Throws the first client's failure once every client is done.
  virtual ClientPoolSample read(const std::vector<ClientRead>& reads,
                                std::vector<std::vector<RecordedEvent>>& got) = 0;
  // EventStore::reserve_stream_ids on every client's connection.
  virtual void reserve_stream_ids(std::size_t count) = 0;
  // CPU time the server's backends of these connections have used so far (schedstat clock),
  // or -1 when it cannot be read. Meaningful only for a server on this machine.
  virtual std::int64_t backend_cpu_ns() const = 0;
  // The server's process ids of these connections (PostgreSQL's backends when connected
  // directly; through a pooler they are the pooler's own keys, not processes).
  virtual std::vector<int> backend_pids() const = 0;
};

// The connections of N clients, each with its event store: client i connected to
// targets[i % targets.size()] (clients spread over servers: standbys). Connecting is bounded and
// ends on a stop (PgConnection).
class ClientConnections {
 public:
  ClientConnections(std::size_t n, const std::vector<PgTarget>& targets, EventIdAllocator& ids,
                    std::stop_token stop);
  std::size_t size() const { return conns_.size(); }
  PgConnection& connection(std::size_t i) { return conns_[i]; }
  EventStore& store(std::size_t i) { return *stores_[i]; }
  std::int64_t backend_cpu_ns() const;  // as ClientDriver's
  std::vector<int> backend_pids() const;

 private:
  std::vector<PgConnection> conns_;
  std::vector<std::unique_ptr<EventStore>> stores_;
};

// N worker threads, each with its own connection, released together for one operation; the
// sample is the wall time from release until the last one is done (Benchfella's µs/op for
// its concurrent benches), plus the CPU time the workers' threads used.
class ClientPool : public ClientDriver {
 public:
  using Work = std::function<void(std::size_t worker, EventStore& store)>;

  // Every connection's waits are bounded and end on a stop (PgConnection), so the workers always
  // come back to the barrier.
  ClientPool(std::size_t n, const PgTarget& pg, EventIdAllocator& ids, std::stop_token stop);
  // Worker i connected to targets[i % targets.size()]: clients spread over servers (standbys).
  ClientPool(std::size_t n, const std::vector<PgTarget>& targets, EventIdAllocator& ids,
             std::stop_token stop);
  ClientPool(const ClientPool&) = delete;
  ClientPool& operator=(const ClientPool&) = delete;

  using Sample = ClientPoolSample;

  // Runs `work` on every worker at once; rethrows the first worker's exception.
  Sample run(const Work& work);

  EventStore& store(std::size_t i) { return clients_.store(i); }
  PgConnection& connection(std::size_t i) { return clients_.connection(i); }  // worker i's own
  std::size_t size() const override { return clients_.size(); }
  std::size_t threads() const override { return size(); }

  // Worker w appends, or reads, with its event store.
  Sample append(const std::vector<ClientAppend>& appends, const AppendOptions& options,
                std::vector<AppendTiming>& timings) override;
  Sample read(const std::vector<ClientRead>& reads,
              std::vector<std::vector<RecordedEvent>>& got) override;
  void reserve_stream_ids(std::size_t count) override;
  std::int64_t backend_cpu_ns() const override;
  std::vector<int> backend_pids() const override;

 private:
  void work(std::size_t i);  // worker i's part of an operation

  ClientConnections clients_;
  const Work* work_ = nullptr;
  std::mutex mu_;
  std::exception_ptr error_;
  ReleasedThreads threads_;  // last: its threads go first
};

}  // namespace perflab::iolist
