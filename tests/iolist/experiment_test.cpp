// The IO-list experiment end to end against a real PostgreSQL (managed by the project).
#include <gtest/gtest.h>
#include <algorithm>

#include <chrono>
#include <cstdio>
#include <thread>

#include "common/run_io.h"
#include "finding_charts.h"
#include "finding_rules.h"
#include "iolist/experiment.h"
#include "run_probes.h"
#include "runner/experiment.h"
#include "servers.h"
#include "targets/postgres.h"

using namespace perflab;

namespace {

const std::map<std::string, std::string> kSmall = {{"writers", "1,3"},
                                                   {"readers", "1,2"},
                                                   {"repetitions", "2"},
                                                   {"warmup", "0"},
                                                   {"build_sizes", "1,20,100"},
                                                   {"build_sample_ms", "1"},
                                                   {"events", "20"},
                                                   {"pgbench_ms", "50"},
                                                   {"pgbench_repetitions", "2"},
                                                   {"payload_bytes", "256,4096"},
                                                   {"payload_repetitions", "2"},
                                                   {"verdicts", "false"}};  // fixed rounds
}  // namespace

TEST(IoListExperiment, SmallRunProducesEveryGroupSeriesAndFinding) {
  auto exp = make_iolist_experiment();
  Targets targets(test::isolated_pg(test::unique_name("perflab_exp")));
  RunHooks hooks;
  std::vector<std::pair<double, std::string>> progress;
  hooks.progress = [&](double f, std::string_view step) { progress.emplace_back(f, step); };
  perflab::Run run = execute(*exp, targets, kSmall, hooks, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  // The progress never goes back, and every point the run planned is measured in its order:
  // the last before the findings ends where the plan does.
  for (std::size_t i = 1; i < progress.size(); ++i)
    EXPECT_GE(progress[i].first, progress[i - 1].first) << progress[i].second;
  const auto last = std::find_if(progress.rbegin(), progress.rend(), [](const auto& p) {
    return p.second.starts_with("client libraries: repetition");
  });
  ASSERT_NE(last, progress.rend());
  EXPECT_NEAR(last->first, 1.0, 1e-9);
  for (const char* g : {"build_time", "build_allocs", "build_bytes", "append", "read"})
    EXPECT_NE(run.group(g), nullptr) << g;
  for (const char* b : {"interpolate", "iolist", "prepared", "unnest", "copy"}) {
    for (const char* label : {"single writer", "3 concurrent writers"}) {
      const Point* p = run.find_point("append", b, label);
      ASSERT_NE(p, nullptr) << b << " " << label;
      EXPECT_EQ(p->stats.n, 2u);
      EXPECT_GT(p->stats.median, 0);
      EXPECT_GT(p->extra.at("cpu"), 0);
    }
    EXPECT_NE(run.find_point("read", b, "2 concurrent readers"), nullptr) << b;
  }
  // Build micro-benchmark only for builders with statement text.
  EXPECT_NE(run.find_point("build_time", "iolist", "100"), nullptr);
  EXPECT_EQ(run.find_series("build_time", "copy"), nullptr);
  EXPECT_EQ(run.find_point("build_allocs", "iolist", "100")->stats.median, 3);
  const Finding* append_finding = test::find_finding(run, "append_1.iolist_vs_interpolate");
  ASSERT_NE(append_finding, nullptr);
  ASSERT_TRUE(append_finding->claim.has_value());
  EXPECT_DOUBLE_EQ(append_finding->claim->figure, 0.78);
  EXPECT_EQ(append_finding->comparison.subject, "iolist");
  EXPECT_EQ(append_finding->comparison.baseline, "interpolate");
  EXPECT_GT(append_finding->value, 0);
  // Every comparison and share of a chart's series names that chart (the presentation view shows
  // it beside it).
  for (const auto& v : test::finding_chart_violations(run)) ADD_FAILURE() << v;
  // Every finding but the exact ones (allocation counts) carries its interval; every comparison
  // its verdict at the run's threshold (append and read interleaved: paired), a share none; and
  // no finding says what its numbers refute.
  for (const auto& f : run.findings) {
    SCOPED_TRACE(f.id);
    for (const auto& v : test::finding_rule_violations(f)) ADD_FAILURE() << v;
    EXPECT_TRUE(f.verdict().has_value() || f.kind == FindingKind::Share) << finding_sentence(f);
    if (f.id.find("allocs") != std::string::npos) {
      EXPECT_FALSE(f.ci.has_value());
      continue;
    }
    ASSERT_TRUE(f.ci.has_value());
    EXPECT_TRUE(f.ci->has_interval());
    EXPECT_LE(f.ci->lo, f.value);
    EXPECT_GE(f.ci->hi, f.value);
    EXPECT_EQ(f.kind, f.id.find("_share") == std::string::npos ? FindingKind::Comparison
                                                               : FindingKind::Share);
    if (f.id.rfind("append_", 0) == 0 && f.id.find("vs_interpolate") != std::string::npos) {
      EXPECT_EQ(f.ci->method, CiMethod::PairedBootstrap);
    }
    EXPECT_DOUBLE_EQ(f.threshold, 0.02);
  }
  ASSERT_TRUE(run.machine.has_value());  // the machine's load around the run
  EXPECT_TRUE(run.machine->load_per_core_before.has_value());
  // The share of an append spent building its statement is reported for both builders.
  for (const char* b : {"interpolate", "iolist"}) {
    const Finding* f = test::find_finding(run, std::string("append_1.build_share.") + b);
    ASSERT_NE(f, nullptr) << b;
    EXPECT_GT(f->value, 0);
    EXPECT_LT(f->value, 1);
  }
  // Where an append's time goes: a stacked group, one stack per builder and writer count (and
  // one writer at RTT 1 ms), whose parts (each phase's median) add up to exactly 100%: the sum
  // of the phases' medians. A label is an identity: no measured figure in it.
  const Group* breakdown = run.group("append_breakdown");
  ASSERT_NE(breakdown, nullptr);
  EXPECT_TRUE(breakdown->stacked);
  const Series* build = run.find_series("append_breakdown", "build");
  ASSERT_NE(build, nullptr);
  EXPECT_EQ(build->points.size(), 15u);  // 5 builders × (2 writer counts + 1 writer at 1 ms)
  for (const auto& pt : build->points) {
    EXPECT_EQ(pt.label.find('%'), std::string::npos) << pt.label;
    double sum = 0;
    for (const char* phase : {"BEGIN", "check", "build", "INSERT", "COMMIT"}) {
      const Point* q = run.find_point("append_breakdown", phase, pt.label);
      ASSERT_NE(q, nullptr) << phase << " " << pt.label;
      EXPECT_GT(q->stats.median, 0) << phase;
      EXPECT_GT(q->extra.at("us"), 0) << phase;
      sum += q->stats.median;
    }
    EXPECT_NEAR(sum, 100.0, 1e-6) << pt.label;  // the stack is exactly 100%
  }
  // Pipelined appends are their own series, judged against four round trips.
  EXPECT_NE(run.find_point("append", "iolist pipelined", "single writer"), nullptr);
  const Finding* pipeline = test::find_finding(run, "append_1.pipeline_vs_round_trips.iolist");
  ASSERT_NE(pipeline, nullptr);
  EXPECT_GT(pipeline->value, 0);
  EXPECT_TRUE(pipeline->ci.has_value());  // with its interval and verdict
  EXPECT_TRUE(pipeline->verdict().has_value());
  // The payload sweep: appends and the build's share by bytes per event, for every builder, and
  // the largest share of the sweep.
  for (const char* b : {"interpolate", "iolist", "prepared", "unnest", "copy"}) {
    const Point* big = run.find_point("payload_append", b, "4096");
    ASSERT_NE(big, nullptr) << b;
    EXPECT_EQ(*big->x, 4096.0);
    const Point* share = run.find_point("payload_build_share", b, "4096");
    ASSERT_NE(share, nullptr) << b;
    EXPECT_GT(share->stats.median, 0);
    EXPECT_LT(share->stats.median, 100);
    const Finding* f = test::find_finding(run, std::string("payload.build_share_largest.") + b);
    ASSERT_NE(f, nullptr) << b;
    // A share like the others (not a byte count), with its interval.
    EXPECT_EQ(f->kind, FindingKind::Share) << b;
    EXPECT_GT(f->value, 0) << b;
    EXPECT_LE(f->value, 1) << b;
  }
  // The client library as a variable: libpq and libpqxx side by side, time and allocations.
  for (const char* b : {"interpolate", "iolist", "prepared"}) {
    for (const char* lib : {"libpq", "libpqxx"}) {
      EXPECT_NE(run.find_point("client_time", lib, b), nullptr) << lib << " " << b;
      const Point* a = run.find_point("client_allocs", lib, b);
      ASSERT_NE(a, nullptr) << lib << " " << b;
      EXPECT_GT(a->stats.median, 0);
    }
    // libpqxx copies every parameter into a string of its own: more allocations than libpq.
    EXPECT_GT(run.find_point("client_allocs", "libpqxx", b)->stats.median,
              run.find_point("client_allocs", "libpq", b)->stats.median);
    for (const std::string& id : {std::string("client.time.libpqxx_vs_libpq.") + b,
                                  std::string("client.allocs.libpqxx_vs_libpq.") + b})
      EXPECT_NE(test::find_finding(run, id), nullptr) << id;
  }
  EXPECT_EQ(run.find_series("client_time", "unnest"), nullptr);
  // network_rtt_ms=0,1 (the default): the appends again through the relay at 1 ms, judged the
  // same way, and the relay's own cost at 0 ms against the direct connection.
  const Point* far = run.find_point("append", "iolist", "single writer, RTT 1 ms");
  ASSERT_NE(far, nullptr);
  const Point* near = run.find_point("append", "iolist", "single writer");
  // Many writers through the relay are opt-in (rtt_writers, default 1).
  EXPECT_EQ(run.find_point("append", "iolist", "3 concurrent writers, RTT 1 ms"), nullptr);
  // Four round trips of at least 1 ms each: no append through the relay can take less than
  // 4 ms, however busy the machine (a lower bound that load cannot break, unlike a comparison
  // of medians with the direct appends).
  ASSERT_FALSE(far->samples.empty());
  EXPECT_GE(*std::min_element(far->samples.begin(), far->samples.end()), 4000.0);
  EXPECT_NE(near, nullptr);
  EXPECT_NE(run.find_point("relay_overhead", "relay at 0 ms", "single writer"), nullptr);
  EXPECT_NE(run.find_point("relay_overhead", "direct", "single writer"), nullptr);
  for (const char* id : {"append_1.rtt_1ms.pipeline_vs_round_trips.iolist", "relay.overhead",
                         "append_1.rtt_1ms.build_share.iolist"})
    EXPECT_NE(test::find_finding(run, id), nullptr) << id;
  EXPECT_EQ(run.findings.front().id, "append_1.build_share.interpolate");  // the panel leads
  ASSERT_FALSE(run.targets.empty());
  EXPECT_EQ(run.targets[0].kind, "postgres");
  EXPECT_EQ(run.targets[0].address.find("password"), std::string::npos);
  // What is written reads back.
  EXPECT_EQ(run_to_json(run_from_json(run_to_json(run))), run_to_json(run));
}

TEST(IoListExperiment, MeasuresToAPrecisionOrUntilTheBudgetEnds) {
  auto exp = make_iolist_experiment();
  Targets targets(test::isolated_pg(test::unique_name("perflab_prec")));
  std::map<std::string, std::string> p = {
      {"benchmarks", "append"}, {"builders", "interpolate,iolist"},
      {"writers", "1"},         {"events", "10"},
      {"repetitions", "6"},     {"warmup", "0"},
      {"precision", "50"},      {"verdicts", "false"}};
  // A loose goal: reached soon after the minimum of rounds (on a busy machine a round or two
  // more may be needed).
  perflab::Run run = execute(*exp, targets, p, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  const Point* a = run.find_point("append", "iolist", "single writer");
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->precision.has_value());
  EXPECT_TRUE(a->precision->reached);
  EXPECT_GE(a->precision->rounds, 6);
  EXPECT_LE(a->precision->worst_half_width, 0.5);
  EXPECT_EQ(a->samples.size(), static_cast<std::size_t>(a->precision->rounds));
  // An impossible goal in a 1 s budget: the point stops on the budget, not reached, having
  // measured at least the minimum; every builder has one sample per round.
  p["precision"] = "0.01";
  p["precision_budget_s"] = "1";
  const auto t0 = std::chrono::steady_clock::now();
  run = execute(*exp, targets, p, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));  // no hang
  a = run.find_point("append", "iolist", "single writer");
  const Point* b = run.find_point("append", "interpolate", "single writer");
  ASSERT_TRUE(a->precision.has_value());
  EXPECT_FALSE(a->precision->reached);
  EXPECT_GE(a->precision->rounds, 6);
  EXPECT_EQ(a->samples.size(), static_cast<std::size_t>(a->precision->rounds));
  EXPECT_EQ(b->samples.size(), a->samples.size());
  // What is written reads back, the precision included.
  const perflab::Run back = run_from_json(run_to_json(run));
  EXPECT_EQ(back.find_point("append", "iolist", "single writer")->precision->rounds,
            a->precision->rounds);
}

