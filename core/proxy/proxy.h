#pragma once
// The sharding proxy: RESP2 over TCP, RedisSharding's routing (or any of twemproxy's), one epoll
// event loop on one thread, non-blocking sockets.
//
// Backend connections are shared by all clients (one per node, a FIFO of pending request parts
// each), so that in one loop turn the fragments of many clients leave in one write; a client
// that needs per-connection state (SELECT, AUTH) or blocks (BLPOP, BRPOP) moves to connections
// of its own, as RedisSharding gives every client (ProxyOptions::shared_backends = false does
// that for all). Every client keeps a FIFO of its requests; a reply leaves only when every
// earlier one has, so pipelines of any depth keep their order.
//
// Write strategies replay the seed article's story (docs/sharding.md, "The story"): `per-reply`
// sends each reply and each forwarded command with its own send(); `coalesced` gathers
// everything that became ready into one send per socket per loop turn. TCP_NODELAY is set (or
// not) on both sides.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/endpoint.h"
#include "proxy/hashkit.h"
#include "proxy/resp.h"

namespace perflab::proxy {

enum class WriteStrategy { Coalesced, PerReply };
const char* to_string(WriteStrategy w);
WriteStrategy parse_write_strategy(std::string_view s);  // throws std::invalid_argument

enum class LogLevel { Error = 0, Warn = 1, Info = 2, Debug = 3 };
const char* to_string(LogLevel l);
LogLevel parse_log_level(std::string_view s);  // throws std::invalid_argument
// A signal's name as the log gives it ("SIGHUP"; "?" for one the proxy does not handle), and
// "signal 1 (SIGHUP)". signal_name is async-signal-safe.
const char* signal_name(int sig) noexcept;
std::string signal_label(int sig);

struct ProxyOptions {
  std::string bind = "127.0.0.1";
  int port = 8090;                   // 0: any free port (see Proxy::port())
  std::vector<RedisEndpoint> nodes;  // the servers, in routing order
  // Seed nodes of a Redis Cluster instead of `nodes`: its slot map is read at start (CLUSTER
  // SLOTS), its masters become the nodes, each key goes to its slot's owner (CRC16, Redis's
  // {tag} rule), multi-key commands are split by slot, and MOVED / ASK are followed, so that a
  // client that knows nothing of clusters can use one.
  std::vector<RedisEndpoint> cluster;
  // Their names (ketama hashes them; twemproxy: "host:port" unless the config names a server)
  // and weights; empty: each node's address, weight 1.
  std::vector<PoolServer> servers;
  RoutingOptions routing;        // default: RedisSharding's crc32(key) mod N, trailing {tag}
  std::string pool = "perflab";  // the pool's name in statistics
  std::string password;          // sent with AUTH on every backend connection; never to a client
  int db = 0;                    // SELECTed on every backend connection (twemproxy's redis_db)
  // Clients must AUTH with this password before any other command (twemproxy's redis_auth,
  // Redis's requirepass); empty: no client authentication. The proxy answers AUTH itself.
  std::string requirepass;
  // Without requirepass, only loopback clients are served when listening on another address
  // (Redis's protected mode); others get -DENIED.
  bool protected_mode = true;
  // Administrative commands (CONFIG, DEBUG, SHUTDOWN, REPLICAOF, MODULE, ACL, CLIENT, ...) are
  // refused unless this is set; then they go to every node, on the client's own connections.
  bool allow_admin = false;
  WriteStrategy write = WriteStrategy::Coalesced;
  bool nodelay = true;  // TCP_NODELAY on client and backend sockets
  // true: one connection per node shared by all clients (requests of every client queue on it,
  // replies come back in order: a FIFO per connection), as twemproxy does; a client moves to
  // connections of its own for SELECT, blocking commands and (allowed) administrative ones.
  // false: every client gets its own backend connections, as RedisSharding does.
  bool shared_backends = true;
  RespLimits limits;
  // A client is not read from while the bytes it holds in the proxy (queued replies, replies
  // waiting for an earlier one) plus the replies it still expects (requests in flight times its
  // recent reply size) reach this, or with this many requests in flight; reading resumes below
  // half. A client that holds more than twice this (at least 16 MiB more) and has read nothing
  // for a second is disconnected, as Redis's client-output-buffer-limit does: memory per client
  // stays bounded, and one large reply that a client does read is still served.
  std::size_t max_client_pending_bytes = 32 * 1024 * 1024;
  std::size_t max_client_pending_requests = 10000;
  // What all clients together may hold (Redis's maxmemory-clients): their input (a command
  // still arriving), their output and the replies waiting for an earlier one, and their own
  // backend connections' buffers. Past it, the clients holding the most are disconnected until
  // the rest fit; each is logged and counted (clients_evicted). 0: no bound.
  std::size_t max_client_memory = std::size_t{1} << 30;
  // A client that has sent and read nothing for this long while no reply of its is awaited
  // (Redis's `timeout`; a half-sent command counts as idle) is closed and counted
  // (client_timeouts). 0: never (the default, as in Redis).
  int client_timeout_ms = 0;
  int reconnect_interval_ms = 100;  // after a failed connect, fail fast for this long
  // A backend connection that sends no reply byte for this long while requests wait (twemproxy's
  // `timeout:`) is reset and those requests fail; blocking commands get their own timeout on
  // top. The node's next requests are then held until it answers a probe with anything but
  // BUSY (what timed out may still run there: proxy/recovery.cpp). 0: wait forever.
  int backend_timeout_ms = 5000;
  // Statistics as JSON (twemproxy's stats format) to whoever connects; -1: none, 0: any port.
  int stats_port = -1;
  std::string log_file;  // empty: stderr; reopened on reopen_log() (SIGHUP)
  LogLevel log_level = LogLevel::Info;
};

// Counters of one backend server, with twemproxy's names.
struct ServerStats {
  std::string name;
  std::uint64_t server_eof = 0;          // connections closed by the server
  std::uint64_t server_err = 0;          // connections failed (connect, send, recv, protocol)
  std::uint64_t server_timedout = 0;     // connections reset by the backend timeout
  std::uint64_t server_connections = 0;  // open now
  std::uint64_t requests = 0, request_bytes = 0;    // sent to it
  std::uint64_t responses = 0, response_bytes = 0;  // received from it
  std::uint64_t in_queue_bytes = 0;                 // request bytes not yet written to it
  std::uint64_t out_queue = 0;                      // requests sent, waiting for their reply
};

// Counters, readable from any thread; twemproxy's names where it has them.
struct ProxyStats {
  std::string pool;
  std::int64_t uptime_s = 0;
  std::uint64_t clients_accepted = 0;   // total_connections
  std::uint64_t clients_connected = 0;  // curr_connections, client_connections
  std::uint64_t clients_refused = 0;    // out of file descriptors, or protected mode
  std::uint64_t client_eof = 0;         // clients that closed their connection
  std::uint64_t client_err = 0;         // clients closed on an error (protocol, send, limit)
  std::uint64_t requests = 0;
  std::uint64_t fragments = 0;      // parts of split or broadcast commands
  std::uint64_t forward_error = 0;  // request parts failed because a node was unavailable
  std::uint64_t protocol_errors = 0;
  std::uint64_t auth_failures = 0;
  std::uint64_t refused_commands = 0;     // NOAUTH, administrative, unsupported, CROSSSLOT
  std::uint64_t client_limit_closes = 0;  // clients disconnected for holding too much
  std::uint64_t client_memory = 0;        // what all clients hold now (see max_client_memory)
  std::uint64_t clients_evicted = 0;      // disconnected: all clients held too much together
  std::uint64_t clients_rested = 0;       // clients read slower for streaming a huge command
  std::uint64_t replies_held = 0;  // times a client's ready replies waited for its pipeline's rest
  std::uint64_t client_timeouts = 0;   // closed after client_timeout_ms without I/O
  std::uint64_t backend_failures = 0;  // connections to nodes lost or failed
  std::uint64_t backend_timeouts = 0;
  std::vector<ServerStats> servers;
};

// twemproxy's stats JSON ({"service":..., "<pool>": {..., "<server>": {...}}}) and an INFO-like
// text ("# Pool perflab\r\nclient_connections:3\r\n...") of the same counters.
std::string stats_json(const ProxyStats& s, const std::string& source, std::int64_t timestamp);
std::string stats_info(const ProxyStats& s);

// For a process that is the proxy and nothing else (perflab-proxy): allocations of a megabyte
// or more get mappings of their own, returned to the system when freed. Process-wide, so never
// called where the proxy shares a process with measurements.
void return_large_buffers_when_freed();

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
  // Reopens the log file (SIGHUP, as a daemon does), raises or lowers the log level by one
  // (SIGTTIN / SIGTTOU, as twemproxy does). Async-signal-safe: a flag and a wake-up.
  void reopen_log() noexcept;
  void change_log_level(int delta) noexcept;
  // Logs "signal 11 (SIGSEGV) received, core dumping" with one write (async-signal-safe), for
  // the handler of a fatal signal, which then lets the signal's default action happen.
  void log_fatal_signal(int sig) const noexcept;

  int stats_port() const;  // the bound statistics port, -1 without one
  ProxyStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perflab::proxy
