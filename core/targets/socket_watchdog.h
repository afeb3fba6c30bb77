#pragma once
// Bounds for a client library that blocks in its own waits (libpqxx 6.4 calls libpq's blocking
// PQexec): a thread of the watchdog's own ends an operation that overruns its time or is
// stopped by shutting the connection's socket down, so the library's blocked read returns with
// an error (a broken connection) instead of waiting forever for a frozen server. A stop gives
// what is in flight kStopGrace first (targets/io_wait.h), as Perflab's libpq connections do.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <thread>

namespace perflab {

class SocketWatchdog {
 public:
  explicit SocketWatchdog(std::stop_token stop);
  ~SocketWatchdog();
  SocketWatchdog(const SocketWatchdog&) = delete;
  SocketWatchdog& operator=(const SocketWatchdog&) = delete;

  // One guarded operation on socket fd: ends it (shutdown) after `limit`, or kStopGrace after a
  // stop. tripped() says whether it did, and why.
  class Guard {
   public:
    Guard(SocketWatchdog& w, int fd, std::chrono::milliseconds limit);
    ~Guard();
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    SocketWatchdog& w_;
  };

  enum class Trip { None, TimedOut, Stopped };
  Trip tripped() const;  // of the last guarded operation

 private:
  void loop(std::stop_token quit);

  mutable std::mutex mu_;
  std::condition_variable_any cv_;
  std::stop_token stop_;
  int fd_ = -1;  // the guarded socket, -1 when idle
  std::chrono::steady_clock::time_point deadline_;
  Trip trip_ = Trip::None;
  std::jthread thread_;
};

}  // namespace perflab
