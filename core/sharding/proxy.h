#pragma once
// The sharding proxy: RESP2 over TCP, RedisSharding's routing and command classes, one epoll
// event loop on one thread, non-blocking sockets.
//
// Backend connections are shared by all clients (one per node, a FIFO of pending request parts
// each), so that in one loop turn the fragments of many clients leave in one write; a client
// that needs per-connection state (SELECT, AUTH) or blocks (BLPOP, BRPOP) moves to connections
// of its own, as RedisSharding gives every client (ProxyOptions::shared_backends = false does
// that for all). Every client keeps a FIFO of its requests; a reply leaves only when every
// earlier one has, so pipelines of any depth keep their order.
//
// Write strategies replay the story of the seed article: `per-reply` sends each reply and each
// forwarded command with its own send(); `coalesced` gathers everything that became ready into
// one send per socket per loop turn. TCP_NODELAY is set (or not) on both sides.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/endpoint.h"
#include "sharding/resp.h"

namespace perflab::sharding {

enum class WriteStrategy { Coalesced, PerReply };
const char* to_string(WriteStrategy w);
WriteStrategy parse_write_strategy(std::string_view s);  // throws std::invalid_argument

enum class LogLevel { Error = 0, Warn = 1, Info = 2, Debug = 3 };
const char* to_string(LogLevel l);
LogLevel parse_log_level(std::string_view s);  // throws std::invalid_argument

struct ProxyOptions {
  std::string bind = "127.0.0.1";
  int port = 8090;                   // 0: any free port (see Proxy::port())
  std::vector<RedisEndpoint> nodes;  // in --nodes order; node = crc32(key) mod size
  std::string password;              // sent with AUTH on every backend connection
  WriteStrategy write = WriteStrategy::Coalesced;
  bool nodelay = true;  // TCP_NODELAY on client and backend sockets
  // true: one connection per node shared by all clients (requests of every client queue on it,
  // replies come back in order: a FIFO per connection), as twemproxy does; a client moves to
  // connections of its own for SELECT, AUTH, BLPOP and BRPOP. false: every client gets its own
  // backend connections, as RedisSharding does.
  bool shared_backends = true;
  RespLimits limits;
  // A client whose queued output plus held replies exceed this, or with this many requests in
  // flight, is not read from until it drains below half: memory per client stays bounded.
  std::size_t max_client_pending_bytes = 32 * 1024 * 1024;
  std::size_t max_client_pending_requests = 10000;
  int reconnect_interval_ms = 100;  // after a failed connect, fail fast for this long
  LogLevel log_level = LogLevel::Info;
};

// Counters, readable from any thread.
struct ProxyStats {
  std::uint64_t clients_accepted = 0;
  std::uint64_t clients_connected = 0;
  std::uint64_t requests = 0;
  std::uint64_t protocol_errors = 0;
  std::uint64_t backend_failures = 0;
};

class Proxy {
 public:
  // Validates the options, resolves the nodes, binds and listens. Throws std::runtime_error
  // (std::invalid_argument for bad options) with the reason.
  explicit Proxy(ProxyOptions opts);
  ~Proxy();  // stops and joins the thread if started
  Proxy(const Proxy&) = delete;
  Proxy& operator=(const Proxy&) = delete;

  int port() const;  // the bound port
  const ProxyOptions& options() const;

  // Runs the event loop on the calling thread until request_stop() / stop().
  void run();
  // Runs the event loop on a thread of its own.
  void start();
  // Asks the loop to end (async-signal-safe: one write to an eventfd).
  void request_stop() noexcept;
  // request_stop() and joins the thread started by start().
  void stop();

  ProxyStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perflab::sharding
