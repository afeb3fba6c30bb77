// Caching on your query (source=query) against a real managed PostgreSQL holding a user's schema
// of its own (tables, rows, a function that writes, a role with only SELECT) and a managed Redis:
// the run measures the query's rows in every tier and encoding, and a query that writes, fails
// or returns nothing is refused before anything is measured, with every row left as it was.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "caching/experiment.h"
#include "finding_charts.h"
#include "finding_rules.h"
#include "runner/experiment.h"
#include "servers.h"
#include "targets/ownership.h"
#include "targets/pg_text.h"
#include "targets/postgres.h"
#include "targets/redis.h"
#include "targets/targets.h"

using namespace perflab;

namespace {

// A shop of the user's: 30 customers, the first 25 with 1 to 5 orders each (the rest none), an
// audit table and a function that writes to it while it reads.
struct Shop {
  std::string schema, role, password = "reader-pw-7";
  std::string q() const { return pg_quote_ident(schema); }
};

// The managed server's superuser, for what its measuring role may not do (CREATE ROLE).
PgConnection setup_connection() {
  return PgConnection(test::shared_targets().managed_postgres()->setup_conninfo() +
                      " dbname=perflab");
}

Shop make_shop(PgConnection& admin) {
  Shop s{test::unique_name("shop"), test::unique_name("shop_reader")};
  const std::string q = s.q();
  admin.exec("CREATE SCHEMA " + q);
  admin.exec("CREATE TABLE " + q + ".customers (id int PRIMARY KEY, name text NOT NULL)");
  admin.exec("CREATE TABLE " + q +
             ".orders (id serial PRIMARY KEY, customer_id int NOT NULL, item text NOT NULL, "
             "amount numeric(10, 2) NOT NULL, note text)");
  admin.exec("CREATE TABLE " + q + ".audit (customer_id int, at timestamptz DEFAULT now())");
  admin.exec("INSERT INTO " + q +
             ".customers SELECT i, 'customer ' || i FROM generate_series(1, 30) AS i");
  admin.exec("INSERT INTO " + q +
             ".orders (customer_id, item, amount, note) SELECT c, 'item ' || c || '-' || k, "
             "c * 1.5 + k, CASE WHEN k % 2 = 0 THEN NULL ELSE 'gift: é ' || k END FROM "
             "generate_series(1, 25) AS c, generate_series(1, 1 + c % 5) AS k");
  admin.exec("CREATE FUNCTION " + q + ".orders_logged(c int) RETURNS SETOF " + q +
             ".orders LANGUAGE plpgsql AS $$ BEGIN INSERT INTO " + q +
             ".audit (customer_id) VALUES (c); RETURN QUERY SELECT * FROM " + q +
             ".orders WHERE customer_id = c; END $$");
  setup_connection().exec("CREATE ROLE " + pg_quote_ident(s.role) + " LOGIN PASSWORD '" +
                          s.password + "'");
  admin.exec("GRANT USAGE ON SCHEMA " + q + " TO " + pg_quote_ident(s.role));
  admin.exec("GRANT SELECT ON ALL TABLES IN SCHEMA " + q + " TO " + pg_quote_ident(s.role));
  return s;
}

void drop_shop(PgConnection& admin, const Shop& s) {
  admin.exec("DROP SCHEMA " + s.q() + " CASCADE");
  setup_connection().exec("DROP ROLE " + pg_quote_ident(s.role));
}

// Every row of every table of the shop, and its sequence: what a dump of its data holds.
std::string dump(PgConnection& c, const Shop& s) {
  std::string out;
  for (const char* t : {"customers", "orders", "audit"}) {
    PgResult r = c.exec("SELECT coalesce(string_agg(x::text, E'\\n' ORDER BY x::text), '') FROM " +
                        s.q() + "." + t + " AS x");
    out += std::string(t) + ":\n" + std::string(r.value(0, 0)) + "\n";
  }
  out += "seq: " +
         std::string(c.exec("SELECT last_value FROM " + s.q() + ".orders_id_seq").value(0, 0));
  return out;
}

// The shared managed servers, PostgreSQL as `conninfo`, Perflab's keys under a prefix of the
// test's own.
TargetsConfig targets_as(const std::string& conninfo) {
  TargetsConfig cfg;
  cfg.pg_conninfo = conninfo;
  cfg.redis_nodes = test::shared_targets().redis(1).nodes;
  cfg.redis_prefix = test::unique_name("perflab_q") + ":";
  return cfg;
}

std::map<std::string, std::string> tiny(const Shop& s, const std::string& query,
                                        const std::string& keys) {
  return {{"source", "query"},  {"query", query},
          {"keys", keys},       {"repetitions", "3"},
          {"warmup", "1"},      {"server_cpu_window_ms", "20"},
          {"query_keys", "30"}, {"seed", s.schema.size() > 0 ? "42" : "1"}};
}

std::size_t keys_under(const TargetsConfig& cfg) {
  RedisClient r(cfg.redis_nodes.at(0));
  std::size_t n = 0;
  std::string cursor = "0";
  do {
    RedisReply rep =
        r.command({"SCAN", cursor, "MATCH", cfg.redis_prefix + "caching:*", "COUNT", "1000"});
    if (rep.type != RedisReply::Type::Array || rep.elements.size() != 2) break;
    cursor = rep.elements[0].str;
    n += rep.elements[1].elements.size();
  } while (cursor != "0");
  return n;
}

class CachingOnYourQuery : public ::testing::Test {
 protected:
  void SetUp() override {
    admin_conninfo_ = test::shared_targets().postgres().conninfo;
    admin_.emplace(admin_conninfo_);
    shop_ = make_shop(*admin_);
    before_ = dump(*admin_, shop_);
  }
  void TearDown() override {
    if (shop_.schema.empty()) return;
    EXPECT_EQ(dump(*admin_, shop_), before_) << "the user's data changed";
    drop_shop(*admin_, shop_);
  }
  std::string reader_conninfo() const {
    return admin_conninfo_ + " user=" + shop_.role + " password=" + shop_.password;
  }
  // Runs the experiment as `conninfo`; the run, and the keys it left under its prefix.
  perflab::Run run_as(const std::string& conninfo, const std::map<std::string, std::string>& p,
                      std::size_t* left = nullptr) {
    const TargetsConfig cfg = targets_as(conninfo);
    perflab::Run run;
    {
      Targets targets(cfg);
      auto exp = make_caching_experiment();
      run = execute(*exp, targets, p, {}, std::stop_token{});
    }
    if (left) *left = keys_under(cfg);
    return run;
  }
  std::string orders_query() const {
    return "SELECT id, item, amount, note FROM " + shop_.q() +
           ".orders WHERE customer_id = $1 ORDER BY id";
  }
  std::string admin_conninfo_;
  std::optional<PgConnection> admin_;
  Shop shop_;
  std::string before_;
};

const Finding* finding(const perflab::Run& run, const std::string& id) {
  for (const auto& f : run.findings)
    if (f.id == id) return &f;
  return nullptr;
}

}  // namespace

