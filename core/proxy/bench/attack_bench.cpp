// perflab-proxy-attack-bench: a memory attack on a running server (perflab-proxy, or
// redis-server as its peer) and the latency of a victim beside it (a benchmark, not a test: it
// prints figures). Clients stream large SET values, again whenever they are disconnected, while
// one more sends PINGs one at a time; at the end it prints the server's resident memory (before,
// peak), the clients it evicted, the victim's PING latency (p50, p99, p99.9, max) and the load.
//
//   perflab-proxy-attack-bench --port P --pid PID [--clients 20] [--value-mib 512]
//       [--rate-mib 0] [--seconds 10] [--min-pings 1000] [--gap-ms 2] [--attack-nice N]
//       [--victim-set-kb 0] [--fanout-keys 0] [--label TEXT]
//
// --victim-set-kb K: the victim sends SETs of K KiB values (perflab:attack:victim) instead of
// PINGs, an ordinary large command beside the streamers (e.g. --clients 1 --value-mib 64).
// --fanout-keys N: the clients do not stream; each sends MSET, MGET and DEL of N keys
// (perflab:fan:C:I) in turn, one at a time, and the victim's PINGs measure how long such a
// fan-out holds everyone else; their own mean times are printed too.
//
// --rate-mib 0 sends at full speed; 4 is the pace of tests/proxy/proxy_memory_test.cpp (256 KiB
// every 62.5 ms per client). The peak is the server's VmHWM: start a fresh server for each try.
// --attack-nice 10 lowers the attackers' priority, not the victim's: started under nice -n -10
// with the server, the victim and the server then hardly wait for others on a shared machine.
// Keys: perflab:attack:N, deleted at the end.
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/machine_noise.h"
#include "common/stats.h"
#include "proxy/resp.h"

using namespace perflab;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

struct Options {
  int port = 0;
  int pid = 0;
  int clients = 20;
  std::size_t value_mib = 512;
  double rate_mib = 0;  // per client; 0: full speed
  double seconds = 10;
  int min_pings = 1000;
  int gap_ms = 2;
  int attack_nice = 0;            // added to the attackers' nice value (not the victim's)
  std::size_t victim_set_kb = 0;  // 0: the victim sends PINGs
  std::size_t fanout_keys = 0;    // 0: the clients stream SET values
  std::string label;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "%s\nusage: perflab-proxy-attack-bench --port P --pid PID [--clients 20] "
               "[--value-mib 512] [--rate-mib 0] [--seconds 10] [--min-pings 1000] "
               "[--gap-ms 2] [--attack-nice N] [--victim-set-kb 0] [--fanout-keys 0] "
               "[--label TEXT]\n",
               why);
  std::exit(2);
}

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) usage(("missing value after " + a).c_str());
    const char* v = argv[++i];
    if (a == "--port")
      o.port = std::atoi(v);
    else if (a == "--pid")
      o.pid = std::atoi(v);
    else if (a == "--clients")
      o.clients = std::atoi(v);
    else if (a == "--value-mib")
      o.value_mib = static_cast<std::size_t>(std::atoll(v));
    else if (a == "--rate-mib")
      o.rate_mib = std::atof(v);
    else if (a == "--seconds")
      o.seconds = std::atof(v);
    else if (a == "--min-pings")
      o.min_pings = std::atoi(v);
    else if (a == "--gap-ms")
      o.gap_ms = std::atoi(v);
    else if (a == "--attack-nice")
      o.attack_nice = std::atoi(v);
    else if (a == "--victim-set-kb")
      o.victim_set_kb = static_cast<std::size_t>(std::atoll(v));
    else if (a == "--fanout-keys")
      o.fanout_keys = static_cast<std::size_t>(std::atoll(v));
    else if (a == "--label")
      o.label = v;
    else
      usage(("unknown option " + a).c_str());
  }
  if (o.port <= 0 || o.pid <= 0 || o.clients < 0 || o.value_mib == 0)
    usage("--port and --pid are required");
  return o;
}

