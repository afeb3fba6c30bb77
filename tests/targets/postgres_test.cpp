// PgConnection against a real (managed) PostgreSQL.
#include <gtest/gtest.h>

#include <chrono>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "servers.h"
#include "targets/pg_backends.h"
#include "targets/pg_text.h"
#include "targets/pg_transaction.h"
#include "targets/postgres.h"

using namespace perflab;

namespace {

// A connection with its own schema, dropped afterwards.
class TargetsPg : public ::testing::Test {
 protected:
  void SetUp() override {
    conn_ = std::make_unique<PgConnection>(test::shared_targets().postgres().conninfo);
    schema_ = pg_quote_ident(test::unique_name("targets"));
    conn_->exec("CREATE SCHEMA " + schema_ + "; SET search_path TO " + schema_);
  }
  void TearDown() override {
    if (conn_) conn_->exec("DROP SCHEMA IF EXISTS " + schema_ + " CASCADE");
  }
  std::unique_ptr<PgConnection> conn_;
  std::string schema_;
};

}  // namespace

TEST_F(TargetsPg, ExecAndResults) {
  PgConnection& c = *conn_;
  c.exec("CREATE TABLE t (id int PRIMARY KEY, name text)");
  PgResult ins = c.exec("INSERT INTO t VALUES (1, 'one'), (2, NULL)");
  EXPECT_EQ(ins.affected(), 2);
  PgResult r = c.exec("SELECT id, name FROM t ORDER BY id");
  ASSERT_EQ(r.rows(), 2);
  EXPECT_EQ(r.columns(), 2);
  EXPECT_EQ(r.value(0, 1), "one");
  EXPECT_FALSE(r.is_null(0, 1));
  EXPECT_TRUE(r.is_null(1, 1));
  EXPECT_GT(c.backend_pid(), 0);
  EXPECT_NE(c.describe().find("127.0.0.1:"), std::string::npos);
  EXPECT_NE(c.describe().find("user=perflab"), std::string::npos);
}

TEST_F(TargetsPg, ExecParamsTextAndBinary) {
  PgConnection& c = *conn_;
  c.exec("CREATE TABLE t (id int, body text, raw bytea)");
  PgParams p;
  p.add_text("7");
  p.add_text("it's \"quoted\"");
  const char raw[] = {'\0', '\x01', '\xff'};
  p.add_binary(raw, 3);
  EXPECT_EQ(c.exec_params("INSERT INTO t VALUES ($1, $2, $3)", p).affected(), 1);
  PgParams q;
  q.add_text(nullptr);
  c.exec_params("INSERT INTO t (id) VALUES (coalesce($1::int, 8))", q);
  PgParams sel;
  sel.add_text("7");
  PgResult r = c.exec_params("SELECT body, encode(raw, 'hex') FROM t WHERE id = $1", sel);
  ASSERT_EQ(r.rows(), 1);
  EXPECT_EQ(r.value(0, 0), "it's \"quoted\"");
  EXPECT_EQ(r.value(0, 1), "0001ff");
  EXPECT_EQ(c.exec("SELECT count(*) FROM t WHERE id = 8").value(0, 0), "1");
}

TEST_F(TargetsPg, PrepareAndExecPrepared) {
  PgConnection& c = *conn_;
  c.exec("CREATE TABLE t (id int, v text)");
  c.prepare("ins", "INSERT INTO t VALUES ($1, $2)", 2);
  for (int i = 0; i < 10; ++i) {
    std::string id = std::to_string(i), v = "v" + id;
    PgParams p;
    p.add_text(id.c_str());
    p.add_text(v.c_str());
    EXPECT_EQ(c.exec_prepared("ins", p).affected(), 1);
  }
  EXPECT_EQ(c.exec("SELECT string_agg(v, ',' ORDER BY id) FROM t").value(0, 0),
            "v0,v1,v2,v3,v4,v5,v6,v7,v8,v9");
  EXPECT_THROW(c.exec_prepared("no_such_statement", PgParams{}), PgError);
}

TEST_F(TargetsPg, CopyInRoundTrip) {
  PgConnection& c = *conn_;
  c.exec("CREATE TABLE t (id int, body text)");
  std::string payload;
  for (int i = 0; i < 5000; ++i)
    payload += std::to_string(i) + "\tline\\t" + std::to_string(i) + "\n";
  EXPECT_EQ(c.copy_in("COPY t (id, body) FROM STDIN", payload), 5000);
  EXPECT_EQ(c.exec("SELECT count(*) FROM t").value(0, 0), "5000");
  EXPECT_EQ(c.exec("SELECT body FROM t WHERE id = 42").value(0, 0), "line\t42");
}

TEST_F(TargetsPg, CopyInErrorIsSurfacedAndConnectionStaysUsable) {
  PgConnection& c = *conn_;
  c.exec("CREATE TABLE t (id int)");
  try {
    c.copy_in("COPY t FROM STDIN", "1\nnot-a-number\n");
    FAIL() << "bad COPY data accepted";
  } catch (const PgError& e) {
    EXPECT_EQ(e.sqlstate(), "22P02") << e.what();
    EXPECT_NE(std::string(e.what()).find("not-a-number"), std::string::npos) << e.what();
  }
  EXPECT_EQ(c.exec("SELECT count(*) FROM t").value(0, 0), "0");
  EXPECT_THROW(c.copy_in("SELECT 1", "x\n"), PgError);
  EXPECT_EQ(c.exec("SELECT 3").value(0, 0), "3");
}

