#pragma once
// The IO-list experiment's event-driven client pool: a few threads, each driving many libpq
// connections with the asynchronous API (as pgbench -j does), released together for one append
// or one read.
#include <cstdint>
#include <stop_token>
#include <vector>

#include "iolist/client_pool.h"
#include "iolist/event_store.h"
#include "targets/targets.h"

namespace perflab::iolist {

// N connections driven by T threads (client i by thread i % T), each thread waiting on all of
// its connections at once (poll) and moving each one's append along as its results come: BEGIN,
// the expected-version check, the INSERT (built when the check is done), COMMIT; the same
// statements, bytes and parameters as EventStore::append_to_stream on the round-trip transport
// (VersionCheck and EventStore::build_append_insert are shared). A read is one statement, the
// same as EventStore::read_stream_forward's, decoded the same way (StreamRead, decode_events).
// Only the way the client drives its connections differs from ClientPool.
//
// Each statement waits at most the connection's PgLimits::reply_timeout(); then, as on a stop
// (seen within kStopSlice), a cancel request goes out, the connection is closed and the
// operation fails. A statement that fails rolls its transaction back and fails the operation with
// the server's message (WrongExpectedVersion as the store throws it), once every client is done.
class AsyncPool : public ClientDriver {
 public:
  // threads: 0 for the machine's cores; at most n.
  AsyncPool(std::size_t n, const PgTarget& pg, EventIdAllocator& ids, std::stop_token stop,
            std::size_t threads = 0);
  // Client i connected to targets[i % targets.size()]: clients spread over servers (standbys).
  AsyncPool(std::size_t n, const std::vector<PgTarget>& targets, EventIdAllocator& ids,
            std::stop_token stop, std::size_t threads = 0);
  ~AsyncPool() override;  // the threads end first
  AsyncPool(const AsyncPool&) = delete;
  AsyncPool& operator=(const AsyncPool&) = delete;

  std::size_t size() const override { return clients_.size(); }
  std::size_t threads() const override { return threads_.size(); }
  EventStore& store(std::size_t i) { return clients_.store(i); }

  // The round-trip transport only (std::invalid_argument otherwise). The phases' wall times go
  // to `timings` (from a statement's sending to its result; no CPU time: a thread drives many
  // clients at once). The sample's CPU time is the T threads' own.
  ClientPoolSample append(const std::vector<ClientAppend>& appends, const AppendOptions& options,
                          std::vector<AppendTiming>& timings) override;
  // Each statement bounded and ended by a stop as an append's; its failure fails the operation.
  ClientPoolSample read(const std::vector<ClientRead>& reads,
                        std::vector<std::vector<RecordedEvent>>& got) override;
  // One client at a time, from the calling thread (before measuring).
  void reserve_stream_ids(std::size_t count) override;
  std::int64_t backend_cpu_ns() const override { return clients_.backend_cpu_ns(); }
  std::vector<int> backend_pids() const override { return clients_.backend_pids(); }

 private:
  struct Client;
  void work(std::size_t t);    // thread t's part of an operation; never throws
  void drive(std::size_t t);   // thread t's clients, one append or read each
  ClientPoolSample operate();  // every client's append or read; rethrows the first failure

  ClientConnections clients_;
  std::stop_token stop_;
  std::vector<Client> state_;
  const std::vector<ClientAppend>* appends_ = nullptr;
  const AppendOptions* options_ = nullptr;
  std::vector<AppendTiming>* timings_ = nullptr;
  const std::vector<ClientRead>* reads_ = nullptr;  // a read, when not null
  std::vector<std::vector<RecordedEvent>>* got_ = nullptr;
  ReleasedThreads threads_;  // last: its threads go first
};

}  // namespace perflab::iolist
