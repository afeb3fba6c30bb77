// Perflab's schema and key prefix carry its mark; what exists without it is refused and left
// alone. Against the real managed servers (used as external targets where Targets is involved).
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <utility>

#include "servers.h"
#include "targets/ownership.h"
#include "targets/pg_text.h"
#include "targets/postgres.h"
#include "targets/redis.h"
#include "targets/server_start.h"
#include "targets/targets.h"

using namespace perflab;
using Clock = std::chrono::steady_clock;

namespace {

PgConnection shared_pg() {
  return test::shared_targets().postgres().connect();
}

std::string count_rows(PgConnection& c, const std::string& table) {
  return std::string(c.exec("SELECT count(*) FROM " + table).value(0, 0));
}

// Runs f, which must throw TargetError about `field`; returns the message.
template <class F>
std::string refusal(TargetField field, F f) {
  try {
    f();
  } catch (const TargetError& e) {
    EXPECT_EQ(static_cast<int>(e.field()), static_cast<int>(field)) << e.what();
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << "one line: " << m;
    return m;
  }
  ADD_FAILURE() << "not refused";
  return {};
}

// Every key on a Redis node with its DUMP (type, value, encoding) and PTTL, key by key.
std::map<std::string, std::pair<std::string, long long>> node_keys(RedisClient& c) {
  std::map<std::string, std::pair<std::string, long long>> keys;
  std::string cursor = "0";
  do {
    RedisReply r = c.command({"SCAN", cursor, "COUNT", "1000"});
    EXPECT_EQ(r.type, RedisReply::Type::Array) << r.str;
    if (r.type != RedisReply::Type::Array) break;
    cursor = r.elements[0].str;
    for (const auto& k : r.elements[1].elements)
      keys[k.str] = {c.command({"DUMP", k.str}).str, c.command({"PTTL", k.str}).integer};
  } while (cursor != "0");
  return keys;
}

}  // namespace

TEST(OwnedSchema, CreatedWithTheMarkAndResetOnlyWhenMarked) {
  PgConnection c = shared_pg();
  const std::string schema = test::unique_name("owned");
  EXPECT_EQ(pg_schema_state(c, schema), SchemaState::Absent);
  pg_ensure_own_schema(c, schema);
  EXPECT_EQ(pg_schema_state(c, schema), SchemaState::Owned);
  c.exec("CREATE TABLE " + pg_quote_ident(schema) + ".scratch (id int)");
  pg_ensure_own_schema(c, schema);  // ours already: kept as it is
  EXPECT_EQ(count_rows(c, pg_quote_ident(schema) + ".scratch"), "0");
  pg_reset_own_schema(c, schema);  // ours: dropped with its contents and made anew, marked
  EXPECT_EQ(pg_schema_state(c, schema), SchemaState::Owned);
  EXPECT_EQ(c.exec("SELECT to_regclass('" + pg_quote_ident(schema) + ".scratch')").value(0, 0), "");
  c.exec("DROP SCHEMA " + pg_quote_ident(schema) + " CASCADE");
}

// What lives inside Perflab's schema (column defaults, a sequence, a view over its own table)
// depends on the schema too, but goes with it: the reset is not refused for it.
TEST(OwnedSchema, ResetGoesAheadOverItsOwnDefaultsSequencesAndViews) {
  PgConnection c = shared_pg();
  const std::string schema = test::unique_name("owned_inner");
  const std::string s = pg_quote_ident(schema);
  pg_ensure_own_schema(c, schema);
  c.exec("CREATE TABLE " + s +
         ".streams (stream_id bigserial PRIMARY KEY, created_at timestamptz DEFAULT now())");
  c.exec("CREATE VIEW " + s + ".newest AS SELECT max(stream_id) AS id FROM " + s + ".streams");
  pg_reset_own_schema(c, schema);
  EXPECT_EQ(pg_schema_state(c, schema), SchemaState::Owned);
  EXPECT_EQ(c.exec("SELECT to_regclass('" + s + ".streams')").value(0, 0), "");
  // A view of a user's over it, alone (its query is a rule without a schema of its own): still
  // refused.
  const std::string u = pg_quote_ident(test::unique_name("users_view"));
  c.exec("CREATE TABLE " + s + ".streams (stream_id bigserial PRIMARY KEY)");
  c.exec("CREATE SCHEMA " + u);
  c.exec("CREATE VIEW " + u + ".mine AS SELECT stream_id FROM " + s + ".streams");
  const std::string m = refusal(TargetField::PgSchema, [&] { pg_reset_own_schema(c, schema); });
  EXPECT_NE(m.find(".mine"), std::string::npos) << m;
  EXPECT_EQ(m.find("default value"), std::string::npos) << m;
  c.exec("DROP SCHEMA " + u + " CASCADE");
  c.exec("DROP SCHEMA " + s + " CASCADE");
}

