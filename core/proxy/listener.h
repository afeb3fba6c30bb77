#pragma once
// The proxy's listening socket: clients taken as they come, or refused (the client limit that
// RLIMIT_NOFILE leaves, out of descriptors, protected mode) with the refusals' log line.
// Internal to perflab_proxy.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "proxy/conn.h"
#include "proxy/counters.h"
#include "proxy/poller.h"
#include "proxy/proxy.h"
#include "proxy/proxy_log.h"

namespace perflab::proxy {

// A listening TCP socket on host:port; throws with the reason.
int listen_on(const std::string& host, int port, int& bound_port);

// A connection taken from the listener, to be served.
struct Accepted {
  int fd;
  std::string peer;  // "host:port"
};

class Listener {
 public:
  // Descriptors kept spare beside the clients' and the nodes' (Redis keeps 32 too).
  static constexpr std::uint64_t kSpareFds = 32;

  Listener(Counters& st, ProxyLog& log) : st_(st), log_(log) {}
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Listens on opts.bind:opts.port, registered with `poller`; the client limit from
  // RLIMIT_NOFILE. Throws with the reason.
  void open(const ProxyOptions& opts, Poller& poller);

  // One turn's worth of waiting connections (at most 64) taken: those past the client limit
  // (`served` clients being served), those no descriptor is left for and, in protected mode,
  // those not on the loopback interface are told why, closed and counted; the others are
  // appended to `out`. now_ns: the loop turn's time, for the refusals' log line.
  void accept(std::size_t served, std::int64_t now_ns, std::vector<Accepted>& out);
  // The refusals not yet logged, once 10 s have passed since the last line (the loop's sweep).
  void log_refusals_due(std::int64_t now_ns);

  int port() const { return port_; }
  bool bind_is_loopback() const { return bind_loopback_; }
  // Clients served at once: what the descriptor limit leaves once the nodes' connections and
  // kSpareFds are set aside, so that a full house never starves the backends.
  std::size_t max_clients() const { return max_clients_; }
  std::uint64_t fd_limit() const { return fd_limit_; }

 private:
  void refuse(int fd, std::int64_t now_ns);
  bool refuse_for_lack_of_fds(std::int64_t now_ns);
  void log_refusals(std::int64_t now_ns);

  Counters& st_;
  ProxyLog& log_;
  Conn conn_{Kind::Listener};
  int port_ = 0;
  bool bind_loopback_ = false;
  bool protect_ = false;  // protected mode: no requirepass, and not bound to the loopback
  int reserve_fd_ = -1;   // a spare descriptor, given up to refuse clients when none is left
  std::size_t max_clients_ = 0;
  std::uint64_t fd_limit_ = 0;
  std::int64_t fd_log_ns_ = 0;             // the last "out of descriptors" line
  std::uint64_t fd_refused_unlogged_ = 0;  // clients refused since
};

}  // namespace perflab::proxy