TEST_F(CachingOnYourQuery, ARoleWithOnlySelectMeasuresEveryTierWithTheBreakdown) {
  std::size_t left = 1;
  perflab::Run run =
      run_as(reader_conninfo(),
             tiny(shop_, orders_query(), "SELECT id FROM " + shop_.q() + ".customers ORDER BY id;"),
             &left);
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  EXPECT_EQ(left, 0u) << "the copies in Redis were not removed";
  // Every tier and encoding; PostgreSQL runs the query itself (its own form only).
  ASSERT_NE(run.find_point("query_wall", "native", "postgres"), nullptr);
  EXPECT_EQ(run.find_point("query_wall", "json", "postgres"), nullptr);
  for (const std::string tier : {"redis", "local"}) {
    for (const std::string enc : {"native", "json", "protobuf", "protobuf+zlib"}) {
      SCOPED_TRACE(tier + "/" + enc);
      const Point* p = run.find_point("query_wall", enc, tier);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(p->samples.size(), 3u);
      EXPECT_GT(p->extra.at("bytes"), 0);
      for (const char* part : {"fetch", "decode", "check"})
        EXPECT_NE(run.find_point("query_get_parts_us", part, tier + ", " + enc), nullptr) << part;
    }
  }
  // What the query returned: 25 of 30 customers have orders.
  const Finding* keys = finding(run, "query.sample.keys");
  ASSERT_NE(keys, nullptr);
  EXPECT_EQ(keys->value, 25);
  const Finding* without = finding(run, "query.sample.keys_without_rows");
  ASSERT_NE(without, nullptr);
  EXPECT_EQ(without->value, 5);
  ASSERT_NE(finding(run, "query.sample.local_fit"), nullptr);
  EXPECT_GT(finding(run, "query.sample.local_fit")->value, 1000);  // 50 MB of small results
  // The answer: Redis and local memory against the query, each with its interval.
  for (const char* id : {"query.redis_vs_postgres.time.native",
                         "query.redis_vs_postgres.time.protobuf", "query.local_vs_postgres.time",
                         "query.local_vs_redis.time", "query.decode_share.redis.json"}) {
    const Finding* f = finding(run, id);
    ASSERT_NE(f, nullptr) << id;
    EXPECT_TRUE(f->ci.has_value()) << id;
  }
  EXPECT_NE(finding(run, "query.local_vs_postgres.time")->text.find("PostgreSQL (your query)"),
            std::string::npos)
      << finding(run, "query.local_vs_postgres.time")->text;
  for (const auto& f : run.findings)
    EXPECT_TRUE(test::finding_rule_violations(f).empty()) << f.id << ": " << f.text;
  for (const auto& v : test::finding_chart_violations(run)) ADD_FAILURE() << v;
}

