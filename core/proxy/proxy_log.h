#pragma once
// The proxy's log: timestamped lines to stderr or a file (reopened on SIGHUP, as logrotate
// expects), at a level that SIGTTIN raises and SIGTTOU lowers, and a fatal signal's line.
#include <atomic>
#include <mutex>
#include <string>

#include "proxy/proxy.h"

namespace perflab::proxy {

class ProxyLog {
 public:
  ProxyLog() = default;
  ~ProxyLog();
  ProxyLog(const ProxyLog&) = delete;
  ProxyLog& operator=(const ProxyLog&) = delete;

  // Logs to `file` (stderr when empty) from now on, at `level`; throws std::runtime_error
  // naming the file when it cannot be opened.
  void open(const std::string& file, LogLevel level);
  // One line, when `level` is at or below the log's level. From any thread.
  void write(LogLevel level, const std::string& msg);
  // Asked from any thread (a signal handler's thread included): carried out by
  // carry_out_requests on the loop's thread, each logged by its signal's name.
  void request_reopen() noexcept { reopen_.store(true); }
  void request_level_change(int delta) noexcept { (delta > 0 ? up_ : down_).fetch_add(1); }
  void carry_out_requests();
  // "signal 11 (SIGSEGV) received, core dumping": async-signal-safe (no allocation, no lock,
  // one write).
  void fatal_signal(int sig) const noexcept;

 private:
  int open_file() const;

  std::string file_;
  std::atomic<int> level_{static_cast<int>(LogLevel::Info)};
  std::mutex mu_;
  int fd_ = 2;
  std::atomic<int> fatal_fd_{2};  // fd_, for a fatal signal's handler (no lock there)
  std::atomic<bool> reopen_{false};
  std::atomic<int> up_{0}, down_{0};  // SIGTTIN / SIGTTOU received
};

}  // namespace perflab::proxy
