// The pgbench peer of the IO-list experiment against a real PostgreSQL managed by the project,
// with the real pgbench.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "iolist/event_store.h"
#include "iolist/experiment.h"
#include "iolist/pgbench.h"
#include "runner/experiment.h"
#include "servers.h"
#include "targets/owned_folder.h"
#include "targets/pg_conninfo.h"
#include "targets/pg_text.h"
#include "targets/postgres.h"
#include "targets/server_binary.h"

using namespace perflab;

namespace {

std::int64_t count(PgConnection& conn, const std::string& schema, const std::string& table) {
  return std::stoll(std::string(
      conn.exec("SELECT count(*) FROM " + pg_quote_ident(schema) + "." + table).value(0, 0)));
}

std::int64_t pgbench_backends(PgConnection& conn) {
  return std::stoll(std::string(
      conn.exec("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pgbench'")
          .value(0, 0)));
}
}  // namespace

TEST(PgbenchPeer, RunsTheSameAppendAndItsRowsLand) {
  auto exp = make_iolist_experiment();
  const std::string schema = test::unique_name("perflab_pgb");
  Targets targets(test::isolated_pg(schema));
  const std::map<std::string, std::string> params = {{"benchmarks", "append,pgbench"},
                                                     {"builders", "iolist"},
                                                     {"writers", "1,3"},
                                                     {"repetitions", "2"},
                                                     {"warmup", "1"},
                                                     {"events", "40"},
                                                     {"pgbench_ms", "100"},
                                                     {"pgbench_repetitions", "3"},
                                                     {"transports", "round_trips"},
                                                     {"network_rtt_ms", "0"},
                                                     {"verdicts", "false"}};
  perflab::Run run = execute(*exp, targets, params, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  std::int64_t pgbench_tx = 0;
  for (const char* label : {"single writer", "3 concurrent writers"}) {
    const Point* p = run.find_point("append", "pgbench", label);
    ASSERT_NE(p, nullptr) << label;
    EXPECT_EQ(p->stats.n, 3u);  // pgbench_repetitions, not the appends' repetitions
    EXPECT_GT(p->stats.median, 0);
    EXPECT_GT(p->extra.at("tps"), 0);
    EXPECT_GE(p->extra.at("transactions_per_client"), 10);
    pgbench_tx += static_cast<std::int64_t>(p->extra.at("transactions"));
    bool finding = false;
    for (const auto& f : run.findings)
      if (f.comparison.subject == "Perflab iolist" && f.comparison.baseline == "pgbench" &&
          f.context.rfind(std::string("Append, ") + label + ",", 0) == 0) {
        finding = true;
        EXPECT_GT(f.value, 0);
      }
    EXPECT_TRUE(finding) << label;
  }
  // Calibration (2 per client) + 3 measured invocations of at least 10 per client, 1 and 3 clients.
  EXPECT_GE(pgbench_tx, (2 + 3 * 10) * 1 + (2 + 3 * 10) * 3);
  // Rows really landed: Perflab's appends (1 + 3 writers, warm-up + repetitions) plus pgbench's.
  PgConnection conn(test::shared_targets().postgres().conninfo);
  const std::int64_t perflab_tx = (1 + 3) * (1 + 2);
  EXPECT_EQ(count(conn, schema, "streams"), perflab_tx + pgbench_tx);
  EXPECT_EQ(count(conn, schema, "events"), 40 * (perflab_tx + pgbench_tx));
  // pgbench's rows are the generated events, complete (a 40-event stream split in 2 INSERTs).
  EXPECT_EQ(std::string(conn.exec("SELECT count(*) FROM (SELECT stream_id FROM " +
                                  pg_quote_ident(schema) +
                                  ".events GROUP BY stream_id HAVING count(*) <> 40 OR "
                                  "max(stream_version) <> 40) x")
                            .value(0, 0)),
            "0");
  conn.exec("DROP SCHEMA " + pg_quote_ident(schema) + " CASCADE");
}

TEST(PgbenchPeer, StopDuringPgbenchEndsTheRunAndKillsPgbench) {
  auto exp = make_iolist_experiment();
  const std::string schema = test::unique_name("perflab_pgb_stop");
  Targets targets(test::isolated_pg(schema));
  std::stop_source stop;
  std::atomic<std::int64_t> asked_ns{0};
  std::thread stopper;
  RunHooks hooks;
  hooks.progress = [&](double, std::string_view step) {
    // After calibration the next invocation runs for about a minute: stop it once its clients
    // are connected (not after a guessed delay).
    if (!stopper.joinable() && step.find("pgbench, single writer: calibrated") == 0) {
      stopper = std::thread([&] {
        PgConnection watch(test::shared_targets().postgres().conninfo);
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (pgbench_backends(watch) == 0 && std::chrono::steady_clock::now() < until)
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        asked_ns = std::chrono::steady_clock::now().time_since_epoch().count();
        stop.request_stop();
      });
    }
  };
  const std::map<std::string, std::string> params = {
      {"benchmarks", "pgbench"}, {"writers", "1"}, {"repetitions", "3"},
      {"warmup", "0"},           {"events", "10"}, {"pgbench_ms", "60000"}};
  perflab::Run run = execute(*exp, targets, params, hooks, stop.get_token());
  const auto ended = std::chrono::steady_clock::now().time_since_epoch().count();
  if (stopper.joinable()) stopper.join();
  ASSERT_NE(asked_ns.load(), 0) << run.message;
  EXPECT_EQ(run.status, RunStatus::Cancelled) << run.message;
  EXPECT_EQ(run.find_point("append", "pgbench", "single writer"), nullptr);  // nothing measured
  // Stop is honoured: the target, within a second, is the figure printed (and
  // scripts/bench_stop.sh's); the bound is far above it, for a loaded machine with ASan, and far
  // below the minute pgbench was asked to run.
  const long long after_stop = (ended - asked_ns.load()) / 1'000'000;
  std::printf("pgbench run ended %lld ms after Stop\n", after_stop);
  EXPECT_LT(after_stop, 15000);
  // pgbench is gone: its connections close.
  PgConnection conn(test::shared_targets().postgres().conninfo);
  std::int64_t left = pgbench_backends(conn);
  for (int i = 0; i < 100 && left > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = pgbench_backends(conn);
  }
  EXPECT_EQ(left, 0);
  conn.exec("DROP SCHEMA IF EXISTS " + pg_quote_ident(schema) + " CASCADE");
}

TEST(PgbenchPeer, PasswordGoesThroughTheEnvironmentOnly) {
  // The managed server's password is in its conninfo and checked (scram-sha-256): it must reach
  // pgbench through its environment only, never its command line or files.
  auto pg = test::shared_targets().postgres();
  const std::string password = parse_conninfo(pg.conninfo).password.value_or("");
  ASSERT_FALSE(password.empty());
  TempFolder dir("perflab-pgbench-test-");
  iolist::PgbenchInvocation inv;
  inv.exe = find_server_binary("pgbench");
  inv.conninfo = pg.conninfo;
  inv.clients = 2;
  inv.transactions = 1500;
  const std::string schema = test::unique_name("perflab_pgb_pw");
  PgConnection conn(pg.conninfo);
  iolist::reset_schema(conn, schema);
  inv.id_base = 1000;
  inv.work_dir = dir.path();
  auto script =
      iolist::make_pgbench_script(schema, iolist::make_events(5, 3), "2026-01-01 00:00:00");
  std::optional<iolist::PgbenchReport> r;
  std::thread runner([&] { r = iolist::run_pgbench(inv, script, {}); });
  // Find the running pgbench by its script path and look at its command line and environment.
  auto slurp = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string script_path = (dir.path() / "append.sql").string();
  bool seen = false;
  for (int i = 0; i < 500 && !seen; ++i) {
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      const std::string cmdline = slurp(entry.path() / "cmdline");
      if (cmdline.find(script_path) == std::string::npos) continue;
      seen = true;
      EXPECT_EQ(cmdline.find(password), std::string::npos);
      EXPECT_NE(slurp(entry.path() / "environ").find("PGPASSWORD=" + password + '\0'),
                std::string::npos);
    }
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  runner.join();
  EXPECT_TRUE(seen) << "pgbench was not seen running";
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->processed, 3000);
  EXPECT_EQ(count(conn, schema, "events"), 5 * 3000);
  // Ids are the invocation's: 1000 .. 1000 + 14999, each once (the primary key says so).
  EXPECT_EQ(std::string(conn.exec("SELECT min(event_id)::text || '-' || max(event_id)::text FROM " +
                                  pg_quote_ident(schema) + ".events")
                            .value(0, 0)),
            "1000-15999");
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(slurp(entry.path()).find(password), std::string::npos) << entry.path();
  conn.exec("DROP SCHEMA " + pg_quote_ident(schema) + " CASCADE");
}
