// RedisClient against real (managed) redis-server processes: AUTH, errors, timeouts.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "servers.h"
#include "targets/managed_redis.h"
#include "targets/redis.h"
#include "targets/targets.h"

using namespace perflab;

TEST(TargetsRedisAuth, WrongPasswordSaysAuthFailed) {
  ManagedRedis r;
  RedisClient admin(r.endpoint());
  ASSERT_EQ(admin.command({"CONFIG", "SET", "requirepass", "s3cret-pw"}).str, "OK");

  RedisEndpoint wrong = r.endpoint();
  wrong.password = "not-the-password";
  try {
    RedisClient c(wrong);
    FAIL() << "wrong password accepted";
  } catch (const RedisError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("Redis at " + r.endpoint().address()), std::string::npos) << m;
    EXPECT_NE(m.find("auth failed"), std::string::npos) << m;
    EXPECT_EQ(m.find("not-the-password"), std::string::npos) << "password leaked: " << m;
  }

  RedisEndpoint right = r.endpoint();
  right.password = "s3cret-pw";
  RedisClient ok(right);
  EXPECT_EQ(ok.command({"PING"}).str, "PONG");
  // Without a password, commands are refused (the error is a reply, not an exception).
  RedisClient anon(r.endpoint());
  EXPECT_EQ(anon.command({"GET", "perflab:x"}).type, RedisReply::Type::Error);

  EXPECT_EQ(ok.command({"CONFIG", "SET", "requirepass", ""}).str, "OK");
  RedisClient after(r.endpoint());
  EXPECT_EQ(after.command({"PING"}).str, "PONG");
}

TEST(TargetsRedisAuth, PasswordOnServerWithoutOneFails) {
  ManagedRedis r;
  RedisEndpoint ep = r.endpoint();
  ep.password = "anything";
  try {
    RedisClient c(ep);
    FAIL() << "AUTH against a server without a password succeeded";
  } catch (const RedisError& e) {
    EXPECT_NE(std::string(e.what()).find("auth failed"), std::string::npos) << e.what();
  }
}

TEST(TargetsRedisClient, MovedFromClientIsClosed) {
  ManagedRedis r;
  RedisClient a(r.endpoint());
  RedisClient b = std::move(a);
  EXPECT_EQ(b.command({"PING"}).str, "PONG");
  try {
    a.command({"PING"});
    FAIL() << "a moved-from client answered";
  } catch (const RedisError& e) {
    EXPECT_NE(std::string(e.what()).find("not connected"), std::string::npos) << e.what();
  }
  a = std::move(b);  // assigned back: it works again, and b is closed
  EXPECT_EQ(a.command({"PING"}).str, "PONG");
  EXPECT_THROW(b.command({"PING"}), RedisError);
}

TEST(TargetsRedisTimeout, SlowCommandTimesOutWithClearMessage) {
  ManagedRedis r;
  RedisClient c(r.endpoint(), std::chrono::milliseconds(300));
  try {
    c.command({"BLPOP", "perflab:empty-list", "2"});
    FAIL() << "no timeout";
  } catch (const RedisError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("no reply within 300 ms"), std::string::npos) << m;
    EXPECT_NE(m.find(r.endpoint().address()), std::string::npos) << m;
  }
}

TEST(TargetsRedisTargets, ExternalNodesAreDescribedWithVersion) {
  ManagedRedis r;
  TargetsConfig cfg;
  cfg.redis_nodes = {r.endpoint()};
  Targets t(cfg);
  RedisTarget rt = t.redis(1);
  EXPECT_FALSE(rt.managed);
  ASSERT_EQ(rt.nodes.size(), 1u);
  auto d = t.describe();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kind, "redis");
  EXPECT_EQ(d[0].address, r.endpoint().address());
  EXPECT_FALSE(d[0].managed);
  EXPECT_EQ(d[0].version, r.version());
  EXPECT_TRUE(t.managed_redis().empty());
}
