// Managed servers: real postgres and redis-server processes started, used, stopped.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "servers.h"
#include "targets/managed_postgres.h"
#include "targets/managed_redis.h"
#include "targets/postgres.h"
#include "targets/redis.h"
#include "targets/server_binary.h"
#include "targets/targets.h"

using namespace perflab;
namespace fs = std::filesystem;

namespace {

using test::process_exists;

long process_uid(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Uid:", 0) == 0) return std::stol(line.substr(4));
  return -1;
}

bool wait_gone(pid_t pid, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!process_exists(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return !process_exists(pid);
}

RedisReply cmd(RedisClient& c, std::vector<std::string_view> argv) {
  return c.command(argv);
}

}  // namespace

TEST(TargetsManagedPostgres, StartsAnswersAndStopsCleanly) {
  fs::path dir;
  pid_t pid = -1;
  {
    ManagedPostgres pg(ManagedPostgresOptions{.durable = false});
    dir = pg.data_dir();
    pid = pg.pid();
    ASSERT_TRUE(pg.running());
    ASSERT_TRUE(fs::exists(dir));
    EXPECT_FALSE(pg.version().empty());
    EXPECT_NE(pg.conninfo().find("port=" + std::to_string(pg.port())), std::string::npos);

    PgConnection c(pg.conninfo());
    EXPECT_EQ(c.exec("SELECT 1").value(0, 0), "1");
    EXPECT_EQ(c.exec("SELECT current_database()").value(0, 0), "perflab");
    EXPECT_EQ(c.exec("SELECT current_user").value(0, 0), "perflab");
    EXPECT_GE(std::stoi(std::string(c.exec("SHOW max_connections").value(0, 0))), 250);
    EXPECT_EQ(c.exec("SHOW fsync").value(0, 0), "off");
    EXPECT_EQ(c.exec("SHOW listen_addresses").value(0, 0), "127.0.0.1");
    EXPECT_GE(c.server_version(), 100000);
    EXPECT_EQ(c.server_version_string(), pg.version());
    // PostgreSQL refuses to run as root: when the tests run as root, it runs unprivileged.
    if (geteuid() == 0) {
      EXPECT_NE(process_uid(pid), 0);
    }
  }
  EXPECT_FALSE(fs::exists(dir)) << dir;
  EXPECT_FALSE(process_exists(pid));
}

TEST(TargetsManagedPostgres, DurableByDefault) {
  ManagedPostgres pg(ManagedPostgresOptions{.max_connections = 30, .shared_buffers = "16MB"});
  PgConnection c(pg.conninfo());
  EXPECT_EQ(c.exec("SHOW fsync").value(0, 0), "on");
  EXPECT_EQ(c.exec("SHOW max_connections").value(0, 0), "30");
  EXPECT_EQ(c.exec("SHOW shared_buffers").value(0, 0), "16MB");
}

TEST(TargetsManagedPostgres, RejectsBadOptions) {
  EXPECT_THROW(ManagedPostgres(ManagedPostgresOptions{.max_connections = 0}), ServerError);
  EXPECT_THROW(ManagedPostgres(ManagedPostgresOptions{.shared_buffers = "1MB' x"}), ServerError);
}

TEST(TargetsManagedPostgres, StartFailureShowsTheServerLog) {
  try {
    ManagedPostgres pg(ManagedPostgresOptions{.durable = false, .shared_buffers = "12parsecs"});
    FAIL() << "started with an invalid shared_buffers";
  } catch (const ServerError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("during start"), std::string::npos) << m;
    EXPECT_NE(m.find("last lines of"), std::string::npos) << m;
    EXPECT_NE(m.find("shared_buffers"), std::string::npos) << m;  // from postgres' own log
  }
}

