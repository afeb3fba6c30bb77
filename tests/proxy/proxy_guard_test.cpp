// What the proxy refuses and bounds against real managed Redis servers: malformed lengths,
// clients without the password, administrative commands, frozen or slow backends; its
// statistics.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/key_slot.h"
#include "proxy/pool_config.h"
#include "proxy/proxy.h"
#include "proxy/routing.h"
#include "proxy_test_support.h"
#include "servers.h"
#include "targets/child_process.h"
#include "targets/cluster.h"
#include "targets/managed_redis.h"
#include "targets/managed_redis_cluster.h"
#include "targets/owned_folder.h"
#include "targets/redis.h"
#include "targets/server_binary.h"
#include "targets/server_start.h"

using namespace perflab;
using namespace perflab::proxy;
using namespace perflab::proxy::support;

// An attack on a shared connection: lengths Redis refuses ("$01", "$-0", "*02"...) on a connection
// shared with other clients. They are refused by the proxy itself, so the shared connection and the
// other clients never notice.
TEST(Proxy, MalformedLengthsNeverReachASharedConnection) {
  auto proxy = make_proxy(servers().shards);
  RedisClient victim(at(proxy->port()));
  EXPECT_EQ(show(victim.command({"SET", "victim:k", "v"})), "+OK");
  const std::vector<std::string> attacks = {"*2\r\n$3\r\nGET\r\n$08\r\nvictim:k\r\n",
                                            "*2\r\n$3\r\nGET\r\n$-0\r\n",
                                            "*02\r\n$3\r\nGET\r\n$8\r\nvictim:k\r\n",
                                            "*2\r\n$+3\r\nGET\r\n$8\r\nvictim:k\r\n",
                                            "*-0\r\n",
                                            "*2\r\n$3\r\nGET\r\n$ 8\r\nvictim:k\r\n"};
  int errors = 0, replies = 0;
  for (int round = 0; round < 20; ++round) {
    for (const auto& a : attacks) {
      Raw bad(proxy->port());
      bad.send("*2\r\n$3\r\nGET\r\n$8\r\nvictim:k\r\n" + a);  // a good frame first
      bool eof = false;
      std::string got = bad.read(1000, &eof);
      EXPECT_EQ(got.rfind("$1\r\nv\r\n-ERR Protocol error: invalid ", 0), 0u) << a << got;
      EXPECT_TRUE(eof);
      // The victim, meanwhile, on the same node's shared connection.
      auto r =
          victim.pipeline({{"GET", "victim:k"}, {"SET", "victim:k", "v"}, {"GET", "victim:k"}});
      for (const auto& x : r) {
        replies++;
        if (x.type == RedisReply::Type::Error) errors++;
      }
    }
  }
  EXPECT_EQ(errors, 0) << "of " << replies;
  EXPECT_EQ(proxy->stats().backend_failures, 0u);
  EXPECT_EQ(proxy->stats().protocol_errors, 20 * attacks.size());
}

TEST(Proxy, ClientsMustAuthenticateToTheProxy) {
  ProxyOptions o;
  o.port = 0;
  o.nodes = servers().shards;
  o.requirepass = "s3cret";
  o.log_level = LogLevel::Error;
  Proxy proxy(o);
  proxy.start();
  RedisClient c(at(proxy.port()));
  EXPECT_EQ(show(c.command({"GET", "a"})), "-NOAUTH Authentication required.");
  EXPECT_EQ(show(c.command({"PING"})), "-NOAUTH Authentication required.");
  EXPECT_EQ(show(c.command({"FLUSHALL"})), "-NOAUTH Authentication required.");
  EXPECT_EQ(show(c.command({"PROXY", "STATS"})), "-NOAUTH Authentication required.");
  EXPECT_EQ(show(c.command({"AUTH", "guess"})),
            "-WRONGPASS invalid username-password pair or user is disabled.");
  EXPECT_EQ(show(c.command({"AUTH", "someone", "s3cret"})),
            "-WRONGPASS invalid username-password pair or user is disabled.");
  // The backends have no password: a +OK can only come from the proxy.
  EXPECT_EQ(show(c.command({"AUTH", "s3cret"})), "+OK");
  EXPECT_EQ(show(c.command({"PING"})), "+PONG");
  EXPECT_EQ(show(c.command({"AUTH", "default", "s3cret"})), "+OK");
  EXPECT_EQ(proxy.stats().auth_failures, 2u);
  // Before AUTH, a stranger cannot make the proxy buffer much: Redis's unauthenticated limits.
  Raw raw(proxy.port());
  raw.send("*2\r\n$4\r\nAUTH\r\n$100000\r\n");
  bool eof = false;
  EXPECT_EQ(raw.read(1000, &eof), "-ERR Protocol error: unauthenticated bulk length\r\n");
  EXPECT_TRUE(eof);
  // Inline commands too.
  Raw inl(proxy.port());
  inl.send("GET a\r\nAUTH s3cret\r\nPING\r\n");
  EXPECT_EQ(inl.read(44), "-NOAUTH Authentication required.\r\n+OK\r\n+PONG\r\n");
}

