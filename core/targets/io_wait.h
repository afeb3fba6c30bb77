#pragma once
// Bounded waits on a server's socket: every wait of Perflab's PostgreSQL and Redis clients ends
// when the socket is ready, when the operation's time is up (a frozen server, a network
// partition: the kernel still acknowledges, so only the client can notice), or shortly after a
// stop was requested.
//
// After a stop, what is in flight gets kStopGrace to complete: a healthy server still answers a
// cleanup (ROLLBACK, DROP of Perflab's tables, DEL of its keys) in time, a frozen one costs at
// most the grace. The stop is seen within kStopSlice, so Stop returns within a second.
#include <chrono>
#include <functional>
#include <stop_token>

namespace perflab {

inline constexpr std::chrono::milliseconds kStopSlice{50};
inline constexpr std::chrono::milliseconds kStopGrace{250};

// The time budget of one operation (a query and its results, a Redis command and its reply,
// a connection). Not thread-safe: one per operation.
class IoDeadline {
 public:
  using Clock = std::chrono::steady_clock;
  IoDeadline(std::chrono::milliseconds limit, std::stop_token stop);

  // Waits until fd is ready for `events` (POLLIN, POLLOUT). Returns poll's revents, or 0 when
  // the time ran out: then timed_out() or stopped() says why.
  short wait(int fd, short events);
  bool stopped() const { return stop_seen_ && !timed_out_; }
  bool timed_out() const { return timed_out_; }
  // The stop came while the operation was in flight (not before it began, as for a cleanup).
  bool interrupted() const { return interrupted_; }
  std::chrono::milliseconds limit() const { return limit_; }

  // Runs once, when a stop comes while the operation is in flight (e.g. PostgreSQL's cancel
  // request). An operation begun after the stop only gets the grace.
  std::function<void()> on_stop;

 private:
  std::chrono::milliseconds limit_;
  Clock::time_point deadline_;
  std::stop_token stop_;
  bool stop_seen_ = false, timed_out_ = false, interrupted_ = false;
};

}  // namespace perflab
