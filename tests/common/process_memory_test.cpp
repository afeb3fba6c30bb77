// The private memory of a process, from /proc: it grows by what the process touches.
#include "common/process_memory.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <memory>

using namespace perflab;

TEST(ProcessMemory, GrowsByThePagesThisProcessTouches) {
  const std::int64_t before = process_private_bytes(getpid());
  ASSERT_GT(before, 0);
  constexpr std::size_t kBytes = 64u << 20;
  auto block = std::make_unique<char[]>(kBytes);
  std::memset(block.get(), 1, kBytes);  // touched: private, dirty pages
  const std::int64_t after = process_private_bytes(getpid());
  EXPECT_GE(after - before, std::int64_t(kBytes) * 9 / 10) << before << " -> " << after;
  EXPECT_EQ(block[kBytes - 1], 1);
}

TEST(ProcessMemory, IsUnknownForNoProcess) {
  EXPECT_EQ(process_private_bytes(0), -1);
  EXPECT_EQ(process_private_bytes(-5), -1);
  EXPECT_EQ(process_private_bytes(999999999), -1);
}
