#pragma once
// A TCP relay in process that delays every byte by half a round trip each way: put between a
// client and a server on this machine it makes loopback look like a LAN (0.2 ms) or a region
// (5 ms). Bytes pass unchanged and in order; what is queued is bounded (a side is not read while
// its queue holds kMaxQueuedBytes); the relay stops, closing every connection, when it is
// destroyed or its stop token is triggered.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>
#include <thread>

namespace perflab {

class DelayRelay {
 public:
  static constexpr std::size_t kMaxQueuedBytes = 4 << 20;  // per direction of a connection

  // Listens on 127.0.0.1 (a free port) and relays each accepted connection to host:port, every
  // byte delivered round_trip / 2 after it was read. Throws std::runtime_error when it cannot
  // listen or `host` does not resolve.
  DelayRelay(const std::string& host, int port, std::chrono::nanoseconds round_trip);
  ~DelayRelay();
  DelayRelay(const DelayRelay&) = delete;
  DelayRelay& operator=(const DelayRelay&) = delete;

  int port() const { return port_; }
  std::chrono::nanoseconds round_trip() const { return round_trip_; }
  // Connections accepted so far.
  std::size_t accepted() const { return accepted_.load(); }

 private:
  void loop();

  std::chrono::nanoseconds round_trip_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};  // a pipe: the destructor writes to end the loop
  int port_ = 0;
  std::string target_host_;
  int target_port_ = 0;
  std::atomic<std::size_t> accepted_{0};
  std::thread thread_;
};

}  // namespace perflab
