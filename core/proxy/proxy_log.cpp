// The proxy's log (proxy_log.h), and the names of the signals it logs.
#include "proxy/proxy_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <stdexcept>

namespace perflab::proxy {

const char* signal_name(int sig) noexcept {
  switch (sig) {
    case SIGHUP:
      return "SIGHUP";
    case SIGTTIN:
      return "SIGTTIN";
    case SIGTTOU:
      return "SIGTTOU";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGABRT:
      return "SIGABRT";
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
  }
  return "?";
}

std::string signal_label(int sig) {
  return "signal " + std::to_string(sig) + " (" + signal_name(sig) + ")";
}

ProxyLog::~ProxyLog() {
  if (fd_ > 2) ::close(fd_);
}

int ProxyLog::open_file() const {
  return ::open(file_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
}

void ProxyLog::open(const std::string& file, LogLevel level) {
  level_.store(static_cast<int>(level));
  file_ = file;
  if (file_.empty()) return;
  const int fd = open_file();
  if (fd < 0)
    throw std::runtime_error("cannot open log file " + file_ + ": " + std::strerror(errno));
  std::lock_guard lock(mu_);
  if (fd_ > 2) ::close(fd_);
  fd_ = fd;
  fatal_fd_.store(fd);
}

void ProxyLog::write(LogLevel level, const std::string& msg) {
  if (static_cast<int>(level) > level_.load(std::memory_order_relaxed)) return;
  char ts[32];
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
  std::string line = std::string(ts) + " perflab-proxy[" + to_string(level) + "] " + msg + "\n";
  std::lock_guard lock(mu_);
  for (std::size_t off = 0; off < line.size();) {
    ssize_t n = ::write(fd_, line.data() + off, line.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    off += static_cast<std::size_t>(n);
  }
}

void ProxyLog::carry_out_requests() {
  if (reopen_.exchange(false)) {
    const std::string hup = signal_label(SIGHUP) + " received: ";
    if (file_.empty()) {
      write(LogLevel::Info, hup + "logging to stderr, nothing to reopen");
    } else {
      const int fd = open_file();
      if (fd < 0) {
        write(LogLevel::Error, hup + "cannot reopen log file " + file_ + ": " +
                                   std::strerror(errno) + " (still writing to the old one)");
      } else {
        {
          std::lock_guard lock(mu_);
          fatal_fd_.store(fd);
          if (fd_ > 2) ::close(fd_);
          fd_ = fd;
        }
        write(LogLevel::Info, hup + "log file reopened");
      }
    }
  }
  // Each signal is logged by its name, in the order of its kind (TTIN, then TTOU).
  const auto step = [this](std::atomic<int>& received, int delta, int sig) {
    for (int n = received.exchange(0); n > 0; --n) {
      const int l = std::clamp(level_.load() + delta, static_cast<int>(LogLevel::Error),
                               static_cast<int>(LogLevel::Debug));
      level_.store(l);
      write(LogLevel::Error,
            signal_label(sig) + " received: log level now " + to_string(static_cast<LogLevel>(l)));
    }
  };
  step(up_, +1, SIGTTIN);
  step(down_, -1, SIGTTOU);
}

void ProxyLog::fatal_signal(int sig) const noexcept {
  char line[96];
  std::size_t n = 0;
  const auto put = [&](const char* s) {
    while (*s && n < sizeof line - 1) line[n++] = *s++;
  };
  char digits[12];
  std::size_t d = sizeof digits;
  digits[--d] = '\0';
  for (unsigned v = static_cast<unsigned>(sig); d > 0;) {
    digits[--d] = static_cast<char>('0' + v % 10);
    if ((v /= 10) == 0) break;
  }
  put("perflab-proxy[error] signal ");
  put(digits + d);
  put(" (");
  put(signal_name(sig));
  put(") received, core dumping\n");
  [[maybe_unused]] const ssize_t w = ::write(fatal_fd_.load(), line, n);
}

}  // namespace perflab::proxy