TEST(TargetsManagedPostgres, FindsPostgresBinaries) {
  for (const char* name : {"postgres", "initdb", "pg_ctl", "pgbench"}) {
    fs::path p = find_server_binary(name);
    EXPECT_EQ(p.filename(), name);
    EXPECT_TRUE(fs::exists(p)) << p;
  }
  EXPECT_EQ(find_server_binary("initdb").parent_path(),
            find_server_binary("postgres").parent_path());
}

TEST(TargetsManagedRedis, PingSetGet) {
  ManagedRedis r;
  ASSERT_TRUE(r.running());
  EXPECT_FALSE(r.version().empty());
  RedisClient c(r.endpoint());
  RedisReply pong = cmd(c, {"PING"});
  EXPECT_EQ(pong.type, RedisReply::Type::Status);
  EXPECT_EQ(pong.str, "PONG");
  EXPECT_EQ(cmd(c, {"SET", "perflab:k", std::string_view("a\0b", 3)}).str, "OK");
  RedisReply got = cmd(c, {"GET", "perflab:k"});
  EXPECT_EQ(got.type, RedisReply::Type::String);
  EXPECT_EQ(got.str, std::string("a\0b", 3));
  EXPECT_EQ(cmd(c, {"GET", "perflab:missing"}).type, RedisReply::Type::Nil);
  EXPECT_EQ(cmd(c, {"INCRBY", "perflab:n", "41"}).integer, 41);
  EXPECT_EQ(cmd(c, {"NOSUCHCOMMAND"}).type, RedisReply::Type::Error);
  EXPECT_EQ(c.server_version(), r.version());
  // No persistence configured.
  RedisReply save = cmd(c, {"CONFIG", "GET", "save"});
  ASSERT_EQ(save.elements.size(), 2u);
  EXPECT_EQ(save.elements[1].str, "");
}

TEST(TargetsManagedRedis, Pipeline) {
  ManagedRedis r;
  RedisClient c(r.endpoint());
  std::vector<std::vector<std::string_view>> cmds;
  std::vector<std::string> keys;
  for (int i = 0; i < 100; ++i) keys.push_back("perflab:p" + std::to_string(i));
  for (auto& k : keys) cmds.push_back({"SET", k, k});
  for (auto& k : keys) cmds.push_back({"GET", k});
  auto replies = c.pipeline(cmds);
  ASSERT_EQ(replies.size(), 200u);
  EXPECT_EQ(replies[0].str, "OK");
  EXPECT_EQ(replies[150].str, keys[50]);
}

TEST(TargetsManagedRedis, TwoServersOnDifferentPorts) {
  ManagedRedis a, b;
  EXPECT_NE(a.port(), b.port());
  EXPECT_NE(a.pid(), b.pid());
  RedisClient ca(a.endpoint()), cb(b.endpoint());
  cmd(ca, {"SET", "perflab:x", "a"});
  EXPECT_EQ(cmd(cb, {"GET", "perflab:x"}).type, RedisReply::Type::Nil);
  EXPECT_EQ(cmd(ca, {"GET", "perflab:x"}).str, "a");
}

TEST(TargetsManagedRedis, KillNowAndRestart) {
  ManagedRedis r;
  int port = r.port();
  pid_t old = r.pid();
  RedisClient c(r.endpoint());
  cmd(c, {"SET", "perflab:k", "v"});
  r.kill_now();
  EXPECT_FALSE(r.running());
  EXPECT_FALSE(process_exists(old));
  EXPECT_THROW(c.command({"PING"}), RedisError);
  EXPECT_THROW(RedisClient(r.endpoint(), std::chrono::milliseconds(500)), RedisError);
  r.restart();
  EXPECT_TRUE(r.running());
  EXPECT_EQ(r.port(), port);
  EXPECT_NE(r.pid(), old);
  RedisClient c2(r.endpoint());
  EXPECT_EQ(cmd(c2, {"GET", "perflab:k"}).type, RedisReply::Type::Nil);  // nothing persisted
}

