#include "targets/server_start.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "targets/child_process.h"

namespace fs = std::filesystem;

namespace perflab {

namespace {
using Clock = std::chrono::steady_clock;

// Sleeps for `pause`, or less when a stop is requested meanwhile.
void pause_unless_stopped(std::chrono::milliseconds pause, const std::stop_token& stop) {
  if (!stop.stop_possible()) {
    std::this_thread::sleep_for(pause);
    return;
  }
  std::mutex m;
  std::unique_lock lock(m);
  std::condition_variable_any().wait_for(lock, stop, pause, [] { return false; });
}
}  // namespace

int free_loopback_port() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw ServerError("socket() failed: " + errno_text(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    int e = errno;
    close(fd);
    throw ServerError("cannot find a free port on 127.0.0.1: " + errno_text(e));
  }
  close(fd);
  return ntohs(addr.sin_port);
}

bool poll_until(Clock::time_point deadline, const std::function<bool()>& done,
                std::stop_token stop) {
  for (auto pause = std::chrono::milliseconds(20);;
       pause = std::min(pause * 2, std::chrono::milliseconds(200))) {
    if (stop.stop_requested()) return false;
    if (done()) return true;
    if (Clock::now() >= deadline || stop.stop_requested()) return false;
    pause_unless_stopped(pause, stop);
  }
}

void throw_if_stopped(const std::stop_token& stop, const std::string& doing) {
  if (stop.stop_requested()) throw StartStopped("stopped while " + doing);
}

WaitResult wait_ready(pid_t pid, std::chrono::seconds limit, const std::function<bool()>& ready,
                      int* exit_status, std::stop_token stop) {
  bool exited = false;
  const bool answered = poll_until(
      Clock::now() + limit,
      [&] {
        exited = !child_alive(pid);
        return exited || ready();
      },
      stop);
  if (exited) {
    wait_exit(pid, std::chrono::seconds(5), exit_status);
    return WaitResult::Exited;
  }
  if (answered) return WaitResult::Ready;
  return stop.stop_requested() ? WaitResult::Stopped : WaitResult::TimedOut;
}

bool wait_exit_unless_stopped(pid_t pid, std::chrono::milliseconds limit, int* status_out,
                              const std::stop_token& stop) {
  return poll_until(
      Clock::now() + limit,
      [&] { return wait_exit(pid, std::chrono::milliseconds(0), status_out); }, stop);
}

std::string log_tail(const fs::path& log, std::size_t max_lines) {
  std::ifstream in(log, std::ios::binary);
  if (!in) return "(no " + log.filename().string() + ")";
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  std::streamoff from = std::max<std::streamoff>(0, size - 4096);
  in.seekg(from);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> lines;
  std::istringstream ss(text);
  for (std::string line; std::getline(ss, line);)
    if (!line.empty()) lines.push_back(line);
  if (from > 0 && !lines.empty()) lines.erase(lines.begin());  // partial first line
  std::size_t start = lines.size() > max_lines ? lines.size() - max_lines : 0;
  std::string out;
  for (std::size_t i = start; i < lines.size(); ++i) out += "\n  " + lines[i];
  // The folder is removed when a start fails, so the message carries the lines, not the path.
  // Put together piece by piece: GCC 12 at -O3 flags "literal" + std::string&& (-Wrestrict).
  const std::string name = log.filename().string();
  std::string said = out.empty() ? "(" : "last lines of ";
  said += name;
  said += out.empty() ? " is empty)" : ":";
  said += out;
  return said;
}

bool log_mentions_port_in_use(const fs::path& log) {
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.find("Address already in use") != std::string::npos ||
         text.find("could not bind") != std::string::npos ||
         text.find("could not create any TCP/IP sockets") != std::string::npos;
}

}  // namespace perflab