// A field of /proc/PID/status in bytes ("VmRSS:", "VmHWM:"), or -1.
std::int64_t status_bytes(int pid, const char* field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0) return std::stoll(line.substr(std::strlen(field))) * 1024;
  return -1;
}

// The process's user + system CPU time in seconds (/proc/PID/stat fields 14 and 15).
double cpu_seconds(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(text.substr(close + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i)
    if (i >= 14) ticks += std::atof(field.c_str());
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  // Blocking sends and receives wake up every 100 ms, to notice the end of the run.
  timeval tv{0, 100'000};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

// One command and its reply on a blocking connection; throws when it takes over 10 s.
std::string command(int fd, const std::vector<std::string_view>& argv) {
  const auto until = Clock::now() + std::chrono::seconds(10);
  return proxy::exchange_command(fd, argv, [&](short) {
    if (Clock::now() > until) throw std::runtime_error("no reply within 10 s");
  });
}

// Sends all of data; false when the server closed the connection or `stop` was set first.
bool send_all(int fd, std::string_view data, const std::atomic<bool>& stop, std::uint64_t& sent) {
  while (!data.empty()) {
    if (stop.load(std::memory_order_relaxed)) return false;
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<std::size_t>(n));
      sent += static_cast<std::uint64_t>(n);
    } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return false;
    }
  }
  return true;
}

struct AttackCounts {
  std::atomic<std::uint64_t> connections{0}, completed{0}, refused{0}, bytes{0};
  // Fan-outs: MSET, MGET and DEL done, and their total time in microseconds.
  std::atomic<std::uint64_t> fanouts[3] = {}, fanout_us[3] = {};
};

// One fan-out client: MSET, MGET and DEL of fanout_keys keys in turn, until `stop`. MSET goes
// in commands of 256K keys: a command takes 1M arguments at most (proxy/resp.h).
void fan_out(const Options& o, int index, const std::atomic<bool>& stop, AttackCounts& counts) {
  const int fd = connect_to(o.port);
  if (fd < 0) {
    counts.refused++;
    return;
  }
  counts.connections++;
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < o.fanout_keys; ++i)
    keys.push_back("perflab:fan:" + std::to_string(index) + ":" + std::to_string(i));
  std::vector<std::vector<std::string_view>> msets;
  std::vector<std::string_view> mget{"MGET"}, del{"DEL"};
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i % (256 * 1024) == 0) msets.push_back({"MSET"});
    msets.back().push_back(keys[i]);
    msets.back().push_back("v");
    mget.push_back(keys[i]);
    del.push_back(keys[i]);
  }
  const std::vector<std::vector<std::string_view>> cmds[3] = {msets, {mget}, {del}};
  while (!stop.load()) {
    for (int i = 0; i < 3 && !stop.load(); ++i) {
      const auto a = Clock::now();
      try {
        const auto until = a + std::chrono::seconds(60);
        for (const auto& cmd : cmds[i]) {
          const std::string r = proxy::exchange_command(fd, cmd, [&](short) {
            if (Clock::now() > until) throw std::runtime_error("no reply within 60 s");
          });
          if (r.empty() || r[0] == '-') throw std::runtime_error(r);
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "fan-out client %d: %s\n", index, e.what());
        ::close(fd);
        return;
      }
      counts.fanouts[i]++;
      counts.fanout_us[i] += static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - a).count());
      counts.completed++;
    }
  }
  ::close(fd);
}