TEST(Proxy, BackendPasswordIsNeverReachable) {
  // AUTH without a client password is answered by the proxy, never forwarded; CONFIG (which
  // would show requirepass) is refused.
  auto proxy = make_proxy(servers().shards);
  RedisClient c(at(proxy->port()));
  RedisReply r = c.command({"AUTH", "x"});
  EXPECT_EQ(r.str.rfind("ERR AUTH <password> called without any password configured", 0), 0u)
      << r.str;
  r = c.command({"CONFIG", "GET", "requirepass"});
  EXPECT_EQ(r.str.rfind("ERR 'CONFIG' is an administrative command", 0), 0u) << r.str;
}

TEST(Proxy, AdministrativeCommandsRefusedUnlessAllowed) {
  auto proxy = make_proxy(servers().shards);
  RedisClient c(at(proxy->port()));
  const std::vector<Cmd> admin = {{"CONFIG", "SET", "bind", "0.0.0.0"},
                                  {"CONFIG", "GET", "*"},
                                  {"DEBUG", "SLEEP", "0"},
                                  {"SHUTDOWN", "NOSAVE"},
                                  {"SLAVEOF", "127.0.0.1", "1"},
                                  {"REPLICAOF", "NO", "ONE"},
                                  {"MODULE", "LIST"},
                                  {"ACL", "LIST"},
                                  {"MONITOR"},
                                  {"CLIENT", "KILL", "TYPE", "normal"},
                                  {"BGSAVE"}};
  for (const Cmd& cmd : admin) {
    RedisReply r = run(c, cmd);
    ASSERT_EQ(r.type, RedisReply::Type::Error) << cmd[0];
    EXPECT_EQ(r.str.rfind("ERR '" + cmd[0] + "' is an administrative command", 0), 0u) << r.str;
    EXPECT_NE(r.str.find("--allow-admin"), std::string::npos);
  }
  EXPECT_EQ(show(c.command({"PING"})), "+PONG");  // the client stays usable
  // The nodes were not touched.
  for (const auto& n : servers().shards) {
    RedisClient direct(n);
    EXPECT_EQ(show(direct.command({"CONFIG", "GET", "bind"}).elements.at(1)).find("0.0.0.0"),
              std::string::npos);
  }
  // A trusted lab may allow them: sent to every node, on the client's own connections.
  ProxyOptions o;
  o.port = 0;
  o.nodes = servers().shards;
  o.allow_admin = true;
  o.log_level = LogLevel::Error;
  Proxy lab(o);
  lab.start();
  RedisClient l(at(lab.port()));
  EXPECT_EQ(show(l.command({"CONFIG", "GET", "maxmemory-policy"})),
            show(RedisClient(servers().shards[0]).command({"CONFIG", "GET", "maxmemory-policy"})));
  RedisReply m = l.command({"MONITOR"});
  EXPECT_NE(m.str.find("turns the connection into a stream"), std::string::npos) << m.str;
  EXPECT_EQ(show(l.command({"GET", "nope"})), "nil");
}

namespace {

// Whether s appears anywhere in a reply (its text, or any element's).
bool holds(const RedisReply& r, const std::string& s) {
  if (r.str.find(s) != std::string::npos) return true;
  return std::any_of(r.elements.begin(), r.elements.end(),
                     [&](const RedisReply& e) { return holds(e, s); });
}

}  // namespace

