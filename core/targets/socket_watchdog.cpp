#include "targets/socket_watchdog.h"

#include <sys/socket.h>

#include "targets/io_wait.h"

namespace perflab {

SocketWatchdog::SocketWatchdog(std::stop_token stop)
    : stop_(std::move(stop)), thread_([this](std::stop_token quit) { loop(quit); }) {}

SocketWatchdog::~SocketWatchdog() {
  thread_.request_stop();
  cv_.notify_all();
}

SocketWatchdog::Guard::Guard(SocketWatchdog& w, int fd, std::chrono::milliseconds limit) : w_(w) {
  {
    std::lock_guard lock(w_.mu_);
    w_.fd_ = fd;
    w_.deadline_ = std::chrono::steady_clock::now() + limit;
    w_.trip_ = Trip::None;
  }
  w_.cv_.notify_all();
}

SocketWatchdog::Guard::~Guard() {
  {
    std::lock_guard lock(w_.mu_);
    w_.fd_ = -1;
  }
  w_.cv_.notify_all();
}

SocketWatchdog::Trip SocketWatchdog::tripped() const {
  std::lock_guard lock(mu_);
  return trip_;
}

void SocketWatchdog::loop(std::stop_token quit) {
  std::unique_lock lock(mu_);
  // Wakes the wait when the run is stopped.
  std::stop_callback on_stop(stop_, [this] { cv_.notify_all(); });
  while (!quit.stop_requested()) {
    if (fd_ < 0) {
      cv_.wait(lock, quit, [&] { return fd_ >= 0; });
      continue;
    }
    const int fd = fd_;
    auto until = deadline_;
    if (stop_.stop_requested())
      until = std::min(until, std::chrono::steady_clock::now() + kStopGrace);
    cv_.wait_until(lock, quit, until, [&] {
      return fd_ != fd ||
             (stop_.stop_requested() && until > std::chrono::steady_clock::now() + kStopGrace);
    });
    if (fd_ != fd || quit.stop_requested()) continue;
    if (std::chrono::steady_clock::now() < until) continue;  // a stop came: wait out its grace
    trip_ = stop_.stop_requested() && deadline_ > std::chrono::steady_clock::now() ? Trip::Stopped
                                                                                   : Trip::TimedOut;
    shutdown(fd, SHUT_RDWR);  // the blocked read returns; the connection is broken
    fd_ = -1;
  }
}

}  // namespace perflab
