#pragma once
// perflab-proxy run as a process of its own for the tests of the executable: two managed shard
// nodes, the process (its log, its resident memory), a raw connection, a PROXY STATS counter.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "servers.h"
#include "targets/redis.h"
#include "targets/server_start.h"

namespace perflab::proxy::support {

inline std::string nodes_arg() {
  RedisTarget t = test::shared_targets().redis(2);
  std::string s = "--nodes=";
  for (std::size_t i = 0; i < 2; ++i) {
    if (i) s += ',';
    s += t.nodes[i].address();
  }
  return s;
}

// In a forked child before exec: it dies with the test (a test that crashes must not leave a
// proxy behind holding ctest's output pipe open: ctest would wait for it until its timeout), and
// writes its output to `log` rather than to the test's.
inline void proxy_child_setup(const std::string& log) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ::dup2(fd, 1);
  ::dup2(fd, 2);
}

// perflab-proxy as a process of its own: started with args (and optionally a descriptor limit),
// stderr to a log file, stopped with SIGTERM.
class ProxyProcess {
 public:
  ProxyProcess(std::vector<std::string> args, rlim_t nofile = 0)
      : port_(free_loopback_port()),
        log_("/tmp/" + test::unique_name("perflab-proxy-app") + ".log") {
    args.insert(args.begin(), {PERFLAB_PROXY_BIN, "--port", std::to_string(port_)});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // ASan's quarantine would keep freed memory resident: the memory bound is about the proxy.
    std::vector<std::string> env_text;
    for (char** e = environ; *e; ++e)
      if (std::string_view(*e).rfind("ASAN_OPTIONS=", 0) != 0) env_text.emplace_back(*e);
    env_text.emplace_back("ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:quarantine_size_mb=1");
    std::vector<char*> envp;
    for (auto& e : env_text) envp.push_back(e.data());
    envp.push_back(nullptr);
    const std::string log = log_;
    pid_ = ::fork();
    if (pid_ == 0) {
      proxy_child_setup(log);
      if (nofile) {
        rlimit rl{nofile, nofile};
        ::setrlimit(RLIMIT_NOFILE, &rl);
      }
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    for (int i = 0; i < 200; ++i) {
      try {
        RedisClient c({"127.0.0.1", port_, {}}, std::chrono::milliseconds(200));
        return;
      } catch (const RedisError&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    ADD_FAILURE() << "perflab-proxy did not start: " << log_text();
  }
  ~ProxyProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
    std::filesystem::remove(log_);
  }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string log_text() const {
    std::ifstream in(log_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // Resident memory in bytes (VmRSS), or its peak so far (VmHWM).
  std::int64_t rss(const char* field = "VmRSS:") const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind(field, 0) == 0) return std::stoll(line.substr(std::strlen(field))) * 1024;
    return -1;
  }
  std::int64_t peak_rss() const { return rss("VmHWM:"); }
  bool alive() { return ::waitpid(pid_, nullptr, WNOHANG) == 0; }

 private:
  int port_;
  std::string log_;
  pid_t pid_ = -1;
};

inline int connect_raw(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// A counter of PROXY STATS ("requests:123").
inline std::uint64_t proxy_stat(RedisClient& c, const std::string& name) {
  const std::string info = c.command({"PROXY", "STATS"}).str;
  const auto at = info.find("\r\n" + name + ":");
  if (at == std::string::npos) return ~std::uint64_t{0};
  return std::stoull(info.substr(at + name.size() + 3));
}

}  // namespace perflab::proxy::support