TEST(TargetsManagedRedis, StopsAndRemovesFolderOnDestruction) {
  fs::path dir;
  pid_t pid;
  {
    ManagedRedis r;
    dir = r.dir();
    pid = r.pid();
    EXPECT_TRUE(fs::exists(dir / "redis.log"));
  }
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_FALSE(process_exists(pid));
}

namespace {

// Runs the helper, which starts a server and prints "<helper pid> <server pid> <folder>"; kills
// the helper with SIGKILL (no destructors run) and expects the server to die with it.
void expect_server_dies_with_parent(const char* kind) {
  std::string command = std::string("exec ") + PERFLAB_ORPHAN_HELPER + " " + kind;
  FILE* p = popen(command.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char line[4096] = {};
  ASSERT_NE(std::fgets(line, sizeof line, p), nullptr);
  std::istringstream in(line);
  long helper = -1, server = -1;
  std::string dir;
  in >> helper >> server >> dir;
  ASSERT_GT(helper, 0) << line;
  ASSERT_GT(server, 0) << line;
  ASSERT_TRUE(process_exists(static_cast<pid_t>(server)));
  ASSERT_EQ(kill(static_cast<pid_t>(helper), SIGKILL), 0);
  pclose(p);
  EXPECT_TRUE(wait_gone(static_cast<pid_t>(server), std::chrono::seconds(20)))
      << kind << " pid " << server << " outlived its parent";
  std::error_code ec;
  if (!dir.empty()) fs::remove_all(dir, ec);
}

}  // namespace

TEST(TargetsManagedOrphans, RedisDiesWithParent) {
  expect_server_dies_with_parent("redis");
}

TEST(TargetsManagedOrphans, PostgresDiesWithParent) {
  expect_server_dies_with_parent("postgres");
}

TEST(TargetsManagedOrphans, ServersStartedFromShortLivedThreadsSurvive) {
  // The parent-death signal follows the forking thread: servers started from a thread that has
  // ended must still be running.
  std::unique_ptr<ManagedRedis> r;
  std::thread([&] { r = std::make_unique<ManagedRedis>(); }).join();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_TRUE(r->running());
  RedisClient c(r->endpoint());
  EXPECT_EQ(c.command({"PING"}).str, "PONG");
}

TEST(TargetsManagedTargets, SharedTargetsDescribeWhatWasUsed) {
  Targets& t = test::shared_targets();
  PgTarget pg = t.postgres();
  EXPECT_TRUE(pg.managed);
  EXPECT_EQ(pg.schema, "perflab");
  RedisTarget r = t.redis(2);
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_NE(r.nodes[0].port, r.nodes[1].port);
  EXPECT_TRUE(r.managed);
  EXPECT_EQ(r.prefix, "perflab:");
  EXPECT_EQ(t.redis(1).nodes.size(), 1u);
  EXPECT_EQ(t.managed_redis().size(), 2u);
  ASSERT_NE(t.managed_postgres(), nullptr);

  auto d = t.describe();
  int pgs = 0, redises = 0;
  for (const auto& info : d) {
    EXPECT_TRUE(info.managed);
    EXPECT_FALSE(info.version.empty()) << info.kind;
    pgs += info.kind == "postgres";
    redises += info.kind == "redis";
  }
  EXPECT_EQ(pgs, 1);
  EXPECT_EQ(redises, 2);
}

TEST(TargetsManagedTargets, ConcurrentFirstUseStartsOneServer) {
  TargetsConfig cfg;
  cfg.managed_pg = {.max_connections = 20, .durable = false, .shared_buffers = "16MB"};
  Targets t(cfg);
  std::string a, b;
  std::thread ta([&] { a = t.postgres().conninfo; });
  std::thread tb([&] { b = t.postgres().conninfo; });
  ta.join();
  tb.join();
  EXPECT_EQ(a, b);
  EXPECT_EQ(t.describe().size(), 1u);
  PgConnection c(a);
  EXPECT_EQ(c.exec("SELECT 2").value(0, 0), "2");
}
