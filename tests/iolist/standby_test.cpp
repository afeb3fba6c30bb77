// The event store on a primary with hot standbys, against real managed servers: standby reads,
// the read-your-writes lag (also on a paused standby), and the standby benchmark end to end,
// on a managed primary and on one Perflab does not manage.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>

#include "common/clock.h"
#include "finding_rules.h"
#include "iolist/event_store.h"
#include "iolist/events.h"
#include "iolist/experiment.h"
#include "iolist/read_your_writes.h"
#include "run_probes.h"
#include "runner/experiment.h"
#include "servers.h"
#include "targets/managed_postgres.h"
#include "targets/managed_postgres_standby.h"
#include "targets/replication.h"
#include "targets/targets.h"

using namespace perflab;
using namespace perflab::iolist;
using namespace std::chrono_literals;

namespace {

TargetsConfig own_servers(bool durable) {
  TargetsConfig cfg;
  cfg.managed_pg.durable = durable;
  cfg.managed_pg.max_connections = 60;
  cfg.pg_schema = test::unique_name("perflab_standby");
  return cfg;
}

// The server's settings (ALTER SYSTEM lands in postgresql.auto.conf: pg_file_settings), and
// every schema but Perflab's own.
std::string server_state(PgConnection& c, const std::string& own_schema) {
  return std::string(
      c.exec("SELECT (SELECT count(*) FROM pg_file_settings)::text || '/' || "
             "current_setting('synchronous_standby_names') || '/' || "
             "(SELECT string_agg(nspname, ',' ORDER BY nspname) FROM pg_namespace WHERE nspname "
             "<> " +
             std::string("'") + own_schema + "')")
          .value(0, 0));
}

const std::map<std::string, std::string> kStandbyRun = {
    {"benchmarks", "standby"}, {"readers", "1,4"}, {"writers", "1,4"},   {"repetitions", "6"},
    {"warmup", "0"},           {"events", "20"},   {"verdicts", "false"}};

}  // namespace

TEST(StandbyReads, AStandbyReadsBackEveryAppendedEvent) {
  Targets targets(own_servers(false));
  const PgTarget pg = targets.postgres();
  PgConnection primary = pg.connect();
  reset_schema(primary, pg.schema);
  EventIdAllocator ids;
  EventStore store(primary, pg.schema, ids);
  std::uint64_t uuid_state = 7;
  std::vector<std::pair<std::string, std::vector<EventData>>> written;
  for (const std::string& b : builder_names()) {
    written.push_back({make_uuid(uuid_state), make_events(30, written.size() + 1)});
    store.append_to_stream(written.back().first, 0, written.back().second, builder_from_string(b));
  }
  const PgTarget standby = targets.postgres_standbys(1).at(0);
  PgConnection sc = standby.connect();
  pg_wait_replayed(primary, sc, 60s);
  EventStore on_standby(sc, standby.schema, ids);
  for (const auto& [uuid, events] : written) {
    const auto got = on_standby.read_stream_forward(uuid, 1, 100);
    ASSERT_EQ(got.size(), events.size()) << uuid;
    for (std::size_t i = 0; i < events.size(); ++i) {
      EXPECT_EQ(got[i].stream_version, std::int64_t(i + 1));
      EXPECT_EQ(got[i].event_type, events[i].event_type);
      EXPECT_EQ(got[i].correlation_id, events[i].correlation_id);
      EXPECT_EQ(got[i].data, events[i].data);
      EXPECT_EQ(got[i].metadata, events[i].metadata);
    }
  }
}

