#include "common/clock.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace perflab {

namespace {
std::int64_t read_clock(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
}  // namespace

std::int64_t wall_ns() {
  return read_clock(CLOCK_MONOTONIC);
}
std::int64_t thread_cpu_ns() {
  return read_clock(CLOCK_THREAD_CPUTIME_ID);
}
std::int64_t process_cpu_ns() {
  return read_clock(CLOCK_PROCESS_CPUTIME_ID);
}

ThreadRunDelay::ThreadRunDelay()
    : fd_(::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)) {}

ThreadRunDelay::~ThreadRunDelay() {
  if (fd_ >= 0) ::close(fd_);
}

std::int64_t ThreadRunDelay::ns() const {
  if (fd_ < 0) return -1;
  char buf[96];
  const ssize_t n = ::pread(fd_, buf, sizeof buf, 0);
  if (n <= 0) return -1;
  const char* const end = buf + n;
  long long cpu = 0, delay = 0;
  auto r = std::from_chars(buf, end, cpu);
  if (r.ec != std::errc() || r.ptr == end) return -1;
  r = std::from_chars(r.ptr + 1, end, delay);
  return r.ec == std::errc() ? static_cast<std::int64_t>(delay) : -1;
}

namespace {
// Nanosecond CPU time of every thread of a process, from /proc/PID/task/*/schedstat (its first
// field); -1 when schedstat is not available.
std::int64_t schedstat_cpu_ns(int pid) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  std::int64_t total = 0;
  bool any = false;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::ifstream f(entry.path() / "schedstat");
    long long ns = 0;
    if (f >> ns) {
      total += ns;
      any = true;
    }
  }
  return any && !ec ? total : -1;
}
}  // namespace

std::int64_t other_process_cpu_ns(int pid) {
  if (const std::int64_t ns = schedstat_cpu_ns(pid); ns >= 0) return ns;
  // Fallback with clock-tick resolution (10 ms).
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!f || !std::getline(f, line)) return -1;
  // The command name (field 2) may contain spaces: fields resume after the last ')'.
  const auto close = line.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  // Field 3 is the state; utime and stime are fields 14 and 15.
  long long utime = -1, stime = -1;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stoll(field);
    if (i == 15) stime = std::stoll(field);
  }
  if (utime < 0 || stime < 0) return -1;
  const long ticks = sysconf(_SC_CLK_TCK);
  return (utime + stime) * (1'000'000'000LL / ticks);
}

}  // namespace perflab
