#pragma once
// The proxy's epoll instance and its wake-up descriptor: connections registered, their events
// changed and removed, a wait to the millisecond or (epoll_pwait2) to the nanosecond, and the
// loop woken from another thread. Internal to perflab_proxy.
#include <sys/epoll.h>

#include <cstdint>

#include "proxy/conn.h"

namespace perflab::proxy {

class Poller {
 public:
  Poller();  // throws std::runtime_error with the reason
  ~Poller();
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;

  void add(Conn& c, std::uint32_t events);  // throws std::runtime_error
  // Registers `events` for c when they differ from those it has (a no-op for a closed one).
  void set(Conn& c, std::uint32_t events);
  // Removes a socket from epoll, then closes it. close() alone does not: while any other
  // reference to the socket exists (a child forked by another thread holds one until its exec),
  // epoll would keep reporting events carrying the pointer of a freed connection.
  void close(Conn& c);

  int wait(epoll_event* events, int max, int timeout_ms);
  // A wait of at most ns nanoseconds; 0 events at once, and can_wait_ns() false from then on,
  // on a kernel without epoll_pwait2 (before 5.11).
  int wait_ns(epoll_event* events, int max, std::int64_t ns);
  bool can_wait_ns() const { return can_wait_ns_; }

  // From any thread: the loop's wait returns with the wake-up connection ready.
  void wake() const noexcept;
  // On the loop: the wake-ups counted so far read, so that the descriptor is quiet again.
  void drain_wake() const;

 private:
  int ep_ = -1;
  int wake_fd_ = -1;
  Conn wake_{Kind::Wake};
  bool can_wait_ns_ = true;
};

}  // namespace perflab::proxy
