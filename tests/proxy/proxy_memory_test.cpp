// The bound on what all clients hold in perflab-proxy (many large commands at once, the largest
// client evicted), the client timeout, and memory given back once the proxy is idle: the
// executable against real managed Redis servers, its resident memory read from /proc.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "proxy_process.h"
#include "targets/redis.h"

using namespace perflab;
using namespace perflab::proxy::support;

namespace {

constexpr std::int64_t kMiB = 1 << 20;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

std::string set_header(const std::string& key, std::size_t value_size) {
  return "*3\r\n$3\r\nSET\r\n$" + std::to_string(key.size()) + "\r\n" + key + "\r\n$" +
         std::to_string(value_size) + "\r\n";
}

// Sends all of `data` unless the peer closes or `stop` is set; false when it did not.
bool send_all(int fd, std::string_view data, const std::atomic<bool>& stop) {
  std::size_t off = 0;
  while (off < data.size() && !stop.load()) {
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    if (p.revents & (POLLERR | POLLHUP)) return false;
    const std::size_t chunk = std::min<std::size_t>(data.size() - off, 1 << 20);
    ssize_t n = ::send(fd, data.data() + off, chunk, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      off += static_cast<std::size_t>(n);
    } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return false;
    }
  }
  return off == data.size();
}

// Whether the proxy closed fd within `ms` (bytes it sent first are skipped).
bool closed_within(int fd, int ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < until) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[4096];
    ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
  }
  return false;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

}  // namespace

