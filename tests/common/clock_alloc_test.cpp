#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "common/alloc_counter.h"
#include "common/clock.h"

using namespace perflab;

TEST(AllocCounter, CountsThisThreadsAllocations) {
  AllocScope scope;
  auto a = std::make_unique<std::vector<int>>(1000);
  auto d = scope.delta();
  EXPECT_EQ(d.allocations, 2u);  // the vector object and its buffer
  EXPECT_GE(d.bytes, 1000 * sizeof(int));
}

TEST(AllocCounter, OtherThreadsDoNotCount) {
  AllocScope scope;
  std::thread t([] {
    std::vector<std::unique_ptr<int>> v;
    for (int i = 0; i < 100; ++i) v.push_back(std::make_unique<int>(i));
  });
  const auto before_join = scope.delta();
  t.join();
  // Only the thread object's own state may have been allocated here, never the 100 ints.
  EXPECT_LT(scope.delta().allocations, 10u);
  EXPECT_LE(before_join.allocations, scope.delta().allocations);
}

// Busy until this thread's CPU clock has advanced by 50 ms, however long a loaded machine makes
// that take (bounded far above it: nothing hangs): the thread clock advances with work, never by
// more than the wall time that passed, and the process clock counts it too. The process clock
// is read with a coarser granularity than the thread clock, so it is allowed one scheduler tick
// (10 ms) behind; comparing the two exactly failed on a loaded machine (41,420,953 ns against
// 41,440,179).
TEST(Clocks, ThreadCpuAdvancesWithWork) {
  constexpr std::int64_t kWorkNs = 50'000'000, kTickNs = 10'000'000;
  const auto c0 = thread_cpu_ns();
  const auto p0 = process_cpu_ns();
  const auto w0 = wall_ns();
  volatile double x = 0;
  while (thread_cpu_ns() - c0 < kWorkNs && wall_ns() - w0 < 120'000'000'000) x = x + 1;
  const auto cpu = thread_cpu_ns() - c0;
  const auto wall = wall_ns() - w0;
  EXPECT_GE(cpu, kWorkNs) << "the thread clock did not advance with work in " << wall << " ns";
  EXPECT_LE(cpu, wall + 1'000'000);  // one thread cannot use more CPU than time passed
  EXPECT_GE(process_cpu_ns() - p0 + kTickNs, cpu);
}

// Sleeping costs (almost) no CPU, and another thread's work is not this thread's CPU time but
// is the process's.
TEST(Clocks, ThreadCpuStandsStillWhileWaiting) {
  const auto c0 = thread_cpu_ns();
  const auto w0 = wall_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_GE(wall_ns() - w0, 100'000'000);
  EXPECT_LT(thread_cpu_ns() - c0, 20'000'000);

  const auto c1 = thread_cpu_ns();
  const auto p1 = process_cpu_ns();
  std::int64_t worker_cpu = 0;
  std::thread worker([&] {
    const auto start = thread_cpu_ns();
    const auto deadline = wall_ns() + 10'000'000'000;  // a broken clock fails, never hangs
    volatile double y = 0;
    while (thread_cpu_ns() - start < 50'000'000 && wall_ns() < deadline) y = y + 1;
    worker_cpu = thread_cpu_ns() - start;
  });
  worker.join();  // waits: no CPU of its own to speak of
  EXPECT_GE(worker_cpu, 50'000'000);
  EXPECT_LT(thread_cpu_ns() - c1, 20'000'000);
  EXPECT_GE(process_cpu_ns() - p1, worker_cpu);
}

TEST(Clocks, OtherProcessCpu) {
  EXPECT_GE(other_process_cpu_ns(getpid()), 0);
  EXPECT_EQ(other_process_cpu_ns(0x7ffffff0), -1);
}

// Two threads spinning on one CPU take turns: each waits while the other runs, and the run delay
// counts that wait (it is the thread's own, read through its own descriptor).
TEST(Clocks, RunDelayCountsTheWaitForACpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  const auto spin = [&](std::int64_t& delay) {
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    const ThreadRunDelay d;
    const std::int64_t d0 = d.ns();
    ASSERT_GE(d0, 0);
    const auto start = thread_cpu_ns();
    const auto deadline = wall_ns() + 10'000'000'000;  // a broken clock fails, never hangs
    volatile double y = 0;
    while (thread_cpu_ns() - start < 100'000'000 && wall_ns() < deadline) y = y + 1;
    delay = d.ns() - d0;
  };
  std::int64_t a = -1, b = -1;
  std::thread first([&] { spin(a); }), second([&] { spin(b); });
  first.join();
  second.join();
  // Each spun 100 ms of CPU on a CPU they shared: together they waited at least ~100 ms.
  EXPECT_GE(a, 0);
  EXPECT_GE(b, 0);
  EXPECT_GT(a + b, 50'000'000);
}
