#include <gtest/gtest.h>

#include "common/figure_format.h"
#include "common/machine_noise.h"

using namespace perflab;

TEST(MachineNoise, ParsesLoadavg) {
  const auto l = parse_loadavg("1.52 0.58 0.09 3/467 12345\n");
  ASSERT_TRUE(l);
  EXPECT_DOUBLE_EQ(l->one, 1.52);
  EXPECT_DOUBLE_EQ(l->five, 0.58);
  EXPECT_DOUBLE_EQ(l->fifteen, 0.09);
  EXPECT_EQ(l->runnable, 3);
  EXPECT_EQ(l->entities, 467);

  EXPECT_FALSE(parse_loadavg(""));
  EXPECT_FALSE(parse_loadavg("1.52 0.58"));
  EXPECT_FALSE(parse_loadavg("high 0.58 0.09 3/467 1"));
  EXPECT_FALSE(parse_loadavg("1.52 0.58 0.09 3-467 1"));
}

TEST(MachineNoise, ParsesTheAggregateCpuLineOfProcStat) {
  const char* text =
      "cpu  10132153 290696 3084719 46828483 16683 0 25195 1875 175628 0\n"
      "cpu0 1393280 32966 572056 13343292 6130 0 17875 900 0 0\n"
      "cpu1 1335867 32960 560098 13514066 3966 0 3208 975 0 0\n"
      "intr 1462898 0 0\n"
      "ctxt 242233512\n";
  const auto c = parse_proc_stat(text);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->user, 10132153u);
  EXPECT_EQ(c->nice, 290696u);
  EXPECT_EQ(c->system, 3084719u);
  EXPECT_EQ(c->idle, 46828483u);
  EXPECT_EQ(c->iowait, 16683u);
  EXPECT_EQ(c->irq, 0u);
  EXPECT_EQ(c->softirq, 25195u);
  EXPECT_EQ(c->steal, 1875u);
  // guest (175628) is already inside user: not counted twice.
  EXPECT_EQ(c->total(), 10132153u + 290696u + 3084719u + 46828483u + 16683u + 25195u + 1875u);

  // An old kernel without iowait..steal columns.
  const auto old = parse_proc_stat("cpu 10 20 30 40\n");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->idle, 40u);
  EXPECT_EQ(old->steal, 0u);

  EXPECT_FALSE(parse_proc_stat("cpu0 1 2 3 4 5\n"));  // no aggregate line
  EXPECT_FALSE(parse_proc_stat("cpu 1 2 x 4\n"));
  EXPECT_FALSE(parse_proc_stat(""));
}

TEST(MachineNoise, JudgesABusyMachine) {
  MachineSnapshot before, after;
  before.cores = after.cores = 2;
  before.load = LoadAverage{2.0, 1, 1, 3, 400};  // 1.0 per core: others were running
  after.load = LoadAverage{6.0, 3, 1, 9, 400};   // the run's own load: not held against it
  CpuTimes c0, c1;
  c0.user = 1000, c0.idle = 1000, c0.steal = 50;
  c1.user = 1060, c1.idle = 1030, c1.steal = 60;  // 10 of 100 ticks stolen
  before.cpu = c0, after.cpu = c1;

  auto m = judge_machine(before, after);
  EXPECT_DOUBLE_EQ(*m.load_per_core_before, 1.0);
  EXPECT_DOUBLE_EQ(*m.load_per_core_after, 3.0);
  EXPECT_DOUBLE_EQ(*m.steal_share, 0.1);
  EXPECT_TRUE(m.loaded);
  EXPECT_TRUE(m.stolen);
  EXPECT_TRUE(m.busy());

  // Calm: 0.2 per core before, no steal; a high load after the run does not count.
  before.load->one = 0.4;
  c1.steal = 50;
  after.cpu = c1;
  m = judge_machine(before, after);
  EXPECT_FALSE(m.loaded);
  EXPECT_FALSE(m.stolen);
  EXPECT_FALSE(m.busy());
  EXPECT_DOUBLE_EQ(*m.steal_share, 0);

  // Nothing known (no /proc): nothing claimed.
  m = judge_machine(MachineSnapshot{}, MachineSnapshot{});
  EXPECT_FALSE(m.busy());
  EXPECT_FALSE(m.load_per_core_before);
  EXPECT_FALSE(m.steal_share);
}

// A build that just ended leaves the load average high for a minute, but the CPUs idle: the
// window just before the run is what judges, so Perflab's own build is not held against the
// machine.
TEST(MachineNoise, TheWindowBeforeTheRunJudgesNotTheLoadAverage) {
  MachineSnapshot window, before, after;
  window.cores = before.cores = after.cores = 2;
  window.load = before.load = LoadAverage{8.0, 4, 1, 1, 400};  // 4 per core: a build just ended
  CpuTimes c0, c1;
  c0.user = 1000, c0.idle = 1000;
  c1.user = 1005, c1.idle = 1095;  // 5 of 100 ticks busy in the window
  window.cpu = c0, before.cpu = c1, after.cpu = c1;
  auto m = judge_machine(before, after, {}, &window);
  EXPECT_NEAR(*m.busy_share_before, 0.05, 1e-9);
  EXPECT_FALSE(m.loaded);
  EXPECT_DOUBLE_EQ(*m.load_per_core_before, 4.0);  // recorded, not judged
  // Others busy in the window: 70 of 100 ticks.
  c1.user = 1070, c1.idle = 1030;
  before.cpu = c1;
  m = judge_machine(before, after, {}, &window);
  EXPECT_TRUE(m.loaded);
  EXPECT_EQ(describe_machine(m), "CPUs 70% busy with other work just before the run");
}

// An operation's ticks: every CPU's between two readings, and those with no thread ready to run
// (idle or waiting for I/O); counters that went back give nothing.
TEST(MachineNoise, CountsTheIdleTicksBetweenTwoReadings) {
  CpuTimes c0, c1;
  c0.user = 1000, c0.system = 200, c0.idle = 500, c0.iowait = 10, c0.softirq = 5;
  c1.user = 1100, c1.system = 230, c1.idle = 560, c1.iowait = 15, c1.softirq = 10;
  const auto t = idle_ticks(c0, c1);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->all, 200u);
  EXPECT_EQ(t->idle, 65u);
  EXPECT_FALSE(idle_ticks(c1, c0));
  const auto none = idle_ticks(c0, c0);  // no time between: nothing idle of nothing
  ASSERT_TRUE(none);
  EXPECT_EQ(none->all, 0u);
  EXPECT_TRUE(read_cpu_times());
}

TEST(MachineNoise, NoisyPointAboveTenPercent) {
  EXPECT_TRUE(noisy_point(0.11));
  EXPECT_FALSE(noisy_point(0.10));
  NoiseThresholds strict;
  strict.cv = 0.05;
  EXPECT_TRUE(noisy_point(0.06, strict));
}

TEST(MachineNoise, ReadsThisMachine) {
  const auto s = read_machine_snapshot();
  ASSERT_TRUE(s.load);
  ASSERT_TRUE(s.cpu);
  EXPECT_GE(s.cores, 1);
  EXPECT_GE(s.load->one, 0);
  EXPECT_GT(s.cpu->total(), 0u);
}