// The memory attack (scripts/bench_proxy_attack.sh), scaled for CI: 20 clients stream a 32 MiB SET
// value each (4 MiB/s each), again whenever they are evicted, against a bound of 128 MiB.
// Unbounded, the proxy would hold 640 MiB; bounded, its peak resident memory stays under the bound
// plus a margin (the allocator's slack, what the sanitizer keeps, a command already forwarded to a
// node), and a client sending PINGs beside the attack is answered every time.
TEST(ProxyMemory, ManyLargeCommandsStayUnderTheBound) {
  // The margin: the allocator's slack and a command being forwarded; the sanitizer's shadow
  // memory adds an eighth of what is allocated.
  const std::int64_t bound = 128 * kMiB, margin = 32 * kMiB + (kSanitized ? bound / 8 : 0);
  const std::size_t value_size = 32 * kMiB;
  ProxyProcess p({nodes_arg(), "--max-client-memory", std::to_string(bound)});
  RedisClient victim({"127.0.0.1", p.port(), {}});
  for (int i = 0; i < 100; ++i) ASSERT_EQ(victim.command({"PING"}).str, "PONG");
  const std::int64_t before = p.rss();
  ASSERT_LT(p.peak_rss(), before + 16 * kMiB) << "the peak should start near the baseline";

  const std::string value(value_size, 'x');
  std::atomic<bool> stop{false};
  std::atomic<int> attempts{0}, completed{0};
  std::vector<std::thread> attackers;
  for (int i = 0; i < 20; ++i)
    attackers.emplace_back([&, i] {
      const std::string key = "mem:attack:" + std::to_string(i);
      while (!stop.load()) {
        const int fd = connect_raw(p.port());
        if (fd < 0) continue;
        attempts++;
        bool sent = send_all(fd, set_header(key, value_size), stop);
        // 4 MiB/s each, 80 MiB/s in all (unbounded, the full attack grew the proxy by 127 MB/s): a
        // loaded 2-core machine keeps a share of a core for the victim, whose latency is measured.
        for (std::size_t off = 0; sent && off < value_size && !stop.load(); off += kMiB / 4) {
          sent = send_all(fd, std::string_view(value).substr(off, kMiB / 4), stop);
          std::this_thread::sleep_for(std::chrono::milliseconds(62));
        }
        if (sent && send_all(fd, "\r\n", stop)) {
          completed++;
          closed_within(fd, 2000);  // the reply, then our close
        }
        ::close(fd);
      }
    });
  std::vector<double> ms;
  int errors = 0;
  // 6 s at least, and until the bound was reached and a client evicted: streamers take an
  // eighth of the proxy's time at most, which under the sanitizers on a loaded machine may be
  // less than the attack sends. Waited for, up to a minute.
  const auto start = std::chrono::steady_clock::now();
  auto next_check = start + std::chrono::seconds(6);
  while (std::chrono::steady_clock::now() < start + std::chrono::seconds(60)) {
    const auto t0 = std::chrono::steady_clock::now();
    if (t0 >= next_check) {
      if (proxy_stat(victim, "clients_evicted") > 0) break;
      next_check = t0 + std::chrono::milliseconds(500);
    }
    if (victim.command({"PING"}).str != "PONG") errors++;
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const double attack_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stop = true;
  for (auto& t : attackers) t.join();
  const std::int64_t peak = p.peak_rss();
  const std::uint64_t evicted = proxy_stat(victim, "clients_evicted");
  const double p99 = percentile(ms, 0.99);
  std::printf(
      "20 x %zu MiB SET values for %.1f s: %d attempts, %d completed, %llu evicted; proxy RSS "
      "%.1f MiB before, peak %.1f MiB (+%.1f MiB; bound %lld MiB + margin %lld MiB); victim: "
      "%zu PINGs, p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
      value_size / kMiB, attack_s, attempts.load(), completed.load(),
      static_cast<unsigned long long>(evicted), static_cast<double>(before) / kMiB,
      static_cast<double>(peak) / kMiB, static_cast<double>(peak - before) / kMiB,
      static_cast<long long>(bound / kMiB), static_cast<long long>(margin / kMiB), ms.size(),
      percentile(ms, 0.5), p99, percentile(ms, 1.0));
  EXPECT_LT(peak - before, bound + margin);
  EXPECT_GE(evicted, 1u);
  EXPECT_EQ(errors, 0);
  // Served, never stalled for long: the target (a p99 under 10 ms, measured on the release
  // build) is for a benchmark; on a loaded 2-core machine, under the sanitizers, the proxy gets
  // a fraction of a core and every copy is slower, so the bound here is far above it.
  EXPECT_LT(p99, kSanitized ? 2500.0 : 500.0);
  EXPECT_NE(p.log_text().find("evicted: it held"), std::string::npos);
  // Every client gone, nothing is left accounted to them.
  for (int i = 0; i < 600 && proxy_stat(victim, "client_memory") > 1 * kMiB; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_LT(proxy_stat(victim, "client_memory"), static_cast<std::uint64_t>(kMiB));
  std::vector<std::string> del{"DEL"};
  for (int i = 0; i < 20; ++i) del.push_back("mem:attack:" + std::to_string(i));
  std::vector<std::string_view> del_v(del.begin(), del.end());
  victim.command(del_v);
}

// The state of a process's main thread (the perflab-proxy loop): 'S' waiting in epoll_wait,
// 'R' running or waiting for a CPU, 'D' in the kernel (page faults); '?' when unreadable.
char thread_state(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? '?' : text[close + 2];
}

// Clients streaming large commands at full speed do not keep the loop busy: it reads them in
// short turns and rests in between, so most of the time it sleeps, ready to be woken by a small
// request (on a busy machine, a loop that never sleeps waits for its time slices, tens of
// milliseconds, before it serves anyone). Without the rests, the loop is never found asleep.
TEST(ProxyMemory, StreamersLeaveTheLoopAsleepMostOfTheTime) {
  const std::size_t value_size = 64 * kMiB;
  ProxyProcess p({nodes_arg(), "--max-client-memory", std::to_string(256 * kMiB)});
  RedisClient victim({"127.0.0.1", p.port(), {}});
  ASSERT_EQ(victim.command({"PING"}).str, "PONG");
  const std::string chunk(kMiB, 'x');
  std::atomic<bool> stop{false};
  std::atomic<std::int64_t> sent_bytes{0};
  std::vector<std::thread> attackers;
  for (int i = 0; i < 20; ++i)
    attackers.emplace_back([&, i] {
      const std::string key = "mem:stream:" + std::to_string(i);
      while (!stop.load()) {
        const int fd = connect_raw(p.port());
        if (fd < 0) continue;
        bool sent = send_all(fd, set_header(key, value_size), stop);
        for (std::size_t off = 0; sent && off < value_size && !stop.load(); off += kMiB) {
          sent = send_all(fd, chunk, stop);
          if (sent) sent_bytes += static_cast<std::int64_t>(kMiB);
        }
        if (sent) send_all(fd, "\r\n", stop);
        ::close(fd);
      }
    });
  // Once the streams have started, the loop's state is sampled every 5 ms for 3 s; a PING
  // every 50 ms is answered meanwhile.
  for (int i = 0; i < 200 && sent_bytes.load() < 64 * kMiB; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const std::int64_t streamed_before = sent_bytes.load();
  int samples = 0, asleep = 0, errors = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  auto next_ping = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() < until) {
    const char state = thread_state(p.pid());
    samples++;
    asleep += state == 'S';
    if (std::chrono::steady_clock::now() >= next_ping) {
      if (victim.command({"PING"}).str != "PONG") errors++;
      next_ping += std::chrono::milliseconds(50);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const std::int64_t streamed = sent_bytes.load() - streamed_before;
  stop = true;
  for (auto& t : attackers) t.join();
  std::printf("20 clients streaming: %.0f MiB taken in 3 s; the loop asleep in %d of %d samples\n",
              static_cast<double>(streamed) / kMiB, asleep, samples);
  EXPECT_GT(streamed, 0) << "the streams should go on, slower";
  EXPECT_EQ(errors, 0);
  // Reading takes at most an eighth of the loop's time: asleep in most samples, even when a
  // loaded machine preempts it (a preempted turn makes a longer rest).
  EXPECT_GT(asleep, samples / 2);
  std::vector<std::string> del{"DEL"};
  for (int i = 0; i < 20; ++i) del.push_back("mem:stream:" + std::to_string(i));
  std::vector<std::string_view> del_v(del.begin(), del.end());
  victim.command(del_v);
}

// Past the bound the client holding the most is disconnected, not the one whose bytes arrived
// last: a small half-sent command survives a large one, finishes and is answered. The eviction
// is logged with the client's address and counted in PROXY STATS and on the statistics port.
TEST(ProxyMemory, LargestClientIsEvicted) {
  const int stats_port = free_loopback_port();
  ProxyProcess p({nodes_arg(), "--max-client-memory", std::to_string(32 * kMiB), "--stats-port",
                  std::to_string(stats_port)});
  const std::size_t small_size = 4 * kMiB;
  const std::string small_value(small_size, 's');
  const int small = connect_raw(p.port());
  ASSERT_GE(small, 0);
  std::atomic<bool> stop{false};
  ASSERT_TRUE(send_all(small, set_header("mem:small", small_size), stop));
  ASSERT_TRUE(send_all(small, std::string_view(small_value).substr(0, small_size / 2), stop));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));

  const int big = connect_raw(p.port());
  ASSERT_GE(big, 0);
  sockaddr_in me{};
  socklen_t len = sizeof me;
  ::getsockname(big, reinterpret_cast<sockaddr*>(&me), &len);
  const std::string big_value(64 * kMiB, 'b');
  EXPECT_FALSE(send_all(big, set_header("mem:big", big_value.size()) + big_value, stop))
      << "the large client should have been disconnected";
  ::close(big);

  ASSERT_TRUE(send_all(small, std::string_view(small_value).substr(small_size / 2), stop));
  ASSERT_TRUE(send_all(small, "\r\n", stop));
  pollfd pf{small, POLLIN, 0};
  ASSERT_EQ(::poll(&pf, 1, 10000), 1);
  char buf[64];
  const ssize_t n = ::recv(small, buf, sizeof buf, 0);
  EXPECT_EQ(std::string(buf, static_cast<std::size_t>(std::max<ssize_t>(n, 0))), "+OK\r\n");
  ::close(small);

  RedisClient c({"127.0.0.1", p.port(), {}});
  EXPECT_EQ(c.command({"STRLEN", "mem:small"}).integer, static_cast<long long>(small_size));
  EXPECT_EQ(c.command({"EXISTS", "mem:big"}).integer, 0);
  EXPECT_EQ(proxy_stat(c, "clients_evicted"), 1u);
  const std::string log = p.log_text();
  EXPECT_NE(log.find("client 127.0.0.1:" + std::to_string(ntohs(me.sin_port)) + " evicted"),
            std::string::npos)
      << log;
  const int stats = connect_raw(stats_port);
  ASSERT_GE(stats, 0);
  std::string json;
  for (ssize_t k; (k = ::recv(stats, buf, sizeof buf, 0)) > 0;)
    json.append(buf, static_cast<std::size_t>(k));
  ::close(stats);
  EXPECT_NE(json.find("\"clients_evicted\":1,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"client_memory\":"), std::string::npos) << json;
  EXPECT_EQ(c.command({"DEL", "mem:small"}).integer, 1);
}

// A blocking command's reply that comes after the client timeout reaches its client: the client
// is not idle while its reply waits to be written. It was closed instead when the reply came in
// the loop turn that looked for idle clients, before the turn wrote it out (a turn in five, with
// another client talking). 40 clients block for 0.6 to 1.4 s with a 0.5 s timeout while one
// talks every 10 ms, so that many replies come in such a turn.
TEST(ProxyMemory, ABlockingCommandsLateReplyIsDelivered) {
  ProxyProcess p({nodes_arg(), "--client-timeout", "500"});
  RedisClient talker({"127.0.0.1", p.port(), {}});
  std::atomic<bool> done{false};
  std::jthread ping([&] {
    try {
      // Pauses of 80 to 119 ms: the proxy looks for idle clients every 100 ms, and a reply
      // comes in the turn that looks when the two line up.
      for (int k = 0; !done; ++k) {
        EXPECT_EQ(talker.command({"PING"}).str, "PONG");
        std::this_thread::sleep_for(std::chrono::milliseconds(80 + (k * 7) % 40));
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "the talker: " << e.what();
    }
  });
  constexpr int kClients = 60;
  std::vector<std::string> failed(kClients);
  {
    std::vector<std::jthread> blocked;
    for (int i = 0; i < kClients; ++i)
      blocked.emplace_back([&, i] {
        char wait_s[16];
        std::snprintf(wait_s, sizeof wait_s, "%.2f", 0.6 + 0.03 * i);
        try {
          RedisClient c({"127.0.0.1", p.port(), {}}, std::chrono::seconds(10));
          const RedisReply r = c.command({"BLPOP", "mem:none" + std::to_string(i), wait_s});
          if (r.type != RedisReply::Type::Nil) failed[i] = "not a nil reply";
        } catch (const std::exception& e) {
          failed[i] = e.what();
        }
      });
  }
  done = true;
  ping.join();
  for (int i = 0; i < kClients; ++i)
    EXPECT_EQ(failed[i], "") << "client " << i << "\n" << p.log_text();
}

// With --client-timeout, a client silent for that long is closed: one that sent half a command,
// one that sent nothing. One waiting for a blocking command's reply is not idle, nor is one that
// keeps talking. Without the option nobody is closed (the default, as Redis's timeout 0).
TEST(ProxyMemory, IdleClientsTimeOut) {
  // 3 s: the talker (every 100 ms) keeps 2.9 s of slack on a loaded machine, BLPOP 4 s outlasts
  // it. The blocked client connects right before its BLPOP: connected and silent longer than the
  // timeout (a starved test process), it would be closed as idle, which is right.
  ProxyProcess p({nodes_arg(), "--client-timeout", "3000"});
  const int half = connect_raw(p.port());
  const int silent = connect_raw(p.port());
  ASSERT_GE(half, 0);
  ASSERT_GE(silent, 0);
  std::atomic<bool> stop{false};
  ASSERT_TRUE(send_all(half, set_header("mem:half", 100 * 1000) + "abc", stop));
  RedisClient talker({"127.0.0.1", p.port(), {}});
  std::jthread ping([&] {
    try {
      for (int i = 0; i < 40; ++i) {
        EXPECT_EQ(talker.command({"PING"}).str, "PONG");
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "the talker: " << e.what();
    }
  });
  try {
    RedisClient blocked({"127.0.0.1", p.port(), {}}, std::chrono::seconds(10));
    EXPECT_EQ(blocked.command({"BLPOP", "mem:nothing", "4"}).type, RedisReply::Type::Nil);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the blocked client: " << e.what() << "\n" << p.log_text();
  }
  ping.join();
  EXPECT_TRUE(closed_within(half, 5000));
  EXPECT_TRUE(closed_within(silent, 5000));
  ::close(half);
  ::close(silent);
  EXPECT_EQ(talker.command({"PING"}).str, "PONG");
  EXPECT_GE(proxy_stat(talker, "client_timeouts"), 2u);  // the blocked one may follow
  EXPECT_NE(p.log_text().find("ms (client timeout 3000 ms, a command half-sent)"),
            std::string::npos)
      << p.log_text();

  ProxyProcess untimed({nodes_arg()});
  const int idle = connect_raw(untimed.port());
  ASSERT_GE(idle, 0);
  EXPECT_FALSE(closed_within(idle, 1500));
  ::close(idle);
  RedisClient c({"127.0.0.1", untimed.port(), {}});
  EXPECT_EQ(proxy_stat(c, "client_timeouts"), 0u);
}

// A storm of connections, each holding a half-sent command of 40 KB for a moment: once they are
// gone and the proxy has had a quiet moment, its resident memory drops back (the allocator gives
// back what nobody uses instead of keeping it).
TEST(ProxyMemory, MemoryGivenBackWhenIdle) {
  ProxyProcess p({nodes_arg()});
  RedisClient c({"127.0.0.1", p.port(), {}});
  EXPECT_EQ(c.command({"PING"}).str, "PONG");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const std::int64_t base = p.rss();
  const std::string half = set_header("mem:storm", 100 * 1000) + std::string(40 * 1000, 'h');
  std::atomic<bool> stop{false};
  int connections = 0;
  for (int round = 0; round < 10; ++round) {
    std::vector<int> fds;
    for (int i = 0; i < 300; ++i) {
      const int fd = connect_raw(p.port());
      if (fd < 0) continue;
      connections++;
      send_all(fd, half, stop);
      fds.push_back(fd);
    }
    EXPECT_EQ(c.command({"PING"}).str, "PONG");  // every half command has been read
    for (int fd : fds) ::close(fd);
  }
  EXPECT_EQ(c.command({"PING"}).str, "PONG");
  const std::int64_t after_storm = p.rss();
  // The proxy gives memory back once it next has nothing to do: waited for, not slept on (on a
  // loaded machine with ASan its quiet moment comes late), up to a minute.
  std::int64_t after_quiet = p.rss();
  for (int i = 0; i < 600 && after_quiet - base >= (after_storm - base) / 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    after_quiet = p.rss();
  }
  std::printf(
      "%d connections holding 40 KB each: proxy RSS %.1f MiB before, %.1f MiB after the storm, "
      "%.1f MiB after a quiet moment\n",
      connections, static_cast<double>(base) / kMiB, static_cast<double>(after_storm) / kMiB,
      static_cast<double>(after_quiet) / kMiB);
  ASSERT_GT(after_storm - base, 8 * kMiB) << "the storm should have cost memory";
  EXPECT_LT(after_quiet - base, (after_storm - base) / 2);
}

// A client streaming a huge value rests between its reads; one sending an ordinary large value
// (100 KB SETs) beside it is read at once, never rested, and answered while the stream goes on.
// PROXY STATS counts the clients ever rested: the streamer alone.
TEST(ProxyMemory, AnOrdinaryLargeCommandIsNotRested) {
  ProxyProcess p({nodes_arg(), "--max-client-memory", std::to_string(512 * kMiB)});
  RedisClient victim({"127.0.0.1", p.port(), {}}, std::chrono::seconds(60));
  ASSERT_EQ(victim.command({"PING"}).str, "PONG");
  const int streamer = connect_raw(p.port());
  ASSERT_GE(streamer, 0);
  std::atomic<bool> stop{false}, victim_done{false};
  std::atomic<std::int64_t> streamed{0};
  std::jthread stream([&] {
    const std::string chunk(kMiB, 'x');
    if (!send_all(streamer, set_header("mem:rest:stream", 512 * kMiB), stop)) return;
    // Full speed, past the victim's SETs (192 MiB at most: it never completes).
    while (!victim_done.load() && streamed.load() < 192 * kMiB && send_all(streamer, chunk, stop))
      streamed += kMiB;
  });
  for (int i = 0; i < 600 && proxy_stat(victim, "clients_rested") == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(proxy_stat(victim, "clients_rested"), 1u) << "the streamer should rest";
  const std::string value(100 * 1000, 'v');
  int ok = 0;
  for (int i = 0; i < 50; ++i) ok += victim.command({"SET", "mem:rest:victim", value}).str == "OK";
  const std::int64_t streamed_by_then = streamed.load();
  victim_done = true;
  EXPECT_EQ(ok, 50);
  EXPECT_EQ(proxy_stat(victim, "clients_rested"), 1u) << "the victim should never rest";
  EXPECT_LT(streamed_by_then, 192 * kMiB) << "the stream should still go on";
  stop = true;
  stream.join();
  ::close(streamer);
  EXPECT_EQ(victim.command({"STRLEN", "mem:rest:victim"}).integer, 100 * 1000);
  EXPECT_EQ(victim.command({"DEL", "mem:rest:victim"}).integer, 1);
}

// A split command of very many keys goes to the nodes a batch of keys at a time, in parts of
// their own (counted as fragments), other clients served in between; the merged replies are
// those of one command: MGET's values in key order with nils, DEL's count, MSET's OK.
TEST(ProxyMemory, AHugeFanOutIsSentInBatches) {
  ProxyProcess p({nodes_arg()});
  RedisClient c({"127.0.0.1", p.port(), {}}, std::chrono::seconds(120));
  constexpr int kKeys = 200'000;
  std::vector<std::string> keys, values;
  for (int i = 0; i < kKeys; ++i) {
    keys.push_back("mem:fan:" + std::to_string(i));
    values.push_back("v" + std::to_string(i));
  }
  std::vector<std::string_view> mset{"MSET"}, mget{"MGET"}, del{"DEL"};
  for (int i = 0; i < kKeys; ++i) {
    if (i % 3 != 0) mset.insert(mset.end(), {keys[i], values[i]});  // a third stay missing
    mget.push_back(keys[i]);
    del.push_back(keys[i]);
  }
  const std::uint64_t before = proxy_stat(c, "fragments");
  ASSERT_EQ(c.command(mset).str, "OK");
  const std::uint64_t after_mset = proxy_stat(c, "fragments");
  EXPECT_GT(after_mset - before, 2u) << "MSET should go in batches";
  // Another client's PINGs while the MGET is under way are all answered.
  std::atomic<bool> done{false};
  std::atomic<int> pongs{0};
  std::jthread pinger([&] {
    RedisClient other({"127.0.0.1", p.port(), {}}, std::chrono::seconds(60));
    while (!done.load()) pongs += other.command({"PING"}).str == "PONG";
  });
  const RedisReply r = c.command(mget);
  done = true;
  pinger.join();
  EXPECT_GT(pongs.load(), 0);
  EXPECT_GT(proxy_stat(c, "fragments") - after_mset, 2u) << "MGET should go in batches";
  ASSERT_EQ(r.type, RedisReply::Type::Array);
  ASSERT_EQ(r.elements.size(), static_cast<std::size_t>(kKeys));
  int wrong = 0;
  for (int i = 0; i < kKeys; ++i)
    wrong +=
        i % 3 == 0 ? r.elements[i].type != RedisReply::Type::Nil : r.elements[i].str != values[i];
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(c.command(del).integer, kKeys - (kKeys + 2) / 3);
  EXPECT_EQ(c.command({"PING"}).str, "PONG");
  EXPECT_LT(proxy_stat(c, "client_memory"), static_cast<std::uint64_t>(kMiB))
      << "nothing left accounted";
}
