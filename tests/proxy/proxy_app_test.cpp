// The perflab-proxy executable: its command line, serving a Redis client, clean SIGTERM.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "proxy/routing.h"
#include "proxy_process.h"
#include "servers.h"
#include "targets/managed_redis_cluster.h"
#include "targets/redis.h"
#include "targets/server_start.h"

using namespace perflab;
using namespace perflab::proxy::support;

namespace {

// Runs the proxy with args; returns its exit status and what it wrote to stderr.
int run_proxy(const std::vector<std::string>& args, std::string& err) {
  std::string cmd = PERFLAB_PROXY_BIN;
  for (const auto& a : args) cmd += " '" + a + "'";
  cmd += " 2>&1 >/dev/null";
  FILE* f = ::popen(cmd.c_str(), "r");
  char buf[512];
  std::size_t n;
  err.clear();
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) err.append(buf, n);
  int st = ::pclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(ProxyApp, BadArgumentsExitWith2AndOneLine) {
  const std::string nodes = nodes_arg();
  const std::vector<std::vector<std::string>> bad = {
      {"--port", "8090"},                         // no nodes
      {"--port", "x", nodes},                     // not a number
      {"--port", "8090", nodes, "--write=lazy"},  // unknown strategy
      {"--port", "8090", nodes, "--nodelay=maybe"},
      {"--port", "8090", nodes, "--log-level=loud"},
      {"--port", "8090", "--nodes=127.0.0.1:notaport"},
      {"--port", "8090", nodes, "--frobnicate"},
      {"--port", "8090", nodes, "--bind", "not-an-address"},
      {"--port", "8090", nodes, "--client-timeout", "-5"},
      {"--port", "8090", nodes, "--max-client-memory", "lots"},
  };
  for (const auto& args : bad) {
    std::string err;
    EXPECT_EQ(run_proxy(args, err), 2) << args.back() << ": " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_EQ(err.rfind("perflab-proxy: ", 0), 0u) << err;
  }
  std::string out;
  EXPECT_EQ(run_proxy({"--help"}, out), 0);
}

TEST(ProxyApp, ServesAndStopsOnSigterm) {
  const int port = free_loopback_port();
  const std::string log = "/tmp/" + test::unique_name("perflab-proxy-log") + ".txt";
  std::vector<std::string> args = {
      PERFLAB_PROXY_BIN,   "--port",        std::to_string(port), nodes_arg(),
      "--write=per-reply", "--nodelay=off", "--log-level=debug"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    proxy_child_setup(log);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  bool up = false;
  for (int i = 0; i < 100 && !up; ++i) {
    try {
      RedisClient c({"127.0.0.1", port, {}}, std::chrono::milliseconds(200));
      up = true;
      EXPECT_EQ(c.command({"SET", "app:k", "v"}).str, "OK");
      EXPECT_EQ(c.command({"MGET", "app:k", "app:none"}).elements.at(0).str, "v");
      EXPECT_EQ(c.command({"DEL", "app:k"}).integer, 1);
    } catch (const RedisError&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  EXPECT_TRUE(up);
  ::kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  EXPECT_NE(text.find("[info] listening on 127.0.0.1:" + std::to_string(port)), std::string::npos)
      << text;
  EXPECT_NE(text.find("write=per-reply, nodelay=off"), std::string::npos) << text;
  EXPECT_NE(text.find("[debug] client"), std::string::npos) << text;
  EXPECT_NE(text.find("shutting down"), std::string::npos) << text;
  std::filesystem::remove(log);
}

TEST(ProxyApp, HelpVersionAndInlineValues) {
  std::string out;
  ASSERT_EQ(run_proxy({"--version"}, out), 0);
  std::string cmd = std::string(PERFLAB_PROXY_BIN) + " --help";
  FILE* f = ::popen(cmd.c_str(), "r");
  char buf[4096];
  std::string help;
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) help.append(buf, n);
  EXPECT_EQ(::pclose(f), 0);
  for (const char* opt :
       {"--port", "--nodes", "--write", "--nodelay", "--backend-connections", "--log-level",
        "--max-bulk-len", "--max-client-memory", "--client-timeout", "PERFLAB_PROXY_PASSWORD"})
    EXPECT_NE(help.find(opt), std::string::npos) << opt;
  // --opt value and --opt=value alike; a missing value is a usage error.
  EXPECT_EQ(run_proxy({"--port=70000", nodes_arg()}, out), 2);
  EXPECT_NE(out.find("--port"), std::string::npos) << out;
  EXPECT_EQ(run_proxy({"--port", "8090", "--nodes"}, out), 2);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

}  // namespace

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST(ProxyApp, PasswordsLeaveTheCommandLine) {
  ProxyProcess p({nodes_arg(), "--password=backend-secret-1", "--requirepass", "client-secret-2"});
  std::ifstream in("/proc/" + std::to_string(p.pid()) + "/cmdline", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string cmdline = ss.str();
  EXPECT_EQ(cmdline.find("backend-secret-1"), std::string::npos);
  EXPECT_EQ(cmdline.find("client-secret-2"), std::string::npos);
  EXPECT_NE(cmdline.find("--requirepass"), std::string::npos);  // the option itself stays
  const std::string log = p.log_text();
  EXPECT_NE(log.find("warning: --password on the command line"), std::string::npos) << log;
  EXPECT_NE(log.find("warning: --requirepass on the command line"), std::string::npos) << log;
  EXPECT_EQ(log.find("secret"), std::string::npos) << log;  // never logged
  RedisClient c({"127.0.0.1", p.port(), {}});
  EXPECT_EQ(c.command({"GET", "x"}).str, "NOAUTH Authentication required.");
  EXPECT_EQ(c.command({"AUTH", "client-secret-2"}).str, "OK");
}

TEST(ProxyApp, PasswordFilesAndConfigErrors) {
  const std::string dir = "/tmp/" + test::unique_name("perflab-proxy-files");
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir + "/pass") << "from-a-file\n";
    std::ofstream(dir + "/empty") << "";
  }
  {
    ProxyProcess p({nodes_arg(), "--requirepass-file", dir + "/pass"});
    RedisClient c({"127.0.0.1", p.port(), {}});
    EXPECT_EQ(c.command({"AUTH", "from-a-file"}).str, "OK");
    EXPECT_EQ(c.command({"PING"}).str, "PONG");
  }
  std::string err;
  EXPECT_EQ(run_proxy({nodes_arg(), "--requirepass-file", dir + "/empty"}, err), 2) << err;
  EXPECT_NE(err.find("empty"), std::string::npos) << err;
  EXPECT_EQ(run_proxy({nodes_arg(), "--password-file", dir + "/missing"}, err), 2) << err;
  EXPECT_NE(err.find("cannot read"), std::string::npos) << err;
  // nutcracker configurations: a pool that is not there, a memcached pool, a bad server line.
  std::ofstream(dir + "/nc.yml") << "alpha:\n  listen: 127.0.0.1:0\n  redis: true\n"
                                    "  servers:\n   - 127.0.0.1:6379:1\n"
                                    "beta:\n  listen: 127.0.0.1:0\n  servers:\n   - 127.0.0.1:1:1\n"
                                    "gamma:\n  redis: true\n  servers:\n   - 127.0.0.1:x:1\n";
  EXPECT_EQ(run_proxy({"--config", dir + "/nc.yml", "--pool", "delta"}, err), 2);
  EXPECT_NE(err.find("no pool 'delta' in the configuration (it has alpha, beta, gamma)"),
            std::string::npos)
      << err;
  EXPECT_EQ(run_proxy({"--config", dir + "/nc.yml", "--pool", "beta"}, err), 2);
  EXPECT_NE(err.find("memcached is not supported"), std::string::npos) << err;
  EXPECT_EQ(run_proxy({"--config", dir + "/nc.yml", "--pool", "gamma"}, err), 2);
  EXPECT_NE(err.find("not a number"), std::string::npos) << err;
  EXPECT_EQ(run_proxy({"--config", dir + "/nc.yml"}, err), 2);
  EXPECT_NE(err.find("pick one"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  std::filesystem::remove_all(dir);
}

TEST(ProxyApp, ServesANutcrackerPool) {
  RedisTarget t = test::shared_targets().redis(2);
  const std::string yml = "/tmp/" + test::unique_name("perflab-proxy-pool") + ".yml";
  {
    std::ofstream y(yml);
    y << "alpha:\n  listen: 127.0.0.1:1\n  hash: fnv1a_64\n  distribution: ketama\n"
      << "  hash_tag: \"{}\"\n  timeout: 400\n  redis: true\n  auto_eject_hosts: true\n"
      << "  servers:\n   - " << t.nodes[0].address() << ":1\n   - " << t.nodes[1].address()
      << ":1\n";
  }
  ProxyProcess p({"--config", yml, "--pool", "alpha"});  // --port (given) wins over listen
  RedisClient c({"127.0.0.1", p.port(), {}});
  EXPECT_EQ(c.command({"MSET", "{u}a", "1", "{u}b", "2"}).str, "OK");
  EXPECT_EQ(c.command({"RENAME", "{u}a", "{u}c"}).str, "OK");
  EXPECT_EQ(c.command({"DEL", "{u}b", "{u}c"}).integer, 2);
  const std::string log = p.log_text();
  EXPECT_NE(log.find("note: auto_eject_hosts: true is not honoured"), std::string::npos) << log;
  EXPECT_NE(log.find("hash=fnv1a_64, distribution=ketama, hash tag {}"), std::string::npos) << log;
  EXPECT_NE(log.find("backend timeout 400 ms"), std::string::npos) << log;
  std::filesystem::remove(yml);
}

// --cluster: a client that knows nothing of clusters uses one through the proxy.
TEST(ProxyApp, ServesARedisCluster) {
  ManagedRedisCluster cluster;
  ProxyProcess p({"--cluster=" + cluster.seeds()[2].address()});
  RedisClient c({"127.0.0.1", p.port(), {}});
  EXPECT_EQ(c.command({"MSET", "a", "1", "b", "2", "c", "3", "d", "4"}).str, "OK");
  const RedisReply got = c.command({"MGET", "a", "b", "c", "d"});
  ASSERT_EQ(got.elements.size(), 4u);
  EXPECT_EQ(got.elements[3].str, "4");
  EXPECT_EQ(c.command({"DEL", "a", "b", "c", "d"}).integer, 4);
  const std::string log = p.log_text();
  EXPECT_NE(log.find("3 masters"), std::string::npos) << log;
  EXPECT_NE(log.find("slot map"), std::string::npos) << log;
  std::string err;
  EXPECT_EQ(
      run_proxy({"--port", "8090", nodes_arg(), "--cluster=" + cluster.seeds()[0].address()}, err),
      2)
      << err;
  EXPECT_NE(err.find("exclude each other"), std::string::npos) << err;
}

// SIGHUP reopens the log file (a rotated log goes on in a new file), the proxy keeps serving;
// SIGTTIN and SIGTTOU raise and lower the log level, as twemproxy does.
// Whether the log file shows `what`, waiting for it up to 30 s (a loaded machine with ASan; the
// proxy logs within milliseconds).
static bool log_shows(const std::string& file, const std::string& what) {
  for (int i = 0; i < 600; ++i) {
    std::ifstream in(file);
    std::stringstream ss;
    ss << in.rdbuf();
    if (ss.str().find(what) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

TEST(ProxyApp, SignalsReopenTheLogAndChangeItsLevel) {
  const std::string file = "/tmp/" + test::unique_name("perflab-proxy-hup") + ".log";
  ProxyProcess p({nodes_arg(), "--log-file", file, "--log-level", "info"});
  RedisClient c({"127.0.0.1", p.port(), {}});
  EXPECT_EQ(c.command({"SET", "hup:k", "1"}).str, "OK");
  std::filesystem::rename(file, file + ".1");
  ::kill(p.pid(), SIGHUP);
  auto wait_for = [&](const std::string& what) { return log_shows(file, what); };
  EXPECT_TRUE(wait_for("log file reopened"));
  EXPECT_TRUE(p.alive());
  EXPECT_EQ(c.command({"GET", "hup:k"}).str, "1");
  ::kill(p.pid(), SIGTTIN);
  EXPECT_TRUE(wait_for("log level now debug"));
  RedisClient d({"127.0.0.1", p.port(), {}});
  EXPECT_EQ(d.command({"PING"}).str, "PONG");
  EXPECT_TRUE(wait_for("[debug] client"));
  // One at a time: two signals of a kind sent at once may be delivered as one.
  ::kill(p.pid(), SIGTTOU);
  EXPECT_TRUE(wait_for("log level now info"));
  ::kill(p.pid(), SIGTTOU);
  EXPECT_TRUE(wait_for("log level now warn"));
  EXPECT_TRUE(p.alive());
  EXPECT_EQ(c.command({"DEL", "hup:k"}).integer, 1);
  std::filesystem::remove(file);
  std::filesystem::remove(file + ".1");
}

// twemproxy's test_signal: each signal is named in the log, and a crash (SIGSEGV) is logged
// before its default action ends the process.
TEST(ProxyApp, SignalsAreNamedInTheLogAndACrashIsLogged) {
  const rlimit no_core{0, 0};  // the crash below leaves no core file behind
  ASSERT_EQ(::setrlimit(RLIMIT_CORE, &no_core), 0);
  const std::string file = "/tmp/" + test::unique_name("perflab-proxy-sig") + ".log";
  ProxyProcess p({nodes_arg(), "--log-file", file, "--log-level", "info"});
  // Served: its signal handlers are in place (a connection alone is taken before they are).
  RedisClient c({"127.0.0.1", p.port(), {}});
  ASSERT_EQ(c.command({"PING"}).str, "PONG");
  const auto logged = [&](const std::string& what) {
    EXPECT_TRUE(log_shows(file, what)) << "not logged: " << what;
  };
  ::kill(p.pid(), SIGHUP);
  logged("signal " + std::to_string(SIGHUP) + " (SIGHUP) received: log file reopened");
  ::kill(p.pid(), SIGTTIN);
  logged("signal " + std::to_string(SIGTTIN) + " (SIGTTIN) received: log level now debug");
  ::kill(p.pid(), SIGTTOU);
  logged("signal " + std::to_string(SIGTTOU) + " (SIGTTOU) received: log level now info");
  ::kill(p.pid(), SIGSEGV);
  int status = 0;
  for (int i = 0; i < 600 && ::waitpid(p.pid(), &status, WNOHANG) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) << "status " << status;
  logged("signal " + std::to_string(SIGSEGV) + " (SIGSEGV) received, core dumping");
  std::filesystem::remove(file);
}

// Out of file descriptors: no busy accept loop (the proxy's CPU over two seconds stays low), one
// log line instead of thousands, refused clients are told so, existing clients are served, even
// one whose first command comes after the flood (the nodes' connections are not opened yet then:
// descriptors are kept for them).
TEST(ProxyApp, OutOfDescriptorsDoesNotSpin) {
  ProxyProcess p({nodes_arg()}, 64);
  RedisClient first({"127.0.0.1", p.port(), {}});
  std::vector<int> fds;
  for (int i = 0; i < 150; ++i) {
    int fd = connect_raw(p.port());
    if (fd >= 0) fds.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const std::int64_t cpu0 = other_process_cpu_ns(p.pid());
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const std::int64_t cpu1 = other_process_cpu_ns(p.pid());
  ASSERT_GE(cpu0, 0);
  const double cpu_share = static_cast<double>(cpu1 - cpu0) / 2e9;
  std::printf("out of descriptors: proxy CPU %.1f%% of one core over 2 s\n", 100 * cpu_share);
  EXPECT_LT(cpu_share, 0.25);  // a busy accept loop takes a whole core
  // Refused clients were told, and closed.
  int refused = 0;
  for (int fd : fds) {
    pollfd pf{fd, POLLIN, 0};
    if (::poll(&pf, 1, 0) > 0) {
      char buf[128];
      ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
      if (n > 0 && std::string(buf, static_cast<std::size_t>(n)).find("max number of clients") !=
                       std::string::npos)
        refused++;
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_EQ(first.command({"SET", "fd:k", "1"}).str, "OK");  // the existing client is served
  EXPECT_EQ(first.command({"GET", "fd:k"}).str, "1");
  const std::string log = p.log_text();
  EXPECT_EQ(count(log, "Too many open files"), 0u) << log.substr(0, 2000);
  EXPECT_GE(count(log, "out of file descriptors"), 1u) << log.substr(0, 2000);
  EXPECT_LE(count(log, "out of file descriptors"), 2u);
  EXPECT_NE(log.find("file descriptor limit 64: at most 30 clients at once"), std::string::npos)
      << log.substr(0, 2000);
  for (int fd : fds) ::close(fd);
  // Descriptors free again: new clients are served.
  bool served = false;
  for (int i = 0; i < 50 && !served; ++i) {
    try {
      RedisClient again({"127.0.0.1", p.port(), {}}, std::chrono::milliseconds(500));
      served = again.command({"DEL", "fd:k"}).type == RedisReply::Type::Integer;
    } catch (const RedisError&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  EXPECT_TRUE(served);
}

// A client that pipelines GETs of a 100 KB value and never reads: the proxy stops reading it at
// its bound (or, past twice the bound, disconnects it), its memory stays near the bound (not
// 20000 x 100 KB), and another client on the same node keeps its normal latency.
TEST(ProxyApp, NeverReadingClientStaysBounded) {
  const std::int64_t bound = 8 << 20;
  ProxyProcess p({nodes_arg(), "--max-client-pending-bytes", std::to_string(bound)});
  RedisClient victim({"127.0.0.1", p.port(), {}});
  const std::string big(100 * 1000, 'v');
  EXPECT_EQ(victim.command({"SET", "slow:big{t}", big}).str, "OK");
  EXPECT_EQ(victim.command({"SET", "slow:small{t}", "s"}).str, "OK");  // the same node
  for (int i = 0; i < 20; ++i) victim.command({"GET", "slow:big{t}"});
  const std::int64_t before = p.rss();
  const std::uint64_t requests_before = proxy_stat(victim, "requests");
  auto p99 = [&](int n) {
    std::vector<double> ms;
    for (int i = 0; i < n; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      EXPECT_EQ(victim.command({"GET", "slow:small{t}"}).str, "s");
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[static_cast<std::size_t>(0.99 * static_cast<double>(ms.size() - 1))];
  };
  const double p99_alone = p99(200);

  int attacker = connect_raw(p.port());
  ASSERT_GE(attacker, 0);
  int small = 4096;
  ::setsockopt(attacker, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  const std::string get = "*2\r\n$3\r\nGET\r\n$11\r\nslow:big{t}\r\n";
  const int n = 20000;
  std::string burst;
  for (int i = 0; i < n; ++i) burst += get;
  std::size_t sent = 0;
  std::int64_t peak = before;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (std::chrono::steady_clock::now() < until) {
    if (sent < burst.size()) {
      ssize_t k =
          ::send(attacker, burst.data() + sent, burst.size() - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (k > 0) sent += static_cast<std::size_t>(k);
    }
    peak = std::max(peak, p.rss());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const double p99_attacked = p99(200);
  peak = std::max(peak, p.rss());
  const std::uint64_t taken = proxy_stat(victim, "requests") - requests_before - 201;
  std::printf(
      "never-reading client: %llu of %d GETs of 100 KB taken; proxy RSS %.1f MiB before, peak "
      "%.1f MiB (bound %.0f MiB); victim p99 %.2f ms alone, %.2f ms beside it\n",
      static_cast<unsigned long long>(taken), n, static_cast<double>(before) / (1 << 20),
      static_cast<double>(peak) / (1 << 20), static_cast<double>(bound) / (1 << 20), p99_alone,
      p99_attacked);
  // Unbounded, 20000 replies of 100 KB are 2 GB; bounded: about the bound (plus what was in
  // flight when reading stopped, and the allocator's slack).
  EXPECT_LT(peak - before, 6 * bound);
  EXPECT_LT(taken, static_cast<std::uint64_t>(n) / 4);  // the proxy stopped reading it
  // Behaviour, not speed (the figures are printed): normal is a millisecond, a stall was
  // seconds; a loaded machine with ASan stays far below this.
  EXPECT_LT(p99_attacked, 1000.0);
  ::close(attacker);
  EXPECT_EQ(victim.command({"DEL", "slow:big{t}", "slow:small{t}"}).integer, 2);
}

// One merged reply larger than the hard limit (twice the bound, at least 16 MiB more: 17 MiB
// here) is served to a client that reads it; only a client that stops reading is disconnected.
// twemproxy's own suite does an MGET of 5 values of 16 MB.
TEST(ProxyApp, OneLargeReplyThatIsReadIsServed) {
  ProxyProcess p({nodes_arg(), "--max-client-pending-bytes", "1048576"});
  RedisClient c({"127.0.0.1", p.port(), {}}, std::chrono::seconds(60));
  const std::string big(7 * 1000 * 1000, 'b');  // 28 MB, 4 MB of which a socket may take
  std::vector<std::string> keys;
  std::vector<std::string_view> mget{"MGET"};
  for (int i = 0; keys.size() < 4; ++i) {  // two keys on each node: the reply is merged
    const std::string k = "large:" + std::to_string(i);
    const std::size_t node = proxy::node_for_key(k, 2);
    if (std::count_if(keys.begin(), keys.end(),
                      [&](const std::string& x) { return proxy::node_for_key(x, 2) == node; }) < 2)
      keys.push_back(k);
  }
  for (const auto& k : keys) {
    EXPECT_EQ(c.command({"SET", k, big}).str, "OK");
    mget.push_back(k);
  }
  const RedisReply r = c.command(mget);
  ASSERT_EQ(r.elements.size(), 4u) << r.str;
  for (const auto& e : r.elements) EXPECT_EQ(e.str.size(), big.size());
  EXPECT_EQ(proxy_stat(c, "client_limit_closes"), 0u);
  // The same MGET from a client that never reads: disconnected about a second later.
  const int lazy = connect_raw(p.port());
  ASSERT_GE(lazy, 0);
  int small = 4096;
  ::setsockopt(lazy, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  std::string frame = "*5\r\n$4\r\nMGET\r\n";
  for (const auto& k : keys) frame += "$" + std::to_string(k.size()) + "\r\n" + k + "\r\n";
  ASSERT_EQ(::send(lazy, frame.data(), frame.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(frame.size()));
  std::uint64_t closes = 0;
  // Closed after a second without reading; waited for up to a minute (a loaded machine, ASan).
  for (int i = 0; i < 600 && closes == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    closes = proxy_stat(c, "client_limit_closes");
  }
  EXPECT_EQ(closes, 1u);
  ::close(lazy);
  std::vector<std::string_view> del{"DEL"};
  del.insert(del.end(), keys.begin(), keys.end());
  EXPECT_EQ(c.command(del).integer, 4);
}
