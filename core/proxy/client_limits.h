#pragma once
// How many clients the proxy serves at once and what happens to the others: the descriptor
// limit, the clients it leaves room for, the spare descriptor given up to refuse one, and the
// refusals' log line. Internal to perflab_proxy.
#include <cstddef>
#include <cstdint>

namespace perflab::proxy {

struct ClientLimits {
  int reserve_fd = -1;         // a spare descriptor, given up to refuse clients when none is left
  std::int64_t fd_log_ns = 0;  // last "out of descriptors" line
  std::uint64_t fd_refused_unlogged = 0;  // clients refused since
  std::size_t hard_limit = 0;
  bool bind_loopback = false;
  // Clients served at once: what the descriptor limit leaves once the nodes' connections and a
  // spare (Redis keeps 32 too) are set aside, so that a full house never starves the backends.
  std::size_t max_clients = 0;
  std::uint64_t fd_limit = 0;
};

}  // namespace perflab::proxy
