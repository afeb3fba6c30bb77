#include <gtest/gtest.h>
#include <unistd.h>

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

TEST(Clocks, ThreadCpuAdvancesWithWork) {
  const auto c0 = thread_cpu_ns();
  const auto w0 = wall_ns();
  volatile double x = 0;
  while (thread_cpu_ns() - c0 < 5'000'000) x = x + 1;
  EXPECT_GE(thread_cpu_ns() - c0, 5'000'000);
  EXPECT_GE(wall_ns() - w0, 0);
  EXPECT_GE(process_cpu_ns(), thread_cpu_ns() - c0);
}

TEST(Clocks, OtherProcessCpu) {
  EXPECT_GE(other_process_cpu_ns(getpid()), 0);
  EXPECT_EQ(other_process_cpu_ns(0x7ffffff0), -1);
}
