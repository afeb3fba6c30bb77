// Managed hot standbys and external standbys: real PostgreSQL primaries and standbys started,
// streamed from, checked, refused and stopped.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "targets/managed_postgres.h"
#include "targets/managed_postgres_standby.h"
#include "targets/ownership.h"
#include "targets/postgres.h"
#include "targets/replication.h"
#include "targets/targets.h"

using namespace perflab;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

ManagedPostgresOptions fast() {
  ManagedPostgresOptions o;
  o.durable = false;
  o.max_connections = 50;
  return o;
}

bool process_gone(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    const char state = line[line.rfind(')') + 2];
    if (state == 'Z' || state == 'X') return true;
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

std::string count_rows(PgConnection& c, const std::string& sql) {
  return std::string(c.exec(sql).value(0, 0));
}

// What the server's configuration and Perflab's schema are: settings changed by ALTER SYSTEM
// land in postgresql.auto.conf, which pg_file_settings reads.
std::string server_state(PgConnection& c) {
  return count_rows(c,
                    "SELECT (SELECT count(*) FROM pg_file_settings)::text || '/' || "
                    "(SELECT count(*) FROM pg_namespace)::text || '/' || "
                    "current_setting('synchronous_standby_names')");
}

}  // namespace

TEST(ManagedStandby, StreamsThePrimarysWritesAndAnswersReads) {
  ManagedPostgres primary(fast());
  fs::path dir;
  pid_t pid = -1;
  {
    ManagedPostgresStandby standby(primary, fast());
    dir = standby.data_dir();
    pid = standby.pid();
    EXPECT_TRUE(standby.running());
    EXPECT_NE(standby.port(), primary.port());
    PgConnection p(primary.conninfo(), 5);
    PgConnection s(standby.conninfo(), 5);
    EXPECT_TRUE(pg_in_recovery(s));
    EXPECT_FALSE(pg_in_recovery(p));
    const auto receiver = pg_wal_receiver(s);
    ASSERT_TRUE(receiver);
    EXPECT_EQ(receiver->status, "streaming");
    EXPECT_EQ(pg_system_identifier(s), pg_system_identifier(p));
    EXPECT_EQ(pg_standby_refusal(s, p), "");
    // Written on the primary after the base backup: replayed, and read back on the standby.
    p.exec("CREATE TABLE t (v int); INSERT INTO t SELECT generate_series(1, 1000)");
    pg_wait_replayed(p, s, 30s);
    EXPECT_EQ(count_rows(s, "SELECT count(*) FROM t"), "1000");
    // A hot standby answers reads and refuses writes.
    EXPECT_THROW(s.exec("INSERT INTO t VALUES (1)"), PgError);
  }
  EXPECT_TRUE(process_gone(pid, 10s));
  EXPECT_FALSE(fs::exists(dir));
  // The primary carries on without it.
  PgConnection p(primary.conninfo(), 5);
  EXPECT_EQ(count_rows(p, "SELECT count(*) FROM t"), "1000");
}

TEST(ManagedStandby, ReplayWaitIsBoundedWhenTheStandbyIsPaused) {
  ManagedPostgres primary(fast());
  ManagedPostgresStandby standby(primary, fast());
  PgConnection p(primary.conninfo(), 5);
  PgConnection s(standby.conninfo(), 5);
  const auto receiver = pg_wal_receiver(s);
  ASSERT_TRUE(receiver);
  ASSERT_EQ(kill(receiver->pid, SIGSTOP), 0);
  p.exec("CREATE TABLE paused (v int); INSERT INTO paused VALUES (1)");
  EXPECT_THROW(pg_wait_replayed(p, s, 500ms), PgError);
  ASSERT_EQ(kill(receiver->pid, SIGCONT), 0);
  pg_wait_replayed(p, s, 60s);
  EXPECT_EQ(count_rows(s, "SELECT count(*) FROM paused"), "1");
}

TEST(TargetsStandbys, ManagedStandbysAreStartedAsNeededAndDescribed) {
  TargetsConfig cfg;
  cfg.managed_pg = fast();
  fs::path dir;
  {
    Targets t(cfg);
    const auto two = t.postgres_standbys(2);
    ASSERT_EQ(two.size(), 2u);
    EXPECT_TRUE(two[0].managed);
    EXPECT_NE(two[0].conninfo, two[1].conninfo);
    EXPECT_EQ(t.postgres_standbys(1).size(), 1u);  // no third started
    ASSERT_EQ(t.managed_standbys().size(), 2u);
    dir = t.managed_standbys()[1]->data_dir();
    int standbys = 0;
    for (const auto& info : t.describe()) {
      standbys += info.kind == "postgres-standby";
      EXPECT_EQ(info.address.find("password"), std::string::npos) << info.address;
    }
    EXPECT_EQ(standbys, 2);
    PgConnection c = two[1].connect();
    EXPECT_TRUE(pg_in_recovery(c));
  }
  EXPECT_FALSE(fs::exists(dir));
}

TEST(TargetsStandbys, ExternalStandbyIsCheckedAndAPrimaryNamedAsOneIsRefused) {
  ManagedPostgres a(fast());
  ManagedPostgres b(fast());
  ManagedPostgresStandby of_a(a, fast());
  // Its superuser reads the configuration (pg_file_settings), in Perflab's database.
  PgConnection pa(a.setup_conninfo() + " dbname=perflab", 5);
  const std::string before = server_state(pa);
  {
    TargetsConfig cfg;
    cfg.pg_conninfo = a.conninfo();
    cfg.pg_standby_conninfos = {of_a.conninfo()};
    Targets t(cfg);
    const auto standbys = t.postgres_standbys(1);
    ASSERT_EQ(standbys.size(), 1u);
    EXPECT_FALSE(standbys[0].managed);
    EXPECT_TRUE(t.managed_standbys().empty());
  }
  {  // the primary itself named as its standby
    TargetsConfig cfg;
    cfg.pg_conninfo = a.conninfo();
    cfg.pg_standby_conninfos = {a.conninfo()};
    Targets t(cfg);
    try {
      t.postgres_standbys(1);
      ADD_FAILURE() << "a primary was accepted as a standby";
    } catch (const TargetError& e) {
      EXPECT_NE(std::string(e.what()).find("is not a standby"), std::string::npos) << e.what();
    }
    EXPECT_THROW(t.preflight({.postgres = true, .pg_standbys = 1}), TargetError);
  }
  {  // a standby of another cluster
    TargetsConfig cfg;
    cfg.pg_conninfo = b.conninfo();
    cfg.pg_standby_conninfos = {of_a.conninfo()};
    Targets t(cfg);
    try {
      t.postgres_standbys(1);
      ADD_FAILURE() << "a standby of another cluster was accepted";
    } catch (const TargetError& e) {
      EXPECT_NE(std::string(e.what()).find("another cluster"), std::string::npos) << e.what();
    }
  }
  {  // more standbys than configured: refused, none made
    TargetsConfig cfg;
    cfg.pg_conninfo = a.conninfo();
    cfg.pg_standby_conninfos = {of_a.conninfo()};
    Targets t(cfg);
    EXPECT_THROW(t.postgres_standbys(2), TargetError);
    EXPECT_TRUE(t.managed_standbys().empty());
  }
  // The checks and refusals changed nothing on the primary: no setting, no schema.
  EXPECT_EQ(server_state(pa), before);
}
