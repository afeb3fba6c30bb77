#pragma once
// The proxy's counters, per proxy and per node: written by the loop thread only, read from any
// thread (Proxy::stats, PROXY STATS, the stats port). Named as ProxyStats names what they read.
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace perflab::proxy {

// A counter written by one thread and read from any: a relaxed load and store, no locked
// instruction on the hot path.
struct Counter {
  std::atomic<std::uint64_t> v{0};
  void add(std::uint64_t n = 1) {
    v.store(v.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void sub(std::uint64_t n = 1) {
    v.store(v.load(std::memory_order_relaxed) - n, std::memory_order_relaxed);
  }
  std::uint64_t get() const { return v.load(std::memory_order_relaxed); }
};

struct ServerCounters {
  Counter eof, err, timedout, connections, requests, request_bytes, responses, response_bytes,
      in_queue_bytes, out_queue;
};

struct Counters {
  Counter clients_accepted, clients_connected, clients_refused, client_eof, client_err, requests,
      fragments, forward_error, protocol_errors, auth_failures, refused_commands,
      client_limit_closes, clients_evicted, clients_rested, replies_held, client_timeouts,
      backend_failures, backend_timeouts;
  std::vector<std::unique_ptr<ServerCounters>> servers;  // one per node, in node order
};

}  // namespace perflab::proxy