// One attacker: connects, streams a SET of value_mib, again and again, until `stop`.
void attack(const Options& o, int index, const std::string& chunk, const std::atomic<bool>& stop,
            AttackCounts& counts) {
  if (o.attack_nice != 0) {  // this thread only (Linux: a thread's nice value is its own)
    const int tid = static_cast<int>(::gettid());
    ::setpriority(PRIO_PROCESS, static_cast<id_t>(tid),
                  ::getpriority(PRIO_PROCESS, static_cast<id_t>(tid)) + o.attack_nice);
  }
  const std::string key = "perflab:attack:" + std::to_string(index);
  const std::size_t value = o.value_mib * kMiB;
  const std::string header = "*3\r\n$3\r\nSET\r\n$" + std::to_string(key.size()) + "\r\n" + key +
                             "\r\n$" + std::to_string(value) + "\r\n";
  // Paced: a chunk per interval, each sent at its time (not after the previous one's sleep).
  const std::size_t step = o.rate_mib > 0 ? kMiB / 4 : chunk.size();
  const auto interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(o.rate_mib > 0 ? 0.25 / o.rate_mib : 0));
  while (!stop.load()) {
    const int fd = connect_to(o.port);
    if (fd < 0) {
      counts.refused++;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    counts.connections++;
    std::uint64_t sent = 0;
    bool ok = send_all(fd, header, stop, sent);
    auto next = Clock::now();
    for (std::size_t off = 0; ok && off < value; off += step) {
      if (o.rate_mib > 0) {
        next += interval;
        std::this_thread::sleep_until(next);
      }
      ok = send_all(fd, std::string_view(chunk).substr(0, std::min(step, value - off)), stop, sent);
    }
    if (ok && send_all(fd, "\r\n", stop, sent)) {
      char buf[64];
      while (!stop.load()) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n > 0 && buf[0] == '+') counts.completed++;
        if (n >= 0 || (errno != EAGAIN && errno != EINTR)) break;
      }
    }
    counts.bytes += sent;
    ::close(fd);
  }
}

std::string load_text() {
  const MachineSnapshot s = read_machine_snapshot();
  if (!s.load) return "?";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", s.load->one, s.load->five, s.load->fifteen);
  return buf;
}

