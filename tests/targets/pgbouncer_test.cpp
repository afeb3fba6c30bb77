// The managed PgBouncer: a real pgbouncer in transaction mode in front of a managed PostgreSQL,
// started as the server's user, serving many clients on few backends, gone with its folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "targets/managed_pgbouncer.h"
#include "targets/managed_postgres.h"
#include "targets/pg_transaction.h"
#include "targets/postgres.h"
#include "targets/targets.h"

using namespace perflab;
namespace fs = std::filesystem;

namespace {

bool process_running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const std::size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

int backends(PgConnection& admin) {
  return std::stoi(std::string(
      admin
          .exec("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
                "AND pid <> pg_backend_pid()")
          .value(0, 0)));
}

std::string file_text(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST(ManagedPgBouncer, PoolsManyClientsOnFewBackendsAndIsGoneAfterStop) {
  ManagedPostgres pg(ManagedPostgresOptions{.durable = false, .shared_buffers = "16MB"});
  fs::path dir;
  pid_t pid = -1;
  {
    ManagedPgBouncer bouncer(pg.conninfo(), {.max_client_conn = 200, .default_pool_size = 4});
    dir = bouncer.dir();
    pid = bouncer.pid();
    ASSERT_TRUE(bouncer.running());
    EXPECT_NE(bouncer.version().find("PgBouncer"), std::string::npos) << bouncer.version();
    const std::string ini = file_text(dir / "pgbouncer.ini");
    EXPECT_NE(ini.find("pool_mode = transaction"), std::string::npos) << ini;
    EXPECT_NE(ini.find("listen_addr = 127.0.0.1"), std::string::npos) << ini;
    if (geteuid() == 0) {  // pgbouncer refuses to run as root: it runs as the server's user
      std::ifstream status("/proc/" + std::to_string(pid) + "/status");
      std::string line;
      while (std::getline(status, line) && line.rfind("Uid:", 0) != 0) {
      }
      EXPECT_NE(line.find_first_not_of("Uid:\t 0"), std::string::npos) << line;
    }

    // 50 clients, each in a transaction at once: 4 server connections serve them all.
    std::vector<PgConnection> clients;
    for (int i = 0; i < 50; ++i) clients.emplace_back(bouncer.conninfo(), PgLimits{});
    clients[0].exec("CREATE TABLE t (client int, n int)");
    std::vector<std::thread> threads;
    for (int i = 0; i < 50; ++i)
      threads.emplace_back([&, i] {
        for (int n = 0; n < 5; ++n) {
          PgTransaction tx(clients[std::size_t(i)]);
          clients[std::size_t(i)].exec("INSERT INTO t VALUES (" + std::to_string(i) + ", " +
                                       std::to_string(n) + ")");
          tx.commit();
        }
      });
    for (auto& t : threads) t.join();
    PgConnection admin(pg.conninfo());
    EXPECT_EQ(admin.exec("SELECT count(*), count(DISTINCT client) FROM t").value(0, 0), "250");
    EXPECT_EQ(admin.exec("SELECT count(DISTINCT client) FROM t").value(0, 0), "50");
    // 50 clients, at most 4 backends (the pool) besides this one.
    EXPECT_LE(backends(admin), 4);
    EXPECT_GE(backends(admin), 1);
  }
  EXPECT_FALSE(process_running(pid));
  EXPECT_FALSE(fs::exists(dir)) << dir;
}

TEST(ManagedPgBouncer, ConcurrentTransactionsTakeBackendsOfThePool) {
  ManagedPostgres pg(ManagedPostgresOptions{.durable = false, .shared_buffers = "16MB"});
  ManagedPgBouncer bouncer(pg.conninfo(), {.max_client_conn = 20, .default_pool_size = 2});
  // Two clients in a transaction at once: each holds a backend of the pool until it ends.
  PgConnection a(bouncer.conninfo(), PgLimits{});
  PgConnection b(bouncer.conninfo(), PgLimits{});
  std::set<std::string> seen;
  for (int i = 0; i < 20; ++i) {
    PgTransaction ta(a);
    PgTransaction tb(b);
    seen.insert(std::string(a.exec("SELECT pg_backend_pid()").value(0, 0)));
    seen.insert(std::string(b.exec("SELECT pg_backend_pid()").value(0, 0)));
  }
  EXPECT_EQ(seen.size(), 2u) << "two transactions at once take two backends";
}

TEST(ManagedPgBouncer, TargetsStartItInFrontOfTheManagedServerAndRecordIt) {
  TargetsConfig cfg;
  cfg.managed_pg = {.max_connections = 40, .durable = false, .shared_buffers = "16MB"};
  cfg.managed_pgbouncer = {.max_client_conn = 50, .default_pool_size = 2};
  fs::path dir;
  {
    Targets t(cfg);
    t.start_managed({.postgres = true, .pg_pooler = true});
    ASSERT_NE(t.managed_pgbouncer(), nullptr);
    dir = t.managed_pgbouncer()->dir();
    const PgTarget pooled = t.pg_pooler();
    EXPECT_EQ(pooled.schema, "perflab");
    EXPECT_TRUE(pooled.managed);
    PgConnection c = pooled.connect();
    EXPECT_EQ(c.port(), t.managed_pgbouncer()->port());
    EXPECT_EQ(c.exec("SELECT 1").value(0, 0), "1");
    bool recorded = false;
    for (const auto& info : t.describe())
      if (info.kind == "pgbouncer") recorded = info.managed && !info.version.empty();
    EXPECT_TRUE(recorded);
  }
  EXPECT_FALSE(fs::exists(dir)) << dir;
}

TEST(ManagedPgBouncer, ARunsPoolSizeGetsAPgBouncerOfThatSize) {
  TargetsConfig cfg;
  cfg.managed_pg = {.max_connections = 40, .durable = false, .shared_buffers = "16MB"};
  cfg.managed_pgbouncer = {.max_client_conn = 50, .default_pool_size = 2};
  Targets t(cfg);
  t.start_managed({.postgres = true, .pg_pooler = true, .pg_pool_size = 3});
  ASSERT_TRUE(t.managed_pgbouncer_state());
  EXPECT_EQ(t.managed_pgbouncer_state()->pool_size, 3);
  EXPECT_TRUE(t.managed_pgbouncer_state()->running);
  const fs::path first = t.managed_pgbouncer()->dir();
  EXPECT_NE(file_text(first / "pgbouncer.ini").find("default_pool_size = 3"), std::string::npos);
  // The same size again: the same PgBouncer.
  const int port = t.managed_pgbouncer()->port();
  t.pg_pooler({}, 3);
  EXPECT_EQ(t.managed_pgbouncer()->port(), port);
  // Another size: a PgBouncer of its own, the old one gone with its folder; one recorded.
  const PgTarget pooled = t.pg_pooler({}, 5);
  EXPECT_EQ(t.managed_pgbouncer_state()->pool_size, 5);
  EXPECT_FALSE(fs::exists(first)) << first;
  PgConnection c = pooled.connect();
  EXPECT_EQ(c.port(), t.managed_pgbouncer()->port());
  EXPECT_EQ(c.exec("SELECT 1").value(0, 0), "1");
  int recorded = 0;
  for (const auto& info : t.describe()) recorded += info.kind == "pgbouncer";
  EXPECT_EQ(recorded, 1);
  // No size: the configured one.
  t.pg_pooler();
  EXPECT_EQ(t.managed_pgbouncer_state()->pool_size, 2);
}

TEST(ManagedPgBouncer, KeepsAnExternalServersPasswordOutOfItsConfigurationAndLog) {
  ManagedPostgres pg(ManagedPostgresOptions{.durable = false, .shared_buffers = "16MB"});
  PgConnection admin(pg.setup_conninfo());
  admin.exec("CREATE ROLE app LOGIN PASSWORD 'pooler-secret-42'");
  // PgBouncer asks its clients for it and logs in to the server with it, but it must go nowhere
  // but the auth file (mode 0600).
  ManagedPgBouncer bouncer("host=127.0.0.1 port=" + std::to_string(pg.port()) +
                               " dbname=perflab user=app password=pooler-secret-42",
                           {.max_client_conn = 10, .default_pool_size = 1});
  PgConnection c(bouncer.conninfo(), PgLimits{});
  EXPECT_EQ(c.exec("SELECT current_user").value(0, 0), "app");
  EXPECT_EQ(file_text(bouncer.dir() / "pgbouncer.ini").find("pooler-secret-42"), std::string::npos);
  EXPECT_EQ(file_text(bouncer.dir() / "pgbouncer.log").find("pooler-secret-42"), std::string::npos);
  EXPECT_NE(file_text(bouncer.dir() / "users.txt").find("pooler-secret-42"), std::string::npos);
  EXPECT_EQ(fs::status(bouncer.dir() / "users.txt").permissions() & fs::perms::others_all,
            fs::perms::none);
}