// A leak once found: with --allow-admin, CONFIG GET requirepass answered the backend password. With
// or without it, no reply holds the proxy's credentials: secret CONFIG parameters (globs too) and
// ACL passwords are left out, and an administrative or script reply still holding one is
// withheld. The other parameters stay readable.
TEST(Proxy, NoReplyEverHoldsTheBackendPassword) {
  ManagedRedis node;
  const std::string pw = test::unique_name("backend-pw");
  {
    RedisClient d(node.endpoint());
    ASSERT_EQ(show(d.command({"CONFIG", "SET", "masterauth", pw})), "+OK");
    ASSERT_EQ(show(d.command({"CONFIG", "SET", "requirepass", pw})), "+OK");
  }
  RedisEndpoint authed = node.endpoint();
  authed.password = pw;
  for (bool admin : {false, true}) {
    SCOPED_TRACE(admin ? "--allow-admin" : "admin refused");
    ProxyOptions o;
    o.port = 0;
    o.nodes = {node.endpoint()};
    o.password = pw;
    o.allow_admin = admin;
    o.log_level = LogLevel::Error;
    Proxy proxy(o);
    proxy.start();
    RedisClient c(at(proxy.port()));
    const std::vector<Cmd> asks = {
        {"CONFIG", "GET", "requirepass"},
        {"config", "get", "MasterAuth"},
        {"CONFIG", "GET", "*"},
        {"CONFIG", "GET", "*pass*"},
        {"CONFIG", "GET", "requirepass", "masterauth", "port"},
        {"ACL", "GETUSER", "default"},
        {"ACL", "LIST"},
        {"SLOWLOG", "GET", "128"},
        {"CLIENT", "LIST"},
        {"EVAL", "return redis.call('CONFIG', 'GET', 'requirepass')", "0"},
        {"EVAL", "return ARGV[1]", "0", pw},
        {"EVAL", "return ARGV[1]", "1", "k", pw}};  // forwarded to the key's node
    for (const Cmd& cmd : asks) {
      const RedisReply r = run(c, cmd);
      EXPECT_FALSE(holds(r, pw)) << cmd[0] << " " << cmd[1] << ": " << show(r);
    }
    if (!admin) continue;
    const RedisReply all = c.command({"CONFIG", "GET", "*"});
    ASSERT_EQ(all.type, RedisReply::Type::Array) << show(all);
    std::set<std::string> names;
    for (std::size_t i = 0; i < all.elements.size(); i += 2) names.insert(all.elements[i].str);
    EXPECT_TRUE(names.contains("maxmemory-policy"));
    EXPECT_FALSE(names.contains("requirepass"));
    EXPECT_FALSE(names.contains("masterauth"));
    const RedisReply user = c.command({"ACL", "GETUSER", "default"});
    ASSERT_EQ(user.type, RedisReply::Type::Array) << show(user);
    for (std::size_t i = 0; i + 1 < user.elements.size(); i += 2) {
      if (user.elements[i].str == "passwords") {
        EXPECT_TRUE(user.elements[i + 1].elements.empty());
      }
    }
    const RedisReply list = c.command({"ACL", "LIST"});
    ASSERT_EQ(list.type, RedisReply::Type::Array) << show(list);
    for (const auto& line : list.elements) {
      EXPECT_EQ(line.str.find(" #"), std::string::npos) << line.str;  // no password hash
      EXPECT_NE(line.str.find("user default on"), std::string::npos) << line.str;
    }
  }
  RedisClient d(authed);
  EXPECT_EQ(show(d.command({"CONFIG", "SET", "requirepass", ""})), "+OK");
}

