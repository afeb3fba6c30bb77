#include "targets/io_wait.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>

namespace perflab {

IoDeadline::IoDeadline(std::chrono::milliseconds limit, std::stop_token stop)
    : limit_(limit), deadline_(Clock::now() + limit), stop_(std::move(stop)) {
  if (stop_.stop_requested()) {
    stop_seen_ = true;
    deadline_ = std::min(deadline_, Clock::now() + kStopGrace);
  }
}

short IoDeadline::wait(int fd, short events) {
  for (;;) {
    const auto now = Clock::now();
    if (!stop_seen_ && stop_.stop_requested()) {
      stop_seen_ = interrupted_ = true;
      deadline_ = std::min(deadline_, now + kStopGrace);
      if (on_stop) on_stop();
    }
    if (now >= deadline_) {
      timed_out_ = !stop_seen_;
      return 0;
    }
    // Short slices only while a stop could still come; the grace itself is waited in one go.
    auto slice = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - now) +
                 std::chrono::milliseconds(1);
    if (!stop_seen_ && stop_.stop_possible()) slice = std::min(slice, kStopSlice);
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(slice.count()));
    if (n > 0) return p.revents ? p.revents : events;
    if (n < 0 && errno != EINTR) return POLLERR;  // the caller's next I/O call says what failed
  }
}

}  // namespace perflab
