// Integration tests of the caching tiers and experiment against real managed PostgreSQL and
// Redis servers (started by the project's own code, see tests/support/servers.h).
#include <gtest/gtest.h>

#include <set>
#include <stop_token>

#include "caching/codec.h"
#include "caching/experiment.h"
#include "caching/records.h"
#include "caching/tiers.h"
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
using namespace perflab::caching;

namespace {

const std::vector<Encoding> kEncodings = {Encoding::Native, Encoding::Json, Encoding::Protobuf,
                                          Encoding::ProtobufZlib};

std::int64_t count_caching_tables(PgConnection& c, const std::string& schema) {
  PgParams p;
  p.add_text(schema.c_str());
  PgResult r = c.exec_params(
      "SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename LIKE 'caching%'", p);
  return std::stoll(std::string(r.value(0, 0)));
}

std::vector<std::string> keys_matching(RedisClient& c, const std::string& pattern) {
  std::vector<std::string> out;
  std::string cursor = "0";
  do {
    RedisReply r = c.command({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
    if (r.type != RedisReply::Type::Array || r.elements.size() != 2) break;
    cursor = r.elements[0].str;
    for (const auto& k : r.elements[1].elements) out.push_back(k.str);
  } while (cursor != "0");
  return out;
}

std::map<std::string, std::string> tiny_params() {
  return {{"repetitions", "3"},           {"warmup", "1"},
          {"server_cpu_window_ms", "20"}, {"list_size", "50"},
          {"document_kb", "4"},           {"aside_keys", "20"},
          {"aside_reads", "40"},          {"aside_budgets_mb", "0,1"}};
}

}  // namespace

TEST(CachingPostgresTier, ReturnsExactlyWhatWasStoredForEveryEncoding) {
  PgTarget pg = test::shared_targets().postgres();
  pg.schema = test::unique_name("perflab_caching");  // a schema of this test's own
  PgConnection admin(pg.conninfo);
  PostgresTier::create_tables(admin, pg.schema);
  EXPECT_EQ(count_caching_tables(admin, pg.schema), 4);
  const Document d = generate_document(5, 0, 60 * 1024);
  CommentList l = generate_comments(5, 2, 1000);
  // Characters that COPY's text format must escape, and non-ASCII text.
  l.comments[0].body = "back\\slash\ttab\nnewline\rreturn \\N \xc3\xa9t\xc3\xa9";
  l.comments[1].author = "\\x00";
  for (Encoding e : kEncodings) {
    SCOPED_TRACE(to_string(e));
    PostgresTier t(pg, Codec{e, 6});
    EXPECT_EQ(t.get_document(d.key), nullptr);
    EXPECT_EQ(t.get_list(2), nullptr);
    t.put_document(d);
    t.put_list(generate_comments(9, 2, 10));  // replaced by the next put
    t.put_list(l);
    auto got_d = t.get_document(d.key);
    auto got_l = t.get_list(2);
    ASSERT_TRUE(got_d);
    ASSERT_TRUE(got_l);
    EXPECT_EQ(*got_d, d);
    EXPECT_EQ(*got_l, l);
    EXPECT_GT(t.document_bytes(d.key), 1000u);
    EXPECT_GT(t.list_bytes(2), 1000u * 50);
    EXPECT_EQ(t.document_bytes("missing"), 0u);
    ASSERT_TRUE(pg.managed);
    auto cpu0 = t.server_cpu_ns();
    ASSERT_TRUE(cpu0.has_value());  // a managed server's backend CPU is readable
    for (int i = 0; i < 20; ++i) t.get_list(2);
    EXPECT_GE(*t.server_cpu_ns(), *cpu0);
  }
  PostgresTier::drop_tables(admin, pg.schema);
  EXPECT_EQ(count_caching_tables(admin, pg.schema), 0);
  admin.exec("DROP SCHEMA " + pg_quote_ident(pg.schema));
}

TEST(CachingRedisTier, ReturnsExactlyWhatWasStoredAndDeletesOnlyItsKeys) {
  RedisTarget rt = test::shared_targets().redis(1);
  rt.prefix = test::unique_name("perflab_caching") + ":";  // keys of this test's own
  RedisClient probe(rt.nodes.at(0));
  const std::string foreign = rt.prefix + "not_caching";
  probe.command({"SET", foreign, "keep"});
  const Document d = generate_document(6, 0, 60 * 1024);
  const CommentList l = generate_comments(6, 3, 1000);
  for (Encoding e : kEncodings) {
    SCOPED_TRACE(to_string(e));
    const Codec codec{e, 6};
    RedisTier t(rt, codec);
    EXPECT_EQ(t.get_document(d.key), nullptr);
    t.put_document(d);
    t.put_list(l);
    EXPECT_EQ(*t.get_document(d.key), d);
    EXPECT_EQ(*t.get_list(3), l);
    EXPECT_EQ(t.document_key(d.key).rfind(rt.prefix + "caching:", 0), 0u);
    EXPECT_EQ(t.document_bytes(d.key), codec.encode(d).size());
    EXPECT_EQ(t.list_bytes(3), codec.encode(l).size());
    EXPECT_EQ(*t.get_document_bytes(d.key), codec.encode(d));
    auto cpu = t.server_cpu_ns();
    ASSERT_TRUE(cpu.has_value());
    EXPECT_GT(*cpu, 0);
    EXPECT_EQ(t.remove_own_keys(), 2);
    EXPECT_EQ(t.get_list(3), nullptr);
  }
  EXPECT_TRUE(keys_matching(probe, rt.prefix + "caching:*").empty());
  EXPECT_EQ(probe.command({"GET", foreign}).str, "keep");
  probe.command({"DEL", foreign});
}

TEST(CachingExperimentRun, TinyRunProducesTheWholeMatrixAndFindings) {
  Targets* targets = &test::shared_targets();  // managed: server CPU is measurable
  auto exp = make_caching_experiment();
  int updates = 0;
  RunHooks hooks;
  hooks.on_update = [&](const perflab::Run&) { ++updates; };
  std::vector<std::string> aside_steps;
  double last_fraction = 0;
  hooks.progress = [&](double f, std::string_view step) {
    EXPECT_GE(f, last_fraction) << step;
    last_fraction = f;
    if (step.starts_with("cache-aside: ")) aside_steps.emplace_back(step.substr(13));
  };
  perflab::Run run = execute(*exp, *targets, tiny_params(), hooks, std::stop_token{});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  EXPECT_GT(updates, 0);
  // The cache-aside encodings take turns at each budget.
  const std::vector<std::string> turns{
      "native, local budget 0 MB",   "json, local budget 0 MB",
      "protobuf, local budget 0 MB", "protobuf+zlib, local budget 0 MB",
      "native, local budget 1 MB",   "json, local budget 1 MB",
      "protobuf, local budget 1 MB", "protobuf+zlib, local budget 1 MB"};
  EXPECT_EQ(aside_steps, turns);
  for (const std::string w : {"document", "list"}) {
    for (const std::string tier : {"postgres", "redis", "local"}) {
      for (const std::string enc : {"native", "json", "protobuf", "protobuf+zlib"}) {
        SCOPED_TRACE(w + "/" + tier + "/" + enc);
        const Point* p = run.find_point(w + "_wall", enc, tier);
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(p->samples.size(), 3u);
        EXPECT_GT(p->stats.median, 0);
        EXPECT_TRUE(p->extra.count("cpu_us"));
        EXPECT_GT(p->extra.at("bytes"), 0);
        const Point* cpu = run.find_point(w + "_cpu", enc, tier);
        ASSERT_NE(cpu, nullptr);
        EXPECT_EQ(cpu->samples.size(), 3u);
        ASSERT_NE(run.find_point(w + "_bytes", enc, tier), nullptr);
        if (tier != "local") {
          // Managed servers: their CPU per get is measured.
          ASSERT_TRUE(p->extra.count("server_cpu_us"));
          EXPECT_GE(p->extra.at("server_cpu_us"), 0);
          ASSERT_NE(run.find_point(w + "_server_cpu", enc, tier), nullptr);
        }
        // Where the get's time goes: each part timed alone in the get's rounds, in % of the
        // median get and in µs; the parts add up to about the whole (each measured, none the
        // rest of another): a part that held another would count it twice.
        const std::string stack = tier + ", " + enc;
        double parts_us = 0;
        for (const char* part : {"fetch", "decode", "check"}) {
          SCOPED_TRACE(part);
          const Point* pct = run.find_point(w + "_get_parts", part, stack);
          const Point* us = run.find_point(w + "_get_parts_us", part, stack);
          ASSERT_NE(pct, nullptr);
          ASSERT_NE(us, nullptr);
          EXPECT_EQ(us->samples.size(), 3u);
          EXPECT_GT(us->stats.median, 0);
          EXPECT_NEAR(pct->stats.median, 100 * us->stats.median / p->stats.median,
                      1e-9 * pct->stats.median);
          EXPECT_DOUBLE_EQ(us->extra.at("whole_us"), p->stats.median);
          parts_us += us->stats.median;
          // Judged by its interval: three rounds of a 50 ns local get under ASan beside another
          // test read 0.41 and 2.31 as medians.
          const double adds_up = us->extra.at("parts_vs_whole");
          const double lo = us->extra.at("parts_vs_whole_lo");
          const double hi = us->extra.at("parts_vs_whole_hi");
          EXPECT_GT(hi, 0.5);
          EXPECT_LT(lo, 2.0);
          EXPECT_LE(lo, adds_up);
          EXPECT_GE(hi, adds_up);
        }
        // A local get of a ready object decodes nothing; a remote get's fetch is most of a
        // round trip, far above a local lookup.
        const double decode = run.find_point(w + "_get_parts_us", "decode", stack)->stats.median;
        const double fetch = run.find_point(w + "_get_parts_us", "fetch", stack)->stats.median;
        if (tier == "local" && enc == "native") {
          EXPECT_LT(decode, 1.0);
        }
        if (tier != "local") {
          const Point* local_fetch = run.find_point(w + "_get_parts_us", "fetch", "local, " + enc);
          ASSERT_NE(local_fetch, nullptr);
          EXPECT_GT(fetch, 5 * local_fetch->stats.median);
        }
        EXPECT_GT(parts_us, 0);
      }
    }
    // The decode alone, no server: every encoding, its allocations and rate.
    for (const std::string enc : {"native", "json", "protobuf", "protobuf+zlib"}) {
      SCOPED_TRACE(w + "/" + enc);
      const Point* t = run.find_point("decode_time", enc, w);
      ASSERT_NE(t, nullptr);
      EXPECT_EQ(t->samples.size(), 3u);
      EXPECT_GT(t->stats.median, 0);
      const Point* a = run.find_point("decode_allocs", enc, w);
      ASSERT_NE(a, nullptr);
      EXPECT_GE(a->stats.median, 1);  // the object's own allocation at least
      const Point* r = run.find_point("decode_rate", enc, w);
      ASSERT_NE(r, nullptr);
      EXPECT_NEAR(r->stats.median * t->stats.median, t->extra.at("bytes") * 1e3,
                  1e-6 * t->extra.at("bytes") * 1e3);
    }
  }
  std::set<std::string> ids;
  for (const auto& f : run.findings) ids.insert(f.id);
  for (const char* id : {"document.redis_vs_postgres.fetch", "list.redis_vs_postgres.fetch",
                         "document.redis_vs_postgres.time", "list.redis_vs_postgres.time",
                         "list.redis_vs_postgres.cpu", "list.redis_vs_postgres.own_forms.time",
                         "list.decode_share.redis.native", "list.decode_share.redis.protobuf+zlib",
                         "list.protobuf_vs_native.redis", "list.json_vs_native.redis",
                         "list.zlib_vs_protobuf.redis", "list.local_vs_postgres.time",
                         "list.local_protobuf_vs_redis.time", "document.decode.json_vs_native",
                         "list.decode.zlib_vs_protobuf", "document.decode.json.rate"})
    EXPECT_TRUE(ids.count(id)) << id;
  // The panel leads with the stores compared on the same bytes.
  ASSERT_FALSE(run.findings.empty());
  EXPECT_EQ(run.findings[0].id, "document.redis_vs_postgres.fetch");
  EXPECT_EQ(run.findings[1].id, "list.redis_vs_postgres.fetch");
  // Every comparison and share of a chart's series names that chart (the presentation view shows
  // it beside it).
  for (const auto& v : test::finding_chart_violations(run)) ADD_FAILURE() << v;
  for (const auto& f : run.findings) {
    EXPECT_GT(f.value, 0) << f.id;
    ASSERT_TRUE(f.ci.has_value()) << f.id;
    EXPECT_TRUE(f.ci->lo <= f.value && f.value <= f.ci->hi) << f.id;
    // Every word true of its numbers: who wins follows the ratio as defined.
    for (const auto& v : test::finding_rule_violations(f)) ADD_FAILURE() << v;
    if (f.id.find(".decode.") != std::string::npos) {
      // The decode alone: the encodings took turns round by round (paired).
      if (f.kind == FindingKind::Comparison) {
        EXPECT_EQ(f.ci->method, CiMethod::PairedBootstrap) << f.id;
      }
      continue;
    }
    if (f.kind == FindingKind::Share) {
      // A part of the same rounds' gets.
      EXPECT_EQ(f.ci->method, CiMethod::PairedBootstrap) << f.id;
      EXPECT_EQ(f.part, "spent decoding");
      EXPECT_LT(f.value, 1.5) << f.id;
      continue;
    }
    // The cells took turns round by round: paired, and judged.
    EXPECT_EQ(f.kind, FindingKind::Comparison) << f.id;
    EXPECT_EQ(f.ci->method, CiMethod::PairedBootstrap) << f.id;
    EXPECT_TRUE(f.verdict().has_value()) << f.id;
    if (f.id == "list.local_vs_postgres.time") {
      ASSERT_TRUE(f.claim.has_value());
      EXPECT_EQ(f.claim->figure, 100.0);
      EXPECT_EQ(f.comparison.subject, "PostgreSQL");
      EXPECT_EQ(f.comparison.baseline, "local memory");
    }
    // The article's memcache-vs-datastore claims are judged on the same bytes on both sides.
    if (f.id == "list.redis_vs_postgres.cpu") {
      ASSERT_TRUE(f.claim.has_value());
      EXPECT_EQ(f.claim->figure, 15.0);
      EXPECT_EQ(f.comparison.quantity, Quantity::Cpu);
      EXPECT_EQ(f.comparison.subject, "PostgreSQL + protobuf");
      EXPECT_EQ(f.comparison.baseline, "Redis + protobuf");
    }
    if (f.id == "document.redis_vs_postgres.fetch") {
      EXPECT_FALSE(f.claim.has_value());
      EXPECT_EQ(f.group, "document_get_parts_us");
      EXPECT_NE(f.comparison.metric.find("same protobuf bytes"), std::string::npos);
    }
    if (f.id == "list.redis_vs_postgres.own_forms.time") {
      EXPECT_EQ(f.comparison.baseline, "Redis + MessagePack");
    }
  }
  for (const std::string enc : {"native", "json", "protobuf", "protobuf+zlib"}) {
    for (const std::string b : {"0", "1"}) {
      const Point* hit = run.find_point("aside_hit_ratio", enc, b);
      ASSERT_NE(hit, nullptr) << enc << " " << b;
      ASSERT_TRUE(hit->x.has_value());
      ASSERT_NE(run.find_point("aside_latency", enc, b), nullptr);
      if (b == "0") {
        EXPECT_EQ(hit->extra.at("hit_ratio_pct"), 0);  // no local memory at all
      }
    }
    // 20 documents of 4 KB fit in 1 MB: after the warm-up (every key once, then Zipf reads)
    // every measured read is a local hit; with no local memory, every read is a Redis hit
    // (the warm-up filled Redis from PostgreSQL).
    const auto& x = run.find_point("aside_hit_ratio", enc, "1")->extra;
    EXPECT_EQ(x.at("evictions"), 0);
    EXPECT_EQ(x.at("hit_ratio_pct"), 100);
    EXPECT_EQ(x.at("local_hits"), 40);
    const auto& none = run.find_point("aside_hit_ratio", enc, "0")->extra;
    EXPECT_EQ(none.at("local_hits"), 0);
    EXPECT_EQ(none.at("redis_hits"), 40);
    EXPECT_EQ(none.at("postgres_reads"), 0);
  }
  const auto* g = run.group("aside_hit_ratio");
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(g->numeric_x);

  // It cleaned up after itself: no tables left in its schema, no keys under its prefix.
  PgConnection c(targets->postgres().conninfo);
  EXPECT_EQ(count_caching_tables(c, targets->config().pg_schema), 0);
  RedisClient r(targets->redis(1).nodes.at(0));
  EXPECT_TRUE(keys_matching(r, targets->config().redis_prefix + "caching:*").empty());
}

TEST(CachingExperimentRun, UserDataOutsideSchemaAndPrefixSurvives) {
  Targets& targets = test::shared_targets();  // schema "perflab", prefix "perflab:"
  PgConnection c(targets.postgres().conninfo);
  c.exec("DROP TABLE IF EXISTS public.caching_documents, public.caching_comments");
  c.exec("CREATE TABLE public.caching_documents (key text PRIMARY KEY, body bytea)");
  c.exec("INSERT INTO public.caching_documents VALUES ('doc-0', 'user data')");
  c.exec("CREATE TABLE public.caching_comments (group_id bigint, id bigint)");
  c.exec("INSERT INTO public.caching_comments VALUES (1, 1)");
  RedisClient r(targets.redis(1).nodes.at(0));
  r.command({"SET", "caching:native:doc:doc-0", "user value"});
  r.command({"SET", "user:key", "user value 2"});
  r.command({"SET", "perflab:other", "perflab's other data"});

  auto exp = make_caching_experiment();
  perflab::Run run = execute(*exp, targets, tiny_params(), {}, std::stop_token{});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;

  PgResult d = c.exec("SELECT key, convert_from(body, 'UTF8') FROM public.caching_documents");
  ASSERT_EQ(d.rows(), 1);
  EXPECT_EQ(d.value(0, 1), "user data");
  EXPECT_EQ(c.exec("SELECT count(*) FROM public.caching_comments").value(0, 0), "1");
  EXPECT_EQ(r.command({"GET", "caching:native:doc:doc-0"}).str, "user value");
  EXPECT_EQ(r.command({"GET", "user:key"}).str, "user value 2");
  EXPECT_EQ(r.command({"GET", "perflab:other"}).str, "perflab's other data");
  c.exec("DROP TABLE public.caching_documents, public.caching_comments");
  r.command({"DEL", "caching:native:doc:doc-0", "user:key", "perflab:other"});
}

TEST(CachingExperimentRun, BadParametersChangeNothing) {
  Targets* targets = &test::shared_targets();
  auto exp = make_caching_experiment();
  EXPECT_THROW(execute(*exp, *targets, {{"encodings", "native,pickle"}}, {}, std::stop_token{}),
               ParamError);
  EXPECT_THROW(execute(*exp, *targets, {{"aside_budgets_mb", "1,-2"}}, {}, std::stop_token{}),
               ParamError);
  PgConnection c(targets->postgres().conninfo);
  EXPECT_EQ(count_caching_tables(c, targets->config().pg_schema), 0);
}

TEST(CachingExperimentRun, StopKeepsWhatWasMeasuredAndCleansUp) {
  Targets* targets = &test::shared_targets();
  auto exp = make_caching_experiment();
  std::stop_source stop;
  RunHooks hooks;
  // Stop after the second of three rounds, in which every cell took its turn.
  hooks.progress = [&](double, std::string_view step) {
    if (step.ends_with("repetition 2/3")) stop.request_stop();
  };
  perflab::Run run = execute(*exp, *targets, tiny_params(), hooks, stop.get_token());
  EXPECT_EQ(run.status, RunStatus::Cancelled);
  // The rounds measured are kept, with the findings on them.
  for (const std::string tier : {"postgres", "local"}) {
    for (const char* g : {"document_wall", "list_wall"}) {
      const Point* p = run.find_point(g, "native", tier);
      ASSERT_NE(p, nullptr) << g << " " << tier;
      EXPECT_EQ(p->samples.size(), 2u) << g << " " << tier;
    }
    const Point* fetch = run.find_point("list_get_parts_us", "fetch", tier + ", native");
    ASSERT_NE(fetch, nullptr) << tier;
    EXPECT_EQ(fetch->samples.size(), 2u) << tier;
  }
  EXPECT_FALSE(run.findings.empty());
  EXPECT_EQ(run.group("decode_time"), nullptr);  // the decode alone comes after the matrix
  PgConnection c(targets->postgres().conninfo);
  EXPECT_EQ(count_caching_tables(c, targets->config().pg_schema), 0);
  RedisClient r(targets->redis(1).nodes.at(0));
  EXPECT_TRUE(keys_matching(r, targets->config().redis_prefix + "caching:*").empty());
}

TEST(CachingPostgresTier, AUsersSchemaIsRefusedAndKeepsItsTables) {
  PgConnection c(test::shared_targets().postgres().conninfo);
  const std::string users = test::make_users_schema(c);
  EXPECT_THROW(caching::PostgresTier::create_tables(c, users), TargetError);
  caching::PostgresTier::drop_tables(c, users);  // not Perflab's: nothing is dropped
  EXPECT_EQ(test::users_orders(c, users), "2");
  c.exec("DROP SCHEMA " + pg_quote_ident(users) + " CASCADE");
}