TEST_F(TargetsPg, BadSqlCarriesSqlstateAndTarget) {
  PgConnection& c = *conn_;
  try {
    c.exec("SELEKT 1");
    FAIL() << "bad SQL accepted";
  } catch (const PgError& e) {
    EXPECT_EQ(e.sqlstate(), "42601");
    std::string m = e.what();
    EXPECT_NE(m.find("PostgreSQL at host=127.0.0.1"), std::string::npos) << m;
    EXPECT_NE(m.find("syntax error"), std::string::npos) << m;
  }
  try {
    c.exec("SELECT * FROM no_such_table");
    FAIL();
  } catch (const PgError& e) {
    EXPECT_EQ(e.sqlstate(), "42P01");
  }
  EXPECT_EQ(c.exec("SELECT 1").value(0, 0), "1");  // still usable
}

TEST_F(TargetsPg, NoticesAreSilentAndMoveWorks) {
  ::testing::internal::CaptureStderr();
  conn_->exec("DROP TABLE IF EXISTS no_such_table_for_notice");  // raises a NOTICE
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  PgConnection moved = std::move(*conn_);
  EXPECT_EQ(moved.exec("SELECT 5").value(0, 0), "5");
  *conn_ = std::move(moved);
  EXPECT_EQ(conn_->exec("SELECT 6").value(0, 0), "6");
  // What was moved from is closed, and says so.
  EXPECT_NE(moved.describe().find("(closed)"), std::string::npos) << moved.describe();
  EXPECT_FALSE(moved.in_transaction());
  EXPECT_THROW(moved.exec("SELECT 7"), PgError);
  // A result moves the same way: the moved-from one is empty.
  PgResult r = conn_->exec("SELECT 8");
  PgResult taken = std::move(r);
  EXPECT_EQ(taken.value(0, 0), "8");
  EXPECT_EQ(r.rows(), 0);
  EXPECT_TRUE(r.is_null(0, 0));
  r = std::move(taken);
  EXPECT_EQ(r.value(0, 0), "8");
  EXPECT_EQ(taken.rows(), 0);
}

TEST(TargetsPgConnect, UriAndOwnTimeoutAreAccepted) {
  ManagedPostgres* pg =
      (test::shared_targets().postgres(), test::shared_targets().managed_postgres());
  ASSERT_NE(pg, nullptr);
  PgConnection a("postgresql://perflab:" + pg->passwords().user +
                 "@127.0.0.1:" + std::to_string(pg->port()) + "/perflab?connect_timeout=3");
  EXPECT_EQ(a.exec("SELECT current_database()").value(0, 0), "perflab");
  PgConnection b(pg->conninfo() + " connect_timeout=2");
  EXPECT_EQ(b.exec("SHOW port").value(0, 0), std::to_string(pg->port()));
}

TEST_F(TargetsPg, TransactionCommitsOrRollsBack) {
  const std::string t = test::unique_name("perflab_tx");
  conn_->exec("CREATE TABLE " + t + " (v int)");
  {
    PgTransaction tx(*conn_);
    conn_->exec("INSERT INTO " + t + " VALUES (1)");
    tx.commit();
  }
  try {
    PgTransaction tx(*conn_);
    conn_->exec("INSERT INTO " + t + " VALUES (2)");
    conn_->exec("SELECT no_such_column FROM " + t);  // aborts the transaction
    tx.commit();
    FAIL() << "no error";
  } catch (const PgError&) {
  }
  {
    PgTransaction tx(*conn_);  // left without commit: rolled back
    conn_->exec("INSERT INTO " + t + " VALUES (3)");
  }
  // The connection is usable and only the committed row is there.
  EXPECT_EQ(conn_->exec("SELECT string_agg(v::text, ',') FROM " + t).value(0, 0), "1");
  conn_->exec("DROP TABLE " + t);
}

// Closed connections' backends exit a moment later: the wait returns once pg_stat_activity
// lists none of them; a stop ends it early, and an empty list has nothing to wait for.
TEST_F(TargetsPg, AwaitsTheBackendsOfClosedConnections) {
  std::vector<int> pids;
  {
    std::vector<PgConnection> conns;
    for (int i = 0; i < 30; ++i) {
      conns.emplace_back(test::shared_targets().postgres().conninfo);
      pids.push_back(conns.back().backend_pid());
    }
  }
  EXPECT_TRUE(pg_await_backends_exit(*conn_, pids, std::chrono::seconds(60)));
  const std::string listed = "SELECT count(*) FROM pg_stat_activity WHERE pid IN (" + [&] {
    std::string l;
    for (int p : pids) l += (l.empty() ? "" : ",") + std::to_string(p);
    return l;
  }() + ")";
  EXPECT_EQ(conn_->exec(listed).value(0, 0), "0");
  // A live backend (this connection's own) never exits: a stop, or the limit, ends the wait.
  std::stop_source stop;
  stop.request_stop();
  EXPECT_FALSE(pg_await_backends_exit(*conn_, {conn_->backend_pid()}, std::chrono::seconds(60),
                                      stop.get_token()));
  EXPECT_FALSE(
      pg_await_backends_exit(*conn_, {conn_->backend_pid()}, std::chrono::milliseconds(50)));
  EXPECT_TRUE(pg_await_backends_exit(*conn_, {}, std::chrono::milliseconds(0)));
}