// Clients evicted so far: perflab-proxy's PROXY STATS clients_evicted, or Redis's INFO
// evicted_clients; -1 when neither answers.
long long evicted(int fd) {
  auto field = [](const std::string& text, const std::string& name) -> long long {
    const auto at = text.find(name + ":");
    return at == std::string::npos ? -1 : std::atoll(text.c_str() + at + name.size() + 1);
  };
  std::string r = command(fd, {"PROXY", "STATS"});
  if (!r.empty() && r[0] == '$') return field(r, "clients_evicted");
  r = command(fd, {"INFO", "stats"});
  return field(r, "evicted_clients");
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_args(argc, argv);
  const int victim = connect_to(o.port);
  if (victim < 0) usage("cannot connect to the server");
  for (int i = 0; i < 100; ++i)
    if (command(victim, {"PING"}) != "+PONG\r\n") usage("the server does not answer PING");
  // The victim's request: a PING, or a SET of victim_set_kb KiB.
  const std::string victim_value(o.victim_set_kb * 1024, 'v');
  std::vector<std::string_view> victim_cmd{"PING"};
  std::string victim_ok = "+PONG\r\n";
  if (o.victim_set_kb > 0) {
    victim_cmd = {"SET", "perflab:attack:victim", victim_value};
    victim_ok = "+OK\r\n";
  }
  const long long evicted_before = evicted(victim);
  const std::int64_t rss_before = status_bytes(o.pid, "VmRSS:");
  const double cpu_before = cpu_seconds(o.pid);
  const std::string load_before = load_text();

  const std::string chunk(kMiB, 'x');
  std::atomic<bool> stop{false};
  AttackCounts counts;
  std::vector<std::thread> attackers;
  const auto t0 = Clock::now();
  for (int i = 0; i < o.clients; ++i)
    attackers.emplace_back([&, i] {
      if (o.fanout_keys > 0)
        fan_out(o, i, stop, counts);
      else
        attack(o, i, chunk, stop, counts);
    });

  std::vector<double> ms;
  int errors = 0;
  int fd = victim;
  const auto until =
      t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  while (Clock::now() < until || static_cast<int>(ms.size()) < o.min_pings) {
    const auto a = Clock::now();
    try {
      if (command(fd, victim_cmd) != victim_ok) errors++;
    } catch (const std::exception&) {  // the victim itself was disconnected
      errors++;
      ::close(fd);
      fd = connect_to(o.port);
      if (fd < 0) break;
      continue;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
    std::this_thread::sleep_for(std::chrono::milliseconds(o.gap_ms));
  }
  const double attack_s = std::chrono::duration<double>(Clock::now() - t0).count();
  const double cpu = cpu_seconds(o.pid) - cpu_before;
  const std::string load_after = load_text();
  stop = true;
  for (auto& t : attackers) t.join();
  if (fd < 0) {
    std::fprintf(stderr, "the victim could not reconnect\n");
    return 1;
  }
  const std::int64_t peak = status_bytes(o.pid, "VmHWM:");
  const long long evicted_after = evicted(fd);
  std::vector<std::string> del{"DEL", "perflab:attack:victim"};
  for (int i = 0; i < o.clients; ++i) del.push_back("perflab:attack:" + std::to_string(i));
  for (int i = 0; i < o.clients && o.fanout_keys > 0; ++i)
    for (std::size_t k = 0; k < o.fanout_keys; ++k)
      del.push_back("perflab:fan:" + std::to_string(i) + ":" + std::to_string(k));
  const auto until_del = Clock::now() + std::chrono::seconds(60);
  proxy::exchange_command(fd, std::vector<std::string_view>(del.begin(), del.end()), [&](short) {
    if (Clock::now() > until_del) throw std::runtime_error("DEL: no reply within 60 s");
  });
  ::close(fd);

  std::sort(ms.begin(), ms.end());
  auto q = [&](double p) { return quantile_sorted(ms, p); };
  const double mib = static_cast<double>(kMiB);
  char pace[64] = "full speed";
  if (o.rate_mib > 0) std::snprintf(pace, sizeof pace, "%g MiB/s each", o.rate_mib);
  std::string attack_text = std::to_string(o.clients) + " x " + std::to_string(o.value_mib) +
                            " MiB SET values at " + pace;
  if (o.fanout_keys > 0) {
    attack_text = std::to_string(o.clients) + " x MSET/MGET/DEL of " +
                  std::to_string(o.fanout_keys) + " keys (mean";
    const char* names[3] = {"MSET", "MGET", "DEL"};
    for (int i = 0; i < 3; ++i) {
      const auto k = counts.fanouts[i].load();
      char buf[64];
      std::snprintf(buf, sizeof buf, " %s %llu x %.1f ms", names[i],
                    static_cast<unsigned long long>(k),
                    k == 0 ? 0.0 : static_cast<double>(counts.fanout_us[i].load()) / 1e3 / k);
      attack_text += buf;
    }
    attack_text += ")";
  }
  const std::string victim_text =
      o.victim_set_kb > 0 ? std::to_string(o.victim_set_kb) + " KiB SETs" : "PINGs";
  std::printf(
      "%s%s%s for %.1f s: %llu connections, %llu completed, %lld "
      "evicted, %.0f MiB/s sent; server RSS %.1f MiB before, peak %.1f MiB, CPU %.2f s (%.0f%% "
      "of a core); victim %zu %s, %d errors, p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max "
      "%.2f ms; load %s -> %s\n",
      o.label.c_str(), o.label.empty() ? "" : ": ", attack_text.c_str(), attack_s,
      static_cast<unsigned long long>(counts.connections.load()),
      static_cast<unsigned long long>(counts.completed.load()),
      evicted_before < 0 || evicted_after < 0 ? -1 : evicted_after - evicted_before,
      static_cast<double>(counts.bytes.load()) / mib / attack_s,
      static_cast<double>(rss_before) / mib, static_cast<double>(peak) / mib, cpu,
      100 * cpu / attack_s, ms.size(), victim_text.c_str(), errors, q(0.5), q(0.99), q(0.999),
      q(1.0), load_before.c_str(), load_after.c_str());
  return 0;
}