TEST(OwnedSchema, ResetIsRefusedWhileAUsersObjectsOutsideItDependOnIt) {
  PgConnection c = shared_pg();
  const std::string schema = test::unique_name("owned_deps");
  const std::string users = test::unique_name("users_own");
  const std::string s = pg_quote_ident(schema), u = pg_quote_ident(users);
  pg_ensure_own_schema(c, schema);
  c.exec("CREATE TABLE " + s + ".events (id int PRIMARY KEY)");
  c.exec("CREATE SCHEMA " + u);
  c.exec("CREATE TABLE " + u + ".audit (event_id int REFERENCES " + s + ".events)");
  c.exec("CREATE VIEW " + u + ".recent AS SELECT id FROM " + s + ".events");
  c.exec("INSERT INTO " + s + ".events VALUES (1); INSERT INTO " + u + ".audit VALUES (1)");
  // DROP SCHEMA ... CASCADE would take the user's view and foreign key with it: refused.
  const std::string m = refusal(TargetField::PgSchema, [&] { pg_reset_own_schema(c, schema); });
  EXPECT_NE(m.find("depend on it"), std::string::npos) << m;
  EXPECT_NE(m.find(users), std::string::npos) << m;
  EXPECT_EQ(count_rows(c, u + ".audit"), "1");
  EXPECT_EQ(count_rows(c, u + ".recent"), "1");
  EXPECT_EQ(count_rows(c, s + ".events"), "1");  // nothing of Perflab's was dropped either
  // Once the user's objects no longer depend on it, the reset goes ahead.
  c.exec("DROP SCHEMA " + u + " CASCADE");
  pg_reset_own_schema(c, schema);
  EXPECT_EQ(c.exec("SELECT to_regclass('" + s + ".events')").value(0, 0), "");
  c.exec("DROP SCHEMA " + s + " CASCADE");
}