TEST(StandbyLag, GrowsWhileTheStandbyIsPausedAndRecovers) {
  Targets targets(own_servers(true));
  const PgTarget pg = targets.postgres();
  PgConnection primary = pg.connect();
  reset_schema(primary, pg.schema);
  EventIdAllocator ids;
  EventStore store(primary, pg.schema, ids);
  const PgTarget standby = targets.postgres_standbys(1).at(0);
  PgConnection sc = standby.connect();
  pg_wait_replayed(primary, sc, 60s);
  StandbyProbe probe(sc, standby.schema);
  std::uint64_t uuid_state = 11;
  const auto events = make_events(10, 3);
  auto append_and_wait = [&] {
    const AppendResult a =
        store.append_to_stream(make_uuid(uuid_state), 0, events, Builder::IoList);
    return probe.wait_visible(a.stream_id, a.first_version + 9, wall_ns(), 60s);
  };
  const std::int64_t before = append_and_wait();
  // The WAL receiver paused for 2 s: an append made meanwhile is seen only after it resumes.
  const auto receiver = pg_wal_receiver(sc);
  ASSERT_TRUE(receiver);
  ASSERT_EQ(kill(receiver->pid, SIGSTOP), 0);
  std::jthread resume([pid = receiver->pid] {
    std::this_thread::sleep_for(2s);
    kill(pid, SIGCONT);
  });
  const std::int64_t paused = append_and_wait();
  resume.join();
  EXPECT_GE(paused, 1'500'000'000) << "lag while paused: " << paused / 1e6 << " ms";
  EXPECT_GT(paused, before);
  // Once it streams again, the lag is back far below the pause.
  std::vector<std::int64_t> after;
  for (int i = 0; i < 5; ++i) after.push_back(append_and_wait());
  std::sort(after.begin(), after.end());
  EXPECT_LT(after[2], 1'000'000'000) << "median lag after the pause: " << after[2] / 1e6 << " ms";
}

TEST(StandbyBenchmark, RunsOnAManagedPrimaryWithTwoStandbysAndResetsItsSettings) {
  Targets targets(own_servers(false));
  auto exp = make_iolist_experiment();
  perflab::Run run = execute(*exp, targets, kStandbyRun, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  EXPECT_EQ(targets.managed_standbys().size(), 2u);
  for (const char* g : {"standby_read", "standby_lag", "standby_append"})
    EXPECT_NE(run.group(g), nullptr) << g;
  for (const char* s : {"primary", "2 hot standbys"}) {
    const Point* p = run.find_point("standby_read", s, "4 concurrent readers");
    ASSERT_NE(p, nullptr) << s;
    EXPECT_EQ(p->stats.n, 6u);
    EXPECT_GT(p->stats.median, 0);
  }
  for (const char* s : {"asynchronous p50", "asynchronous p99", "remote_apply p99"}) {
    const Point* p = run.find_point("standby_lag", s, "4 concurrent writers");
    ASSERT_NE(p, nullptr) << s;
    EXPECT_EQ(p->stats.n, 6u);
    EXPECT_GT(p->stats.median, 0);
  }
  // remote_apply: the first read after the commit sees it; the lag is at most a few reads.
  EXPECT_LE(
      run.find_point("standby_lag", "remote_apply p50", "single writer")->stats.median,
      run.find_point("standby_lag", "asynchronous p99", "single writer")->stats.median + 50.0);
  for (const char* id :
       {"standby_read_4.standbys_vs_primary", "standby_lag_4.p99.asynchronous",
        "standby_lag_4.p50.remote_apply", "standby_append_4.remote_apply_vs_async"}) {
    const Finding* f = test::find_finding(run, id);
    ASSERT_NE(f, nullptr) << id;
    ASSERT_TRUE(f->ci.has_value()) << id;
    EXPECT_TRUE(f->ci->has_interval()) << id;
    for (const auto& v : test::finding_rule_violations(*f)) ADD_FAILURE() << id << ": " << v;
  }
  // The synchronous standbys were the benchmark's only: reset on the primary afterwards.
  PgConnection c(targets.managed_postgres()->conninfo(), 5);
  EXPECT_EQ(std::string(c.exec("SHOW synchronous_standby_names").value(0, 0)), "");
}

TEST(StandbyBenchmark, AnExternalPrimaryIsTouchedOnlyInPerflabsSchema) {
  // Durable, as another's server would be: its asynchronous commits do not wait for the WAL
  // writer, so the lag is what replication adds.
  ManagedPostgresOptions opts;
  opts.max_connections = 60;
  ManagedPostgres primary(opts);
  ManagedPostgresStandby standby(primary, opts);
  TargetsConfig cfg = own_servers(false);
  cfg.pg_conninfo = primary.conninfo();
  cfg.pg_standby_conninfos = {standby.conninfo()};
  // Its superuser reads the configuration (pg_file_settings), in Perflab's database.
  PgConnection c(primary.setup_conninfo() + " dbname=perflab", 5);
  const std::string before = server_state(c, cfg.pg_schema);
  {
    Targets targets(cfg);
    auto params = kStandbyRun;
    params["standbys"] = "1";
    params["readers"] = "2";
    params["writers"] = "2";
    params["repetitions"] = "2";
    auto exp = make_iolist_experiment();
    perflab::Run run = execute(*exp, targets, params, {}, {});
    ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
    EXPECT_TRUE(targets.managed_standbys().empty());
    EXPECT_EQ(targets.managed_postgres(), nullptr);
    EXPECT_NE(run.find_point("standby_read", "1 hot standby", "2 concurrent readers"), nullptr);
    EXPECT_NE(run.find_point("standby_lag", "asynchronous p99", "2 concurrent writers"), nullptr);
    // No synchronous standbys on another's server: remote_apply is left out and says why.
    EXPECT_EQ(run.find_series("standby_lag", "remote_apply p99"), nullptr);
    EXPECT_NE(test::find_finding(run, "standby_lag.remote_apply_skipped"), nullptr);
  }
  EXPECT_EQ(server_state(c, cfg.pg_schema), before);
}
