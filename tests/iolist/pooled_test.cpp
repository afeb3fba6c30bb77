// The pooled appends against real servers: a managed PgBouncer in front of 1,000 clients serves
// every append and reads back what was appended; an external server is left as it was.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "finding_rules.h"
#include "iolist/event_store.h"
#include "iolist/events.h"
#include "iolist/experiment.h"
#include "runner/experiment.h"
#include "servers.h"
#include "targets/managed_postgres.h"
#include "targets/postgres.h"

using namespace perflab;
using namespace perflab::iolist;

namespace {

const Finding* finding(const perflab::Run& run, const std::string& id) {
  for (const auto& f : run.findings)
    if (f.id == id) return &f;
  return nullptr;
}

std::set<std::string> schemas(PgConnection& c) {
  std::set<std::string> out;
  PgResult r = c.exec(
      "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> "
      "'information_schema'");
  for (int i = 0; i < r.rows(); ++i) out.insert(std::string(r.value(i, 0)));
  return out;
}

// An event's content as compared: type, correlation id, data, metadata.
std::string content(const std::string& type, const std::optional<std::string>& corr,
                    const std::string& data, const std::string& meta) {
  return type + '\x1f' + corr.value_or("\x1e") + '\x1f' + data + '\x1f' + meta;
}

}  // namespace

TEST(IoListPooled, PgBouncerServesAThousandClientsAndEveryStreamReadsBackEqual) {
  TargetsConfig cfg;
  cfg.managed_pg.durable = false;
  cfg.managed_pg.shared_buffers = "32MB";
  cfg.pg_schema = "perflab_pooled";
  std::filesystem::path bouncer_dir;
  {  // the managed servers end with their Targets, as when Perflab exits
    Targets targets(cfg);
    auto exp = make_iolist_experiment();
    const std::size_t clients = 1000, events = 5;
    perflab::Run run = execute(*exp, targets,
                               {{"benchmarks", "pooled"},
                                {"builders", "iolist"},
                                {"pool_clients", "1000"},
                                {"pool_size", "5"},
                                {"events", std::to_string(events)},
                                {"repetitions", "2"},
                                {"warmup", "0"},
                                {"seed", "7"},
                                {"verdicts", "false"}},
                               {}, {});
    ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
    ASSERT_NE(targets.managed_pgbouncer(), nullptr);
    bouncer_dir = targets.managed_pgbouncer()->dir();

    for (const char* series : {"iolist direct", "iolist pooled"}) {
      const Point* p = run.find_point("pooled", series, "1000");
      ASSERT_NE(p, nullptr) << series;
      EXPECT_EQ(p->stats.n, 2u);
      EXPECT_GT(p->stats.median, 0);
      ASSERT_TRUE(p->extra.count("backends")) << series;
      ASSERT_TRUE(p->extra.count("backends_private_mib")) << series;
      EXPECT_GT(p->extra.at("backends_private_mib"), 0) << series;
      // The machine's idle share during the operations: 1,000 appends span clock ticks.
      ASSERT_TRUE(p->extra.count("machine_idle_pct")) << series;
      EXPECT_GE(p->extra.at("machine_idle_pct"), 0) << series;
      EXPECT_LE(p->extra.at("machine_idle_pct"), 100) << series;
    }
    // PgBouncer's own memory beside its backends'.
    EXPECT_GT(run.find_point("pooled", "iolist pooled", "1000")->extra.at("pgbouncer_private_mib"),
              0);
    EXPECT_NE(finding(run, "pooled_1000.pgbouncer_memory"), nullptr);
    // Direct: a backend per client. Pooled: at most PgBouncer's pool.
    const int pool = targets.managed_pgbouncer()->options().default_pool_size;
    EXPECT_EQ(pool, 5);  // the run's pool_size
    EXPECT_EQ(run.find_point("pooled", "iolist direct", "1000")->extra.at("backends"), 1000);
    const double pooled_backends =
        run.find_point("pooled", "iolist pooled", "1000")->extra.at("backends");
    EXPECT_GE(pooled_backends, 1);
    EXPECT_LE(pooled_backends, pool);
    // The same figures in their charts.
    EXPECT_EQ(run.find_point("pooled_backends", "direct", "1000")->stats.median, 1000);
    EXPECT_EQ(run.find_point("pooled_backends", "pooled", "1000")->stats.median, pooled_backends);
    EXPECT_GT(run.find_point("pooled_memory", "direct", "1000")->stats.median,
              run.find_point("pooled_memory", "pooled", "1000")->stats.median);
    const Finding* ratio = finding(run, "pooled_1000.pooled_vs_direct.iolist");
    ASSERT_NE(ratio, nullptr);
    ASSERT_TRUE(ratio->ci.has_value());
    EXPECT_TRUE(ratio->verdict().has_value());
    for (const auto& f : run.findings)
      for (const auto& v : test::finding_rule_violations(f)) ADD_FAILURE() << f.id << ": " << v;

    // Every append of every client, direct and pooled, is there and reads back equal: 2 rounds x
    // 2 ways x 1,000 streams of `events` events, versions 1..events in order.
    std::set<std::string> expected;
    for (std::size_t w = 0; w < clients; ++w) {
      std::string batch;
      for (const auto& e : make_events(events, 7 + w))
        batch += content(e.event_type, e.correlation_id, e.data, e.metadata) + '\x1d';
      expected.insert(batch);
    }
    const PgTarget pooled = targets.pg_pooler();
    PgConnection c = pooled.connect();  // read back through PgBouncer
    PgResult streams = c.exec("SELECT stream_uuid FROM perflab_pooled.streams");
    ASSERT_EQ(streams.rows(), int(2 * 2 * clients));
    EventIdAllocator ids(0);
    EventStore store(c, "perflab_pooled", ids);
    for (int i = 0; i < streams.rows(); ++i) {
      const std::string uuid(streams.value(i, 0));
      const auto read = store.read_stream_forward(uuid, 1, int(events) + 1);
      ASSERT_EQ(read.size(), events) << uuid;
      std::string batch;
      for (std::size_t k = 0; k < read.size(); ++k) {
        EXPECT_EQ(read[k].stream_version, std::int64_t(k + 1)) << uuid;
        batch +=
            content(read[k].event_type, read[k].correlation_id, read[k].data, read[k].metadata) +
            '\x1d';
      }
      EXPECT_TRUE(expected.count(batch)) << "stream " << uuid << " holds events no client appended";
    }
  }
  EXPECT_FALSE(std::filesystem::exists(bouncer_dir)) << bouncer_dir;
}

