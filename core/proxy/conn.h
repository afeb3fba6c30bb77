#pragma once
// A descriptor of the proxy's event loop (a listener, a client, a node connection, a statistics
// reader) with what it has still to send. Internal to perflab_proxy.
#include <cstddef>
#include <cstdint>
#include <string>

namespace perflab::proxy {

enum class Kind { Listener, StatsListener, Wake, Client, Backend, Stats };

struct Conn {
  explicit Conn(Kind k) : kind(k) {}
  Kind kind;
  int fd = -1;
  bool dead = false;
  bool dirty = false;        // has output to flush at the end of the loop turn
  bool want_write = false;   // the kernel buffer was full: waiting for EPOLLOUT
  std::uint32_t events = 0;  // registered with epoll
  std::string out;
  std::size_t out_off = 0;
  std::size_t pending_out() const { return out.size() - out_off; }
};

}  // namespace perflab::proxy
