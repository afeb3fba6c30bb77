// Managed PostgreSQL and PgBouncer shut out other local users: psql run as another user (runuser,
// as root) is refused over TCP, through the Unix socket and through PgBouncer; the measuring role
// is no superuser; what Perflab records of them carries no password.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "targets/child_process.h"
#include "targets/managed_pgbouncer.h"
#include "targets/managed_postgres.h"
#include "targets/managed_redis.h"
#include "targets/owned_folder.h"
#include "targets/pg_conninfo.h"
#include "targets/postgres.h"
#include "targets/redis.h"
#include "targets/server_binary.h"
#include "targets/targets.h"

using namespace perflab;
namespace fs = std::filesystem;

namespace {

std::string file_text(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Attempt {
  bool connected = false;  // psql exited 0 and printed the user it connected as
  std::string output;      // its stdout and stderr, for the failure messages
};

// psql -c `sql` as `user` (runuser, util-linux), to `conninfo` (no password in it), with
// `password` as PGPASSWORD when given: what any local user can try. `sql` answers with a line
// naming perflab (the user, or the database on PgBouncer's console).
Attempt psql_as(const std::string& user, const std::string& conninfo,
                const std::string& password = {}, const std::string& sql = "SELECT current_user") {
  TempFolder dir("perflab-access-test-");
  const fs::path psql = find_server_binary("psql");
  ChildProcess p(
      find_server_binary("runuser"),
      {.args = {"-u", user, "--", psql.string(), "-X", "-w", "-A", "-t", "-d",
                conninfo + " connect_timeout=5", "-c", sql},
       .output = dir.path() / "out",
       .errors = {},
       // Nothing inherited may log it in: no password, no password file.
       .environment = {"PGPASSWORD=" + password, "PGPASSFILE=/nonexistent/perflab-access-test"}});
  EXPECT_EQ(p.wait_for(std::chrono::seconds(30)), ChildProcess::Outcome::Exited);
  const int status = p.exit_status().value_or(-1);
  Attempt a;
  a.output = file_text(dir.path() / "out");
  a.connected = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
                a.output.find("perflab") != std::string::npos;
  return a;
}

// A local user other than the one the managed servers run as.
std::string another_user() {
  return "nobody";
}

}  // namespace

TEST(ManagedAccess, OtherLocalUsersAreRefusedEverywhere) {
  if (geteuid() != 0) GTEST_SKIP() << "runs psql as another user (runuser): needs root";
  ManagedPostgres pg(
      ManagedPostgresOptions{.max_connections = 30, .durable = false, .shared_buffers = "16MB"});
  ManagedPgBouncer bouncer(pg.conninfo(), {.max_client_conn = 10, .default_pool_size = 1});
  const std::string other = another_user();
  const std::string tcp = redact_conninfo(pg.conninfo());
  const std::string socket = "host=" + pg.data_dir().string() +
                             " port=" + std::to_string(pg.port()) + " dbname=perflab user=perflab";
  const std::string pooled = redact_conninfo(bouncer.conninfo());
  const std::string console =
      "host=127.0.0.1 port=" + std::to_string(bouncer.port()) + " dbname=pgbouncer user=perflab";

  // Without the password: refused over TCP, through PgBouncer and at its console.
  // The console takes only its own commands: SHOW DATABASES lists perflab.
  auto sql = [&](const std::string& target) {
    return target == console ? "SHOW DATABASES" : "SELECT current_user";
  };
  for (const std::string& target : {tcp, pooled, console}) {
    const Attempt a = psql_as(other, target, {}, sql(target));
    EXPECT_FALSE(a.connected) << other << " connected to " << target << ": " << a.output;
    EXPECT_NE(a.output.find("no password supplied"), std::string::npos)
        << target << ": " << a.output;
  }
  // The Unix socket is out of reach, password or not: its folder is the server user's alone.
  for (const std::string& password : {std::string(), pg.passwords().user}) {
    const Attempt a = psql_as(other, socket, password);
    EXPECT_FALSE(a.connected) << other << " connected through " << socket << ": " << a.output;
    EXPECT_NE(a.output.find("Permission denied"), std::string::npos) << a.output;
  }

  // The same attempts with the password do connect: what refused the others was the password.
  const std::string& password = pg.passwords().user;
  for (const std::string& target : {tcp, pooled, console}) {
    const Attempt a = psql_as(other, target, password, sql(target));
    EXPECT_TRUE(a.connected) << target << ": " << a.output;
  }
  const Attempt own = psql_as(unprivileged_credentials().user, socket, password);
  EXPECT_TRUE(own.connected) << "the server's own user through " << socket << ": " << own.output;
}

TEST(ManagedAccess, TheMeasuringRoleIsNoSuperuser) {
  ManagedPostgres pg(
      ManagedPostgresOptions{.max_connections = 30, .durable = false, .shared_buffers = "16MB"});
  PgConnection c(pg.conninfo());
  EXPECT_EQ(c.exec("SELECT current_user").value(0, 0), "perflab");
  EXPECT_EQ(c.exec("SELECT rolsuper::text FROM pg_roles WHERE rolname = current_user").value(0, 0),
            "false");
  // The shell of the issue: COPY FROM PROGRAM needs a superuser (or
  // pg_execute_server_program).
  c.exec("CREATE TEMP TABLE x (l text)");
  try {
    c.exec("COPY x FROM PROGRAM 'id'");
    FAIL() << "the measuring role ran a program on the server";
  } catch (const PgError& e) {
    EXPECT_EQ(e.sqlstate(), "42501") << e.what();
  }
  // What measuring needs: Perflab's database is its own, and the statistics of every session.
  EXPECT_EQ(c.exec("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = "
                   "current_database()")
                .value(0, 0),
            "perflab");
  EXPECT_EQ(c.exec("SELECT pg_has_role('pg_monitor', 'MEMBER')::text").value(0, 0), "true");
  // The superuser is there for setting the server up, behind a password of its own.
  PgConnection setup(pg.setup_conninfo());
  EXPECT_EQ(
      setup.exec("SELECT rolsuper::text FROM pg_roles WHERE rolname = current_user").value(0, 0),
      "true");
  EXPECT_NE(pg.passwords().setup, pg.passwords().user);
  EXPECT_THROW(
      PgConnection(redact_conninfo(pg.setup_conninfo()) + " password=" + pg.passwords().user),
      PgError);
}

TEST(ManagedAccess, PasswordsStayOutOfRecordsLogsAndTheFolder) {
  TargetsConfig cfg;
  cfg.managed_pg = {.max_connections = 30, .durable = false, .shared_buffers = "16MB"};
  cfg.managed_pgbouncer = {.max_client_conn = 10, .default_pool_size = 1};
  Targets t(cfg);
  const PgTarget direct = t.postgres();
  const PgTarget pooled = t.pg_pooler();
  const ManagedPgPasswords pw = t.managed_postgres()->passwords();
  ASSERT_EQ(pw.user.size(), 64u);
  EXPECT_NE(direct.conninfo.find("password=" + pw.user), std::string::npos);
  for (const auto& info : t.describe()) {
    EXPECT_EQ(info.address.find("password"), std::string::npos) << info.kind << info.address;
    EXPECT_EQ(info.address.find(pw.user), std::string::npos) << info.kind;
  }
  EXPECT_EQ(t.describe().front().address, redact_conninfo(direct.conninfo));
  // initdb's password file is gone; the logs never saw either password.
  const fs::path dir = t.managed_postgres()->data_dir();
  EXPECT_FALSE(fs::exists(dir / "initdb.pw"));
  for (const fs::path& log :
       {dir / "initdb.log", dir / "postgres.log", t.managed_pgbouncer()->dir() / "pgbouncer.log"}) {
    const std::string text = file_text(log);
    EXPECT_EQ(text.find(pw.user), std::string::npos) << log;
    EXPECT_EQ(text.find(pw.setup), std::string::npos) << log;
  }
  for (const fs::path& folder : {dir, t.managed_pgbouncer()->dir()})
    EXPECT_EQ(fs::status(folder).permissions() & (fs::perms::group_all | fs::perms::others_all),
              fs::perms::none)
        << folder;
  // A connection's failure names the target without its password.
  try {
    PgConnection c(direct.conninfo + " dbname=no_such_database");
    FAIL() << "connected to a database that does not exist";
  } catch (const PgError& e) {
    EXPECT_EQ(std::string(e.what()).find(pw.user), std::string::npos) << e.what();
  }
  PgConnection c = pooled.connect();
  EXPECT_EQ(c.exec("SELECT current_user").value(0, 0), "perflab");
}

// Managed redis-server has no password (redis-benchmark and twemproxy, its peers, could take one
// only on a command line every user reads): as root it runs as the servers' own user, so that
// whoever reaches it on loopback and breaks out of Lua's sandbox is not root. Its folder is
// private and it still serves.
TEST(ManagedAccess, ManagedRedisRunsAsTheServersUserInAPrivateFolder) {
  if (geteuid() != 0) GTEST_SKIP() << "the servers' user is chosen as root";
  for (const bool cluster : {false, true}) {
    ManagedRedisOptions opts;
    opts.cluster = cluster;
    ManagedRedis r(opts);
    const std::string status = file_text("/proc/" + std::to_string(r.pid()) + "/status");
    const Credentials servers = unprivileged_credentials();
    const std::string uid = std::to_string(servers.uid);
    EXPECT_NE(status.find("\nUid:\t" + uid + "\t" + uid + "\t" + uid), std::string::npos) << status;
    struct stat st {};
    ASSERT_EQ(::stat(r.dir().c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, servers.uid);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    RedisClient c(r.endpoint(), std::chrono::seconds(5));
    EXPECT_EQ(c.command({"PING"}).str, "PONG");
    EXPECT_NE(file_text(r.dir() / "redis.log").find("Ready to accept connections"),
              std::string::npos);
  }
}