TEST(OwnedSchema, AUsersSchemaIsRefusedAndKeepsItsTables) {
  PgConnection c = shared_pg();
  const std::string users = test::make_users_schema(c);
  const std::string q = pg_quote_ident(users);
  EXPECT_EQ(pg_schema_state(c, users), SchemaState::Foreign);
  std::string m = refusal(TargetField::PgSchema, [&] { pg_reset_own_schema(c, users); });
  EXPECT_NE(m.find("schema \"" + users + "\" exists and was not created by Perflab"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("--schema"), std::string::npos) << m;
  refusal(TargetField::PgSchema, [&] { pg_ensure_own_schema(c, users); });
  // The experiments' own schema resets are refused too: tests/iolist and tests/caching.
  EXPECT_EQ(test::users_orders(c, users), "2");
  c.exec("DROP SCHEMA " + q + " CASCADE");

  // An empty schema Perflab did not create is not Perflab's either; nor is public.
  const std::string empty = test::unique_name("empty");
  c.exec("CREATE SCHEMA " + pg_quote_ident(empty));
  refusal(TargetField::PgSchema, [&] { pg_reset_own_schema(c, empty); });
  EXPECT_EQ(pg_schema_state(c, empty), SchemaState::Foreign);
  c.exec("DROP SCHEMA " + pg_quote_ident(empty));
  EXPECT_EQ(pg_schema_state(c, "public"), SchemaState::Foreign);
  refusal(TargetField::PgSchema, [&] { pg_check_own_schema(c, "public"); });
}

TEST(OwnedSchema, CheckRefusesWhatThisUserCannotCreateOrReset) {
  PgConnection admin = shared_pg();
  // Roles are the managed server's superuser's to make (Perflab's own role is none).
  PgConnection setup(test::shared_targets().managed_postgres()->setup_conninfo());
  const std::string role = test::unique_name("visitor");
  setup.exec("CREATE ROLE " + pg_quote_ident(role) + " LOGIN PASSWORD 'visitor-pw'");
  const std::string ours = test::unique_name("owned_by_perflab");
  pg_ensure_own_schema(admin, ours);
  {
    PgConnection visitor(test::shared_targets().postgres().conninfo + " user=" + role +
                         " password=visitor-pw");
    std::string m = refusal(TargetField::PgSchema,
                            [&] { pg_check_own_schema(visitor, test::unique_name("new")); });
    EXPECT_NE(m.find("may not create schemas"), std::string::npos) << m;
    m = refusal(TargetField::PgSchema, [&] { pg_check_own_schema(visitor, ours); });
    EXPECT_NE(m.find("belongs to another role"), std::string::npos) << m;
  }
  pg_check_own_schema(admin, ours);  // its owner may
  admin.exec("DROP SCHEMA " + pg_quote_ident(ours) + " CASCADE");
  setup.exec("DROP ROLE " + pg_quote_ident(role));
}

TEST(OwnedPrefix, ClaimedWhenEmptyRefusedWhenAUsersKeysLiveThere) {
  RedisClient c = test::shared_targets().redis(1).connect(0);
  const std::string prefix = test::unique_name("claim") + ":";
  redis_claim_prefix(c, prefix);
  EXPECT_EQ(c.command({"EXISTS", prefix + std::string(kPrefixMarkKey)}).integer, 1);
  c.command({"SET", prefix + "bench:key:000000000001", "written by Perflab"});
  redis_claim_prefix(c, prefix);  // marked: Perflab's keys under it are fine

  const std::string users = test::unique_name("app") + ":";
  c.command({"SET", users + "session:42", "a user's"});
  std::string m = refusal(TargetField::RedisPrefix, [&] { redis_claim_prefix(c, users); });
  EXPECT_NE(m.find("keys under the prefix '" + users + "' exist"), std::string::npos) << m;
  EXPECT_NE(m.find("--prefix"), std::string::npos) << m;
  EXPECT_EQ(c.command({"EXISTS", users + std::string(kPrefixMarkKey)}).integer, 0);
  EXPECT_EQ(c.command({"GET", users + "session:42"}).str, "a user's");

  // Glob characters in a prefix match only themselves.
  const std::string glob = test::unique_name("g*") + ":";
  c.command({"SET", "gX" + glob.substr(2) + "user", "a user's"});  // matches g* unescaped
  redis_claim_prefix(c, glob);
  EXPECT_EQ(redis_glob_escape("a*b?[c]\\"), "a\\*b\\?\\[c\\]\\\\");
  c.command({"DEL", prefix + std::string(kPrefixMarkKey), prefix + "bench:key:000000000001",
             users + "session:42", "gX" + glob.substr(2) + "user",
             glob + std::string(kPrefixMarkKey)});
}

// A user's key on the fourth node only: the run is refused there, and the three nodes checked
// before it are left exactly as they were (no mark claimed on them), key by key.
TEST(Preflight, ARefusalAtTheLastNodeLeavesEveryNodeAsItWas) {
  const RedisTarget four = test::shared_targets().redis(4);
  TargetsConfig cfg;
  cfg.redis_nodes = four.nodes;
  cfg.redis_prefix = test::unique_name("only4") + ":";
  RedisClient n4 = four.connect(3);
  ASSERT_EQ(n4.command({"SET", cfg.redis_prefix + "k", "a user's", "PX", "600000"}).str, "OK");
  std::vector<RedisClient> nodes;
  std::vector<std::map<std::string, std::pair<std::string, long long>>> before;
  for (std::size_t i = 0; i < 4; ++i) {
    nodes.push_back(four.connect(i));
    before.push_back(node_keys(nodes.back()));
  }
  {
    Targets t(cfg);
    std::string m = refusal(TargetField::RedisPrefix, [&] { t.preflight({false, 4}); });
    EXPECT_NE(m.find(four.nodes[3].address()), std::string::npos) << m;
    EXPECT_TRUE(t.describe().empty());
  }
  for (std::size_t i = 0; i < 4; ++i) {
    const auto after = node_keys(nodes[i]);
    ASSERT_EQ(after.size(), before[i].size()) << "node " << i + 1;
    for (const auto& [key, was] : before[i]) {
      const auto now = after.find(key);
      ASSERT_NE(now, after.end()) << key << " gone from node " << i + 1;
      EXPECT_EQ(now->second.first, was.first) << key << " changed on node " << i + 1;
      // A TTL counts down between the two looks; it is neither removed nor extended.
      EXPECT_LE(now->second.second, was.second) << key;
      EXPECT_EQ(now->second.second < 0, was.second < 0) << key;
    }
  }
  n4.command({"DEL", cfg.redis_prefix + "k"});

  // Checked everywhere first, then claimed everywhere: without the user's key, all four.
  Targets ok(cfg);
  ok.preflight({false, 4});
  EXPECT_EQ(ok.describe().size(), 4u);
  for (auto& c : nodes) {
    EXPECT_EQ(c.command({"EXISTS", cfg.redis_prefix + std::string(kPrefixMarkKey)}).integer, 1);
    c.command({"DEL", cfg.redis_prefix + std::string(kPrefixMarkKey)});
  }
}

TEST(Preflight, ManagedTargetsPassWithoutStartingAnything) {
  Targets t;
  t.preflight({true, 4});
  EXPECT_EQ(t.managed_postgres(), nullptr);
  EXPECT_TRUE(t.managed_redis().empty());
}

TEST(Preflight, UnreachablePostgresFailsWithinTheConnectTimeout) {
  TargetsConfig cfg;
  cfg.pg_conninfo = "host=127.0.0.1 port=" + std::to_string(free_loopback_port()) + " user=x";
  Targets t(cfg);
  const auto t0 = Clock::now();
  std::string m = refusal(TargetField::PgServer, [&] { t.preflight({true, 0}); });
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 30.0);  // returns
  EXPECT_NE(m.find("Connection refused"), std::string::npos) << m;
  t.preflight({false, 0});  // not needed: not checked
}

