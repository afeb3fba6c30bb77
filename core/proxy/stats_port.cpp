// The proxy's statistics port: its listener and its readers.
#include "proxy/stats_port.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "proxy/listener.h"

namespace perflab::proxy {

StatsPort::~StatsPort() {
  if (listener_.fd >= 0) ::close(listener_.fd);
}

void StatsPort::open(const std::string& bind, int port, Poller& poller) {
  if (port < 0) return;
  listener_.fd = listen_on(bind, port, port_);
  poller.add(listener_, EPOLLIN);
}

std::unique_ptr<Conn> StatsPort::take_reader(Poller& poller) {
  const int fd = ::accept4(listener_.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) return nullptr;
  auto r = std::make_unique<Conn>(Kind::Stats);
  r->fd = fd;
  poller.add(*r, 0);
  return r;
}

void StatsPort::forget_closed() {
  std::erase_if(readers_, [](const std::unique_ptr<Conn>& r) { return r->dead; });
}

void StatsPort::close_readers(Poller& poller) {
  for (auto& r : readers_) poller.close(*r);
}

}  // namespace perflab::proxy