// A frozen backend (SIGSTOP: the kernel still accepts, nothing answers) fails the requests to it
// after the backend timeout, broadcasts too, and the connection is reset; other nodes serve.
TEST(Proxy, FrozenBackendTimesOut) {
  ManagedRedis n0, n1;
  ProxyOptions o;
  o.port = 0;
  o.nodes = {n0.endpoint(), n1.endpoint()};
  o.backend_timeout_ms = 500;
  o.log_level = LogLevel::Error;
  Proxy proxy(o);
  proxy.start();
  std::string k0, k1;
  for (int i = 0; k0.empty() || k1.empty(); ++i) {
    std::string k = "fz" + std::to_string(i);
    (node_for_key(k, 2) == 0 ? k0 : k1) = k;
  }
  RedisClient c(at(proxy.port()), std::chrono::milliseconds(10000));
  RedisClient other(at(proxy.port()), std::chrono::milliseconds(10000));
  EXPECT_EQ(show(c.command({"SET", k1, "v"})), "+OK");
  {
    test::Freeze freeze(n1.pid());
    const auto t0 = std::chrono::steady_clock::now();
    RedisReply r = c.command({"GET", k1});
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(r.type, RedisReply::Type::Error) << show(r);
    EXPECT_EQ(r.str, "ERR node " + n1.endpoint().address() +
                         " unavailable: timed out: no reply within 500 ms (--backend-timeout)");
    // Returns (the figure is printed): far above the 0.5 s timeout for a loaded machine with
    // ASan, far below waiting for ever.
    EXPECT_LT(secs, 15.0);
    std::printf("frozen backend: error reply after %.3f s (timeout 0.5 s)\n", secs);
    RedisReply p = c.command({"PING"});
    EXPECT_EQ(p.type, RedisReply::Type::Error) << show(p);
    EXPECT_EQ(show(other.command({"SET", k0, "fine"})), "+OK");  // the other node serves
  }
  // Thawed: the node answers again on a fresh connection.
  bool back = false;
  for (int i = 0; i < 50 && !back; ++i) {
    back = show(c.command({"GET", k1})) == "\"v\"";
    if (!back) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(back);
  EXPECT_GE(proxy.stats().backend_timeouts, 1u);
  EXPECT_GE(proxy.stats().servers.at(1).server_timedout, 1u);
}

// A node whose reply takes longer than the backend timeout to arrive, but keeps arriving (a
// large value on a slow link), is not frozen: the reply is served. The node is a socket of the
// test's own that answers a GET with 12 bytes, one every 100 ms, against a 300 ms timeout.
TEST(Proxy, ReplyStillArrivingIsNotATimeout) {
  int port = 0;
  const int listener = test::listen_on_loopback(port);
  ASSERT_GE(listener, 0);
  ProxyOptions o;
  o.port = 0;
  o.nodes = {RedisEndpoint{"127.0.0.1", port, {}}};
  o.backend_timeout_ms = 300;
  o.log_level = LogLevel::Error;
  Proxy proxy(o);
  proxy.start();
  std::thread node([&] {
    pollfd pf{listener, POLLIN, 0};
    if (::poll(&pf, 1, 10000) != 1) return;
    const int fd = ::accept(listener, nullptr, nullptr);
    char buf[256];
    const bool asked = ::recv(fd, buf, sizeof buf, 0) > 0;  // the GET
    for (char ch : asked ? std::string("$6\r\ntricky\r\n") : std::string()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (::send(fd, &ch, 1, MSG_NOSIGNAL) != 1) break;
    }
    ::recv(fd, buf, sizeof buf, 0);  // until the proxy closes
    ::close(fd);
  });
  {
    RedisClient c(at(proxy.port()), std::chrono::milliseconds(10000));
    EXPECT_EQ(show(c.command({"GET", "slow"})), "\"tricky\"");
  }
  proxy.stop();
  node.join();
  ::close(listener);
  EXPECT_EQ(proxy.stats().backend_timeouts, 0u);
}

TEST(Proxy, StatsAsJsonAndProxyStats) {
  ProxyOptions o;
  o.port = 0;
  o.stats_port = 0;
  o.nodes = servers().shards;
  o.pool = "alpha";
  o.log_level = LogLevel::Error;
  Proxy proxy(o);
  proxy.start();
  RedisClient c(at(proxy.port()));
  c.command({"MSET", "st1", "a", "st2", "b", "st3", "c"});
  c.command({"GET", "st1"});
  RedisReply info = c.command({"PROXY", "STATS"});
  ASSERT_EQ(info.type, RedisReply::Type::String) << show(info);
  EXPECT_NE(info.str.find("# Pool alpha\r\nclient_eof:0\r\n"), std::string::npos) << info.str;
  EXPECT_NE(info.str.find("# Server " + servers().shards[0].address()), std::string::npos);
  EXPECT_NE(info.str.find("server_timedout:0"), std::string::npos);
  EXPECT_EQ(show(c.command({"PROXY", "NOPE"})).rfind("-ERR unknown subcommand", 0), 0u);
  Raw stats(proxy.stats_port());
  bool eof = false;
  const std::string json = stats.read(1 << 20, &eof);
  EXPECT_TRUE(eof);
  for (const char* field :
       {"\"service\":\"perflab-proxy\"", "\"total_connections\":", "\"curr_connections\":",
        "\"alpha\":{\"client_eof\":", "\"client_connections\":", "\"forward_error\":",
        "\"fragments\":", "\"server_timedout\":", "\"request_bytes\":", "\"response_bytes\":"})
    EXPECT_NE(json.find(field), std::string::npos) << field << " in " << json;
  ProxyStats st = proxy.stats();
  std::uint64_t requests = 0;
  for (const auto& sv : st.servers) requests += sv.requests;
  EXPECT_GE(requests, 2u);
  EXPECT_GE(st.requests, 3u);
}