TEST(Preflight, SchemaAndPrefixOfSomeoneElseAreRefused) {
  PgConnection c = shared_pg();
  const std::string users = test::unique_name("users");
  c.exec("CREATE SCHEMA " + pg_quote_ident(users));
  TargetsConfig cfg;
  cfg.pg_conninfo = test::shared_targets().postgres().conninfo;
  cfg.pg_schema = users;
  cfg.redis_nodes = test::shared_targets().redis(1).nodes;
  cfg.redis_prefix = test::unique_name("app") + ":";
  RedisClient r = test::shared_targets().redis(1).connect(0);
  r.command({"SET", cfg.redis_prefix + "x", "a user's"});
  {
    Targets t(cfg);
    refusal(TargetField::PgSchema, [&] { t.preflight({true, 0}); });
    refusal(TargetField::RedisPrefix, [&] { t.preflight({false, 1}); });
    EXPECT_TRUE(t.describe().empty());  // nothing recorded, nothing used
  }
  cfg.pg_schema = test::unique_name("fresh");
  r.command({"DEL", cfg.redis_prefix + "x"});
  Targets ok(cfg);
  ok.preflight({true, 1});
  EXPECT_EQ(ok.describe().size(), 2u);
  EXPECT_EQ(pg_schema_state(c, cfg.pg_schema), SchemaState::Absent);  // checked, not created
  c.exec("DROP SCHEMA " + pg_quote_ident(users));
  r.command({"DEL", cfg.redis_prefix + std::string(kPrefixMarkKey)});
}
