// The delaying relay against an echo server of the test's own: bytes pass unchanged, a round
// trip takes the configured delay (a loose sanity check of the relay, not a performance claim),
// and destroying the relay closes its connections.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "servers.h"
#include "targets/delay_relay.h"

using namespace perflab;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// Echoes every byte of one connection back until the peer closes.
class EchoServer {
 public:
  EchoServer() : fd_(test::listen_on_loopback(port_)) {
    thread_ = std::thread([this] {
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[65536];
      for (;;) {
        const ssize_t n = recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        for (ssize_t off = 0; off < n;) {
          const ssize_t w = send(c, buf + off, static_cast<std::size_t>(n - off), MSG_NOSIGNAL);
          if (w <= 0) break;
          off += w;
        }
      }
      close(c);
    });
  }
  ~EchoServer() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  int port() const { return port_; }

 private:
  int port_ = 0;
  int fd_;
  std::thread thread_;
};

int connect_loopback(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// Reads exactly n bytes within 10 s (does not hang), or fewer when the peer closes.
std::string read_exactly(int fd, std::size_t n) {
  std::string out;
  const auto deadline = Clock::now() + 10s;
  char buf[65536];
  while (out.size() < n && Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    const ssize_t r = recv(fd, buf, std::min(sizeof buf, n - out.size()), 0);
    if (r <= 0) break;
    out.append(buf, static_cast<std::size_t>(r));
  }
  return out;
}

}  // namespace

TEST(DelayRelay, PassesBytesUnchangedBothWays) {
  EchoServer echo;
  DelayRelay relay("127.0.0.1", echo.port(), 0ms);
  const int c = connect_loopback(relay.port());
  ASSERT_GE(c, 0);
  std::string data(3 << 20, '\0');  // more than a queue holds: the bound is exercised
  std::mt19937 rng(7);
  for (auto& ch : data) ch = static_cast<char>(rng());
  std::thread writer([&] {
    for (std::size_t off = 0; off < data.size();) {
      const ssize_t w = send(c, data.data() + off, data.size() - off, MSG_NOSIGNAL);
      if (w <= 0) break;
      off += static_cast<std::size_t>(w);
    }
  });
  const std::string back = read_exactly(c, data.size());
  writer.join();
  close(c);
  EXPECT_EQ(back.size(), data.size());
  EXPECT_TRUE(back == data);
  EXPECT_EQ(relay.accepted(), 1u);
}

TEST(DelayRelay, ARoundTripTakesTheConfiguredDelay) {
  // A loose sanity check of the relay, not a performance test. A loaded machine can only add
  // time to a round trip, never take any away: the fastest of several round trips is the one
  // closest to what the relay itself adds, so it is the one held to the configured delay ±20%
  // (+ 2 ms for the loopback and the scheduler). A relay that added no delay (min ~0 ms) or
  // twice the delay (min >= 80 ms) fails.
  EchoServer echo;
  const auto rtt = 40ms;
  DelayRelay relay("127.0.0.1", echo.port(), rtt);
  const int c = connect_loopback(relay.port());
  ASSERT_GE(c, 0);
  std::vector<double> ms;
  for (int i = 0; i < 7; ++i) {
    const std::string msg = "ping" + std::to_string(i);
    const auto t0 = Clock::now();
    ASSERT_EQ(send(c, msg.data(), msg.size(), MSG_NOSIGNAL), ssize_t(msg.size()));
    ASSERT_EQ(read_exactly(c, msg.size()), msg);  // bytes unchanged
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  close(c);
  const double fastest = *std::min_element(ms.begin(), ms.end());
  std::printf("round trip through the relay at 40 ms: fastest of %zu %.2f ms\n", ms.size(),
              fastest);
  EXPECT_GE(fastest, 40 * 0.8);  // the configured delay, within ±20%
  EXPECT_LE(fastest, 40 * 1.2 + 2);
}

TEST(DelayRelay, DestroyingItClosesItsConnections) {
  EchoServer echo;
  int c = -1;
  {
    DelayRelay relay("127.0.0.1", echo.port(), 0ms);
    c = connect_loopback(relay.port());
    ASSERT_GE(c, 0);
    ASSERT_EQ(send(c, "x", 1, MSG_NOSIGNAL), 1);
    ASSERT_EQ(read_exactly(c, 1), "x");
  }
  // The client sees its connection end (not a hang).
  EXPECT_EQ(read_exactly(c, 1), "");
  close(c);
}
