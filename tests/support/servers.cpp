#include "servers.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include "targets/pg_text.h"

namespace perflab::test {

Targets& shared_targets() {
  static std::unique_ptr<Targets> targets = [] {
    TargetsConfig cfg;
    cfg.managed_pg.durable = false;
    return std::make_unique<Targets>(cfg);
  }();
  return *targets;
}

TargetsConfig isolated_pg(const std::string& schema) {
  TargetsConfig cfg;
  cfg.pg_conninfo = shared_targets().postgres().conninfo;
  cfg.pg_schema = schema;
  return cfg;
}

std::string make_users_schema(PgConnection& c) {
  const std::string name = unique_name("users");
  const std::string q = pg_quote_ident(name);
  c.exec("CREATE SCHEMA " + q + "; CREATE TABLE " + q + ".orders (id int); INSERT INTO " + q +
         ".orders VALUES (1), (2)");
  return name;
}

std::string users_orders(PgConnection& c, const std::string& schema) {
  return std::string(
      c.exec("SELECT count(*) FROM " + pg_quote_ident(schema) + ".orders").value(0, 0));
}

char process_state(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return 0;
  const std::size_t close = line.rfind(')');  // the command name may hold blanks and parentheses
  return close != std::string::npos && close + 2 < line.size() ? line[close + 2] : 0;
}

bool process_exists(pid_t pid) {
  const char state = process_state(pid);
  return state != 0 && state != 'Z' && state != 'X';
}

std::string unique_name(const std::string& base) {
  static std::atomic<int> counter{0};
  return base + "_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
}

int listen_on_loopback(int& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(fd, 4) != 0 || ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ADD_FAILURE() << "cannot listen on 127.0.0.1: " << std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return -1;
  }
  port = ntohs(addr.sin_port);
  return fd;
}

StopLater::StopLater(std::stop_source stop, std::function<bool()> ready,
                     std::chrono::milliseconds delay)
    : thread_([this, stop, ready = std::move(ready), delay](std::stop_token st) mutable {
        while (!st.stop_requested() && !ready())
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (st.stop_requested()) return;
        std::this_thread::sleep_for(delay);
        at_ = std::chrono::steady_clock::now().time_since_epoch().count();
        stop.request_stop();
      }) {}

double StopLater::seconds_since_stop() const {
  using Clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(Clock::now() -
                                       Clock::time_point(Clock::duration(at_.load())))
      .count();
}

}  // namespace perflab::test