TEST_F(CachingOnYourQuery, KeysComeFromAFileOneALine) {
  const std::string path = ::testing::TempDir() + test::unique_name("keys") + ".txt";
  {
    std::ofstream out(path);
    out << "3\n\n7\r\n12\n";
  }
  perflab::Run run = run_as(reader_conninfo(), [&] {
    auto p = tiny(shop_, orders_query(), path);
    p["tiers"] = "postgres,local";
    p["encodings"] = "native,protobuf";
    return p;
  }());
  std::remove(path.c_str());
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  ASSERT_NE(finding(run, "query.sample.keys"), nullptr);
  EXPECT_EQ(finding(run, "query.sample.keys")->value, 3);
  EXPECT_NE(finding(run, "query.sample.keys")->text.find("from the file"), std::string::npos);
}

TEST_F(CachingOnYourQuery, AQueryThatWritesIsRefusedAndChangesNothing) {
  // As the owner, who may write: the read-only transaction is what stops it.
  const std::string q = shop_.q();
  const std::string keys = "SELECT id FROM " + q + ".customers";
  struct Case {
    std::string query, why;
  };
  for (const Case& c : std::vector<Case>{
           {"UPDATE " + q + ".orders SET amount = amount + 1 WHERE customer_id = $1 RETURNING id",
            "writes"},
           {"SELECT * FROM " + q + ".orders_logged($1)", "writes"},
           {"SELECT nextval('" + q + ".orders_id_seq'), $1::int", "writes"},
           {"WITH d AS (DELETE FROM " + q +
                ".orders WHERE customer_id = $1 RETURNING *) SELECT * "
                "FROM d",
            "writes"},
           {"SELECT id FROM " + q + ".orders WHERE customer_id = $1; DELETE FROM " + q + ".orders",
            "one statement"},
           // Turns the session's read-only default off so that its next run could write.
           {"SELECT set_config('default_transaction_read_only', 'off', false), $1::int",
            "read-only default"}}) {
    SCOPED_TRACE(c.query);
    std::size_t left = 1;
    perflab::Run run = run_as(admin_conninfo_, tiny(shop_, c.query, keys), &left);
    EXPECT_EQ(run.status, RunStatus::Failed);
    EXPECT_NE(run.message.find(c.why), std::string::npos) << run.message;
    EXPECT_TRUE(run.series.empty()) << "measured before refusing";
    EXPECT_EQ(left, 0u);
    EXPECT_EQ(dump(*admin_, shop_), before_);
  }
  // A keys' SELECT that writes cannot stand in FROM, and is read-only besides.
  perflab::Run run = run_as(admin_conninfo_, tiny(shop_, orders_query(),
                                                  "WITH d AS (DELETE FROM " + q +
                                                      ".orders RETURNING customer_id) "
                                                      "SELECT customer_id FROM d"));
  EXPECT_EQ(run.status, RunStatus::Failed);
  EXPECT_NE(run.message.find("keys"), std::string::npos) << run.message;
}

TEST_F(CachingOnYourQuery, AQueryThatFailsOrReturnsNothingIsRefused) {
  const std::string q = shop_.q();
  const std::string keys = "SELECT id FROM " + q + ".customers";
  struct Case {
    std::string query, keys, why;
  };
  const std::string missing = ::testing::TempDir() + test::unique_name("no_such_keys");
  const std::string empty = ::testing::TempDir() + test::unique_name("empty_keys");
  { std::ofstream out(empty); }
  for (const Case& c : std::vector<Case>{
           {"SELECT * FROM " + q + ".orders WHERE customer_id = $1 AND false", keys, "nothing"},
           {"SELECT * FROM " + q + ".no_such_table WHERE id = $1", keys, "failed"},
           {"SELECT * FROM " + q + ".orders WHERE customer_id = $1 AND id = $2", keys, "$1"},
           {orders_query(), "SELECT id FROM " + q + ".customers WHERE false", "no key"},
           {orders_query(), missing, "cannot read"},
           {orders_query(), empty, "no key"}}) {
    SCOPED_TRACE(c.query + " / " + c.keys);
    perflab::Run run = run_as(reader_conninfo(), tiny(shop_, c.query, c.keys));
    EXPECT_EQ(run.status, RunStatus::Failed);
    EXPECT_NE(run.message.find(c.why), std::string::npos) << run.message;
    EXPECT_TRUE(run.series.empty());
  }
  std::remove(empty.c_str());
  // Without its query or keys, or with them and the generated records, the parameters are bad:
  // refused before a target is checked.
  auto exp = make_caching_experiment();
  Targets targets(targets_as(reader_conninfo()));
  EXPECT_THROW(preflight(*exp, targets, {{"source", "query"}, {"keys", keys}}, {}), ParamError);
  EXPECT_THROW(preflight(*exp, targets, {{"query", orders_query()}}, {}), ParamError);
}
