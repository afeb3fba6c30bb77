// What a many-client point says of the machine beside its times: the clock ticks of every CPU
// during an operation and the idle ones among them, pooled over a point's operations, and the
// idle share as a finding only where each operation spans enough ticks to give it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "finding_rules.h"
#include "iolist/client_pool.h"
#include "iolist/iolist_run.h"
#include "run_probes.h"
#include "runner/experiment.h"

using namespace perflab;
using namespace perflab::iolist;
using perflab::test::find_finding;

namespace {

// Operations of a point: wall and CPU times, and the machine's ticks all and idle.
Samples operations(std::vector<double> machine, std::vector<double> idle) {
  Samples s;
  for (std::size_t i = 0; i < machine.size(); ++i) {
    ClientPoolSample one;
    one.wall_us = 1e6, one.cpu_us = 1e5, one.wait_us = 2e5;
    one.machine_ticks = machine[i], one.idle_ticks = idle[i];
    s.add(one);
  }
  return s;
}

}  // namespace

// A thread per CPU, each busy for 300 ms: the operation spans the ticks of every CPU and leaves
// few of them idle (others' work on a loaded machine only makes it fewer).
TEST(ClientUse, AnOperationCountsTheMachinesTicksAndTheIdleOnes) {
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  ReleasedThreads threads(cores, [](std::size_t) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    std::atomic<unsigned> spins = 0;
    while (std::chrono::steady_clock::now() < until) spins.fetch_add(1, std::memory_order_relaxed);
  });
  const ClientPoolSample s = threads.run();
  EXPECT_GE(s.wall_us, 300'000);
  // 300 ms of each CPU are 30 ticks of it (a tick is 10 ms): at least most of them counted.
  EXPECT_GE(s.machine_ticks, 20.0 * double(cores));
  EXPECT_GE(s.idle_ticks, 0);
  EXPECT_LE(s.idle_ticks, s.machine_ticks);
  EXPECT_LT(s.idle_ticks, 0.25 * s.machine_ticks);
}

// The idle share of a point is its operations' idle ticks over all of them, pooled: a short
// operation's few ticks weigh as little as they measured.
TEST(ClientUse, APointsIdleShareIsPooledOverItsOperations) {
  const Samples s = operations({100, 300}, {50, 0});
  ASSERT_EQ(s.machine_ticks.size(), 2u);
  Point p;
  add_client_use(p, s, 10, 2);
  EXPECT_DOUBLE_EQ(p.extra.at("machine_idle_pct"), 12.5);  // 50 of 400, not (50% + 0%) / 2
  EXPECT_DOUBLE_EQ(p.extra.at("client_cpu_wait_pct"), 10.0);

  // Where /proc/stat could not be read the point has no idle share, not a zero.
  Samples unread;
  unread.add(ClientPoolSample{1e6, 1e5, 2e5});
  Point q;
  add_client_use(q, unread, 10, 2);
  EXPECT_EQ(q.extra.count("machine_idle_pct"), 0u);
}

TEST(ClientUse, TheIdleShareIsAFindingWhereEveryOperationSpansEnoughTicks) {
  Targets targets;  // managed: nothing starts
  perflab::Run run;
  RunContext ctx(targets, Params{}, RunHooks{}, {}, run);
  const ClientCpuSpec spec{
      "",       "pooled_10.client_share.direct.copy", "Append, 10 clients", "pooled",
      "append", "pooled_10.machine_idle.direct.copy"};
  client_cpu_findings(ctx, spec, 10, operations({100, 200, 150, 120}, {10, 20, 15, 12}));
  const Finding* idle = find_finding(run, "pooled_10.machine_idle.direct.copy");
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(idle->kind, FindingKind::Share);
  EXPECT_NEAR(idle->value, 0.10, 1e-9);
  ASSERT_TRUE(idle->ci);
  EXPECT_NE(idle->text.find("idle"), std::string::npos) << idle->text;
  for (const auto& f : run.findings)
    for (const auto& v : test::finding_rule_violations(f)) ADD_FAILURE() << f.id << ": " << v;

  // One operation of 40 ticks: its share moves in steps of 2.5%, so no finding is made.
  perflab::Run short_run;
  RunContext short_ctx(targets, Params{}, RunHooks{}, {}, short_run);
  client_cpu_findings(short_ctx, spec, 10, operations({100, 40, 150}, {10, 4, 15}));
  EXPECT_EQ(find_finding(short_run, "pooled_10.machine_idle.direct.copy"), nullptr);
  EXPECT_NE(find_finding(short_run, "pooled_10.client_share.direct.copy"), nullptr);
}