TEST(IoListPooled, AnExternalServerKeepsItsSettingsAndOnlyPerflabsSchemaIsWritten) {
  // A server Perflab did not start, as far as the run knows: its conninfo is given.
  ManagedPostgres external(
      ManagedPostgresOptions{.max_connections = 60, .durable = false, .shared_buffers = "16MB"});
  PgConnection owner(external.conninfo());
  owner.exec(
      "CREATE SCHEMA app; CREATE TABLE app.orders (id int); INSERT INTO app.orders VALUES (1)");
  const std::set<std::string> before = schemas(owner);
  TargetsConfig cfg;
  cfg.pg_conninfo = external.conninfo();
  cfg.pg_schema = "perflab_ext";
  Targets targets(cfg);
  auto exp = make_iolist_experiment();
  perflab::Run run = execute(*exp, targets,
                             {{"benchmarks", "pooled"},
                              {"builders", "iolist,prepared"},
                              {"pool_clients", "10,100"},
                              {"events", "5"},
                              {"repetitions", "2"},
                              {"warmup", "0"},
                              {"verdicts", "false"}},
                             {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  EXPECT_EQ(owner.exec("SHOW max_connections").value(0, 0), "60");
  std::set<std::string> after = schemas(owner);
  after.erase("perflab_ext");
  EXPECT_EQ(after, before);
  EXPECT_EQ(owner.exec("SELECT count(*) FROM app.orders").value(0, 0), "1");

  // 10 clients fit beside PgBouncer's pool; 100 direct do not: skipped with a note, pooled kept.
  EXPECT_NE(run.find_point("pooled", "iolist direct", "10"), nullptr);
  EXPECT_NE(run.find_point("pooled", "iolist pooled", "10"), nullptr);
  EXPECT_EQ(run.find_point("pooled", "iolist direct", "100"), nullptr);
  EXPECT_NE(run.find_point("pooled", "iolist pooled", "100"), nullptr);
  const Finding* skipped = finding(run, "pooled.skipped.0");
  ASSERT_NE(skipped, nullptr);
  EXPECT_NE(skipped->text.find("100 concurrent clients"), std::string::npos) << skipped->text;
  EXPECT_NE(skipped->text.find("60"), std::string::npos) << skipped->text;
  // No memory figure for a server Perflab does not run here.
  EXPECT_EQ(run.find_point("pooled", "iolist pooled", "10")->extra.count("backends_private_mib"),
            0u);
  EXPECT_EQ(finding(run, "pooled_10.backends_memory.direct"), nullptr);
  EXPECT_EQ(run.group("pooled_memory"), nullptr);
  EXPECT_NE(finding(run, "pooled_10.backends.direct"), nullptr);

  // The prepared builder through PgBouncer is reported, not measured and not a crash.
  EXPECT_EQ(run.find_series("pooled", "prepared pooled"), nullptr);
  const Finding* prepared = finding(run, "pooled.prepared.failed");
  ASSERT_NE(prepared, nullptr);
  EXPECT_NE(prepared->text.find("of 300 (100 clients at once)"), std::string::npos)
      << prepared->text;
  if (prepared->value > 0) {
    const Finding* error = finding(run, "pooled.prepared.error");
    ASSERT_NE(error, nullptr);
    EXPECT_NE(error->text.find("prepared statement"), std::string::npos) << error->text;
  }
}
