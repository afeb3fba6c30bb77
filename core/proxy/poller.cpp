// The proxy's epoll instance and its wake-up descriptor (an eventfd).
#include "proxy/poller.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>

namespace perflab::proxy {

Poller::Poller() {
  ep_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (ep_ < 0) throw std::runtime_error(std::string("epoll: ") + std::strerror(errno));
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    const int e = errno;
    ::close(ep_);
    throw std::runtime_error(std::string("eventfd: ") + std::strerror(e));
  }
  wake_.fd = wake_fd_;
  try {
    add(wake_, EPOLLIN);
  } catch (...) {
    ::close(wake_fd_);
    ::close(ep_);
    throw;
  }
}

Poller::~Poller() {
  ::close(wake_fd_);
  ::close(ep_);
}

void Poller::add(Conn& c, std::uint32_t events) {
  epoll_event e{};
  e.events = events;
  e.data.ptr = &c;
  if (::epoll_ctl(ep_, EPOLL_CTL_ADD, c.fd, &e) != 0)
    throw std::runtime_error(std::string("epoll_ctl: ") + std::strerror(errno));
  c.events = events;
}

void Poller::set(Conn& c, std::uint32_t events) {
  if (c.fd < 0 || events == c.events) return;
  epoll_event e{};
  e.events = events;
  e.data.ptr = &c;
  ::epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &e);
  c.events = events;
}

void Poller::close(Conn& c) {
  if (c.fd < 0) return;
  ::epoll_ctl(ep_, EPOLL_CTL_DEL, c.fd, nullptr);
  ::close(c.fd);
  c.fd = -1;
}

int Poller::wait(epoll_event* events, int max, int timeout_ms) {
  return ::epoll_wait(ep_, events, max, timeout_ms);
}

int Poller::wait_ns(epoll_event* events, int max, std::int64_t ns) {
  const timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  const int n = ::epoll_pwait2(ep_, events, max, &ts, nullptr);
  if (n < 0 && errno == ENOSYS) {
    can_wait_ns_ = false;
    return 0;
  }
  return n;
}

void Poller::wake() const noexcept {
  const std::uint64_t one = 1;
  const ssize_t r = ::write(wake_fd_, &one, sizeof one);
  (void)r;
}

void Poller::drain_wake() const {
  std::uint64_t v;
  while (::read(wake_fd_, &v, sizeof v) > 0) {
  }
}

}  // namespace perflab::proxy