// rtt_writers chooses the writer counts measured through the relay, apart from `writers`.
TEST(IoListExperiment, WritersThroughTheRelayAreTheirOwnParameter) {
  auto exp = make_iolist_experiment();
  Targets targets(test::isolated_pg(test::unique_name("perflab_rttw")));
  perflab::Run run = execute(*exp, targets,
                             {{"benchmarks", "append"},
                              {"builders", "iolist"},
                              {"transports", "round_trips"},
                              {"writers", "1"},
                              {"rtt_writers", "2"},
                              {"network_rtt_ms", "0,1"},
                              {"repetitions", "2"},
                              {"warmup", "0"},
                              {"events", "10"},
                              {"verdicts", "false"}},
                             {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  EXPECT_NE(run.find_point("append", "iolist", "single writer"), nullptr);
  EXPECT_NE(run.find_point("append", "iolist", "2 concurrent writers, RTT 1 ms"), nullptr);
  EXPECT_EQ(run.find_point("append", "iolist", "single writer, RTT 1 ms"), nullptr);
  EXPECT_EQ(run.find_point("append", "iolist", "2 concurrent writers"), nullptr);
}

TEST(IoListExperiment, TouchesNothingOutsideItsSchema) {
  auto pg = test::shared_targets().postgres();
  PgConnection conn(pg.conninfo);
  const std::string user_schema = test::unique_name("users_own");
  conn.exec("CREATE SCHEMA " + user_schema);
  conn.exec("CREATE TABLE " + user_schema + ".events (id int, note text)");
  conn.exec("INSERT INTO " + user_schema + ".events VALUES (1, 'keep me'), (2, 'me too')");
  conn.exec("CREATE TABLE IF NOT EXISTS public.events (id int, note text)");
  conn.exec("INSERT INTO public.events VALUES (1, 'public row')");
  const std::string before(conn.exec("SELECT count(*) FROM public.events").value(0, 0));

  auto exp = make_iolist_experiment();
  Targets targets(test::isolated_pg(test::unique_name("perflab_safety")));
  perflab::Run run = execute(*exp, targets, kSmall, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  EXPECT_EQ(conn.exec("SELECT count(*) FROM public.events").value(0, 0), before);
  EXPECT_EQ(conn.exec("SELECT note FROM " + user_schema + ".events WHERE id = 1").value(0, 0),
            "keep me");
  EXPECT_EQ(conn.exec("SELECT count(*) FROM " + user_schema + ".events").value(0, 0), "2");
}

TEST(IoListExperiment, StopEndsTheRunQuicklyAndKeepsWhatWasMeasured) {
  auto exp = make_iolist_experiment();
  Targets targets(test::isolated_pg(test::unique_name("perflab_stop")));
  std::stop_source stop;
  std::chrono::steady_clock::time_point asked;
  const RunHooks hooks = test::at_first_step("repetition 3/", [&] {
    asked = std::chrono::steady_clock::now();
    stop.request_stop();
  });
  auto params = kSmall;
  params["benchmarks"] = "append";
  params["writers"] = "1";
  params["repetitions"] = "1000";
  params["network_rtt_ms"] = "0";  // stop in the appends, not in the relay's overhead
  perflab::Run run = execute(*exp, targets, params, hooks, stop.get_token());
  const auto took = std::chrono::steady_clock::now() - asked;
  EXPECT_EQ(run.status, RunStatus::Cancelled);
  const Point* p = run.find_point("append", "iolist", "single writer");
  ASSERT_NE(p, nullptr);
  EXPECT_GE(p->stats.n, 3u);
  EXPECT_LT(p->stats.n, 1000u);
  // Stop is honoured (the target, within a second, is the figure printed); the bound is far
  // above it, for a loaded machine with ASan, and far below the 1000 repetitions.
  std::printf(
      "the run ended %lld ms after Stop\n",
      static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()));
  EXPECT_LT(took, std::chrono::seconds(15));
}

TEST(IoListExperiment, UnreachableServerFailsWithAClearMessage) {
  auto exp = make_iolist_experiment();
  TargetsConfig cfg;
  cfg.pg_conninfo = "host=127.0.0.1 port=1 dbname=x user=x password=hunter2 connect_timeout=2";
  Targets targets(cfg);
  perflab::Run run;
  std::string message;
  try {
    run = execute(*exp, targets, {{"benchmarks", "append"}}, {}, {});
    message = run.message;
    EXPECT_EQ(run.status, RunStatus::Failed);
  } catch (const std::exception& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("127.0.0.1"), std::string::npos) << message;
  EXPECT_EQ(message.find("hunter2"), std::string::npos) << message;
  EXPECT_EQ(run_to_json(run).find("hunter2"), std::string::npos);
}

TEST(IoListExperiment, StoppedRunKeepsTheFiguresOfWhatItCompleted) {
  // Appends complete, then a stop while the read streams are written: the append ratios are
  // derived from what was measured (the run does not say "no derived figures").
  auto exp = make_iolist_experiment();
  Targets targets(test::isolated_pg(test::unique_name("perflab_stopfig")));
  std::stop_source stop;
  const RunHooks hooks = test::at_first_step("streams to read", [&] { stop.request_stop(); });
  auto params = kSmall;
  params["benchmarks"] = "append,read";
  params["writers"] = "1";
  perflab::Run run = execute(*exp, targets, params, hooks, stop.get_token());
  ASSERT_EQ(run.status, RunStatus::Cancelled) << run.message;
  EXPECT_EQ(run.find_series("read", "iolist"), nullptr);
  EXPECT_NE(test::find_finding(run, "append_1.iolist_vs_interpolate"), nullptr);
}

namespace {
const std::map<std::string, std::string> kCommit = {
    {"benchmarks", "append"}, {"builders", "iolist"},  {"transports", "round_trips"},
    {"writers", "1"},         {"repetitions", "3"},    {"warmup", "0"},
    {"events", "10"},         {"network_rtt_ms", "0"}, {"synchronous_commit", "on,off"},
    {"verdicts", "false"}};
}  // namespace

// On a server Perflab manages (its own, started here: durable, so COMMIT waits for a real WAL
// flush) synchronous_commit=off is measured beside on, with the flush's share as a finding, and
// the backend's CPU is read.
TEST(IoListExperiment, SynchronousCommitOffOnAManagedServer) {
  auto exp = make_iolist_experiment();
  Targets targets;  // managed
  perflab::Run run = execute(*exp, targets, kCommit, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  const Point* off = run.find_point("append", "iolist, synchronous_commit off", "single writer");
  ASSERT_NE(off, nullptr);
  EXPECT_EQ(off->stats.n, 3u);
  const Point* on = run.find_point("append", "iolist", "single writer");
  ASSERT_NE(on, nullptr);
  EXPECT_GT(on->extra.at("server_cpu"), 0);  // the backend's CPU, from schedstat
  const Finding* share = test::find_finding(run, "append_1.synchronous_commit_share.iolist");
  ASSERT_NE(share, nullptr);
  EXPECT_NE(share->text.find("durability"), std::string::npos) << share->text;
  EXPECT_EQ(share->kind, FindingKind::Share);
  for (const auto& v : test::finding_rule_violations(*share)) ADD_FAILURE() << v;
}

// By default each point measures until the ratios its findings state have verdicts: at an append
// point iolist / interpolate, iolist pipelined / four round trips and synchronous_commit off / on
// (three, on a managed server), within the run's budget; the run ends with its verdicts note.
TEST(IoListExperiment, ByDefaultAnAppendPointMeasuresToTheVerdictsOfItsFindings) {
  auto exp = make_iolist_experiment();
  Targets targets;  // managed: synchronous_commit off is measured
  std::string last;
  RunHooks hooks;
  hooks.progress = [&](double, std::string_view step) {
    if (step.find("to verdicts: ") != std::string_view::npos) last = step;
  };
  const auto t0 = std::chrono::steady_clock::now();
  perflab::Run run = execute(*exp, targets,
                             {{"benchmarks", "append"},
                              {"builders", "interpolate,iolist"},
                              {"transports", "round_trips,pipeline"},
                              {"synchronous_commit", "on,off"},
                              {"writers", "1"},
                              {"network_rtt_ms", "0"},
                              {"events", "10"},
                              {"repetitions", "6"},
                              {"warmup", "0"},
                              {"budget_s", "15"}},
                             hooks, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::minutes(5));  // no hang
  EXPECT_EQ(run.params.at("verdicts"), "true");                               // the default
  EXPECT_NE(last.find(" of 3 settled"), std::string::npos) << last;
  for (const char* series :
       {"interpolate", "iolist", "iolist pipelined", "iolist, synchronous_commit off"}) {
    const Point* p = run.find_point("append", series, "single writer");
    ASSERT_NE(p, nullptr) << series;
    ASSERT_TRUE(p->precision.has_value()) << series;
    EXPECT_TRUE(p->precision->by_verdicts);
    EXPECT_GE(p->precision->rounds, 6);
    EXPECT_EQ(p->samples.size(), static_cast<std::size_t>(p->precision->rounds));
  }
  // No finding compares interpolate pipelined: it is measured for the minimum rounds only, the
  // others for as long as their comparisons are open.
  const Point* untracked = run.find_point("append", "interpolate pipelined", "single writer");
  ASSERT_NE(untracked, nullptr);
  EXPECT_EQ(untracked->samples.size(), 6u);
  EXPECT_EQ(untracked->precision->rounds, 6);
  const Finding* note = test::find_finding(run, "verdicts");
  ASSERT_NE(note, nullptr);
  EXPECT_NE(note->text.find("comparisons reached a verdict"), std::string::npos) << note->text;
}

// On a server Perflab does not manage, synchronous_commit is never sent: the variant is skipped
// and the run says why.
TEST(IoListExperiment, SynchronousCommitIsNeverSentToAnExternalServer) {
  auto exp = make_iolist_experiment();
  Targets targets(test::isolated_pg(test::unique_name("perflab_commit")));
  std::string said;
  RunHooks hooks;
  hooks.progress = [&](double, std::string_view step) {
    if (step.find("synchronous_commit") != std::string_view::npos) said = step;
  };
  perflab::Run run = execute(*exp, targets, kCommit, hooks, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  EXPECT_EQ(run.find_series("append", "iolist, synchronous_commit off"), nullptr);
  EXPECT_NE(run.find_point("append", "iolist", "single writer"), nullptr);
  EXPECT_NE(said.find("not measured"), std::string::npos) << said;
  EXPECT_NE(run.group("append")->description.find("synchronous_commit=off was not measured"),
            std::string::npos);
}
