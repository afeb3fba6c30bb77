// A node still running a script that the backend timeout gave up on (twemproxy's
// test_slow_req_lua, then test_fast_req_lua): the requests after it are held until the node
// answers, never handed its BUSY, and never sent if they fail.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "proxy/proxy.h"
#include "proxy_test_support.h"
#include "targets/managed_redis.h"
#include "targets/redis.h"

using namespace perflab;
using namespace perflab::proxy;
using namespace perflab::proxy::support;

namespace {

// A Lua busy loop of ARGV[1] microseconds by the node's own clock (TIME inside a script is the
// real time), so that it lasts as long on a loaded machine as on an idle one.
constexpr const char* kBusyLoop =
    "local s = redis.call('TIME') local a = s[1] * 1000000 + s[2] "
    "repeat local t = redis.call('TIME') until (t[1] * 1000000 + t[2]) - a >= tonumber(ARGV[1]) "
    "return 'done'";

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::unique_ptr<Proxy> proxy_with_timeout(const ManagedRedis& node, int timeout_ms) {
  ProxyOptions o;
  o.port = 0;
  o.nodes = {node.endpoint()};
  o.backend_timeout_ms = timeout_ms;
  o.log_level = LogLevel::Error;
  auto p = std::make_unique<Proxy>(o);
  p->start();
  return p;
}

}  // namespace

// A 1.5 s script times out at 400 ms. Redis answers BUSY to everything else once a script has
// run for busy-reply-threshold (5 s by default; 100 ms here, so that a 1.5 s script shows it).
// The requests sent right after, by the same client and by another one, get their own replies
// once the script has ended: no BUSY, no second timeout.
TEST(ProxyRecovery, TimedOutScriptHandsNoBusyToTheNextRequests) {
  ManagedRedis node;
  {
    RedisClient direct(node.endpoint());
    ASSERT_EQ(show(direct.command({"CONFIG", "SET", "busy-reply-threshold", "100"})), "+OK");
  }
  auto proxy = proxy_with_timeout(node, 400);
  RedisClient a(at(proxy->port()), std::chrono::seconds(30));
  RedisClient b(at(proxy->port()), std::chrono::seconds(30));
  ASSERT_EQ(show(b.command({"SET", "other", "before"})), "+OK");

  const auto t0 = std::chrono::steady_clock::now();
  const RedisReply slow = a.command({"EVAL", kBusyLoop, "1", "tmp", "1500000"});
  ASSERT_EQ(slow.type, RedisReply::Type::Error) << show(slow);
  ASSERT_NE(slow.str.find("timed out: no reply within 400 ms"), std::string::npos) << slow.str;

  std::string other;  // another client's request while the script still runs
  std::thread during([&] { other = show(b.command({"GET", "other"})); });
  EXPECT_EQ(show(a.command({"SET", "k", "v"})), "+OK");
  const double answered = seconds_since(t0);
  EXPECT_EQ(show(a.command({"GET", "k"})), "\"v\"");
  EXPECT_EQ(show(a.command({"PING"})), "+PONG");
  during.join();
  EXPECT_EQ(other, "\"before\"");
  // Held while the script ran (the node's 1.5 s), answered when it ended: far below the
  // clients' own 30 s, whatever the machine's load.
  EXPECT_GE(answered, 1.45);
  EXPECT_LT(answered, 20.0);
  std::printf("request after a timed-out 1.5 s script: answered after %.3f s\n", answered);
  const ProxyStats st = proxy->stats();
  EXPECT_EQ(st.backend_timeouts, 1u);  // only the script
  EXPECT_EQ(st.forward_error, 1u);
}

// With Redis's default busy-reply-threshold a 2.5 s script leaves the node silent, as a frozen
// one is: a request held after the timeout fails after the backend timeout too — with the
// timeout's words, not BUSY — and was never sent, so it never runs once the script ends. Then
// the node serves again.
TEST(ProxyRecovery, HeldRequestThatTimesOutWasNeverSent) {
  ManagedRedis node;
  auto proxy = proxy_with_timeout(node, 400);
  RedisClient a(at(proxy->port()), std::chrono::seconds(30));
  const RedisReply slow = a.command({"EVAL", kBusyLoop, "1", "tmp", "2500000"});
  ASSERT_EQ(slow.type, RedisReply::Type::Error) << show(slow);
  const RedisReply held = a.command({"SET", "held", "v"});
  ASSERT_EQ(held.type, RedisReply::Type::Error) << show(held);
  EXPECT_NE(held.str.find("timed out: no reply within 400 ms"), std::string::npos) << held.str;
  {
    // Directly: Redis serves this once the script has ended.
    RedisClient direct(node.endpoint(), std::chrono::seconds(30));
    EXPECT_EQ(show(direct.command({"GET", "held"})), "nil");
  }
  EXPECT_EQ(show(a.command({"GET", "held"})), "nil");
  EXPECT_EQ(show(a.command({"SET", "held", "now"})), "+OK");
  EXPECT_EQ(show(a.command({"GET", "held"})), "\"now\"");
  EXPECT_EQ(proxy->stats().backend_timeouts, 2u);
}

// A node that keeps answering BUSY holds requests for ten backend timeouts at most: a 6 s script
// past a 300 ms timeout fails the request held behind it after 3 s, with the proxy's words,
// and the request, never sent, does not run once the script ends.
TEST(ProxyRecovery, NodeBusyForTenTimeoutsFailsHeldRequests) {
  ManagedRedis node;
  RedisClient direct(node.endpoint(), std::chrono::seconds(30));
  ASSERT_EQ(show(direct.command({"CONFIG", "SET", "busy-reply-threshold", "100"})), "+OK");
  auto proxy = proxy_with_timeout(node, 300);
  RedisClient a(at(proxy->port()), std::chrono::seconds(30));
  const auto t0 = std::chrono::steady_clock::now();
  const RedisReply slow = a.command({"EVAL", kBusyLoop, "1", "tmp", "6000000"});
  ASSERT_NE(slow.str.find("timed out: no reply within 300 ms"), std::string::npos) << show(slow);
  const RedisReply held = a.command({"SET", "held", "v"});
  const double failed = seconds_since(t0);
  EXPECT_NE(held.str.find("busy: it has answered BUSY for the "), std::string::npos) << show(held);
  EXPECT_NE(held.str.find("(at most 10 x --backend-timeout;"), std::string::npos) << show(held);
  EXPECT_GE(failed, 3.0);
  std::printf("request held behind a 6 s script, 300 ms timeout: failed after %.3f s\n", failed);
  std::string pong;  // the node says BUSY until the script ends
  for (int i = 0; i < 300 && pong != "+PONG"; ++i) {
    pong = show(direct.command({"PING"}));
    if (pong != "+PONG") std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(pong, "+PONG");
  EXPECT_EQ(show(direct.command({"GET", "held"})), "nil");
  EXPECT_EQ(show(a.command({"SET", "held", "now"})), "+OK");
  EXPECT_EQ(show(a.command({"GET", "held"})), "\"now\"");
}
