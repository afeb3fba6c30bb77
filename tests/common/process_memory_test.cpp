// The private memory of a process, from /proc: it grows by what the process touches.
#include "common/process_memory.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fcntl.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
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

namespace {

// A second copy of this program, started by the test below with this variable set, says it is
// up on its standard output, then waits for its standard input to close.
const bool kWaitingCopy = [] {
  if (!std::getenv("PROCESS_MEMORY_TEST_COPY")) return false;
  const char up = 'u';
  if (::write(1, &up, 1) == 1) {
    char c;
    while (::read(0, &c, 1) > 0) {
    }
  }
  _exit(0);
}();

}  // namespace

// The program's code is private only while no other process maps it: a second copy of this
// program (ctest runs several at once) must not move the figure.
TEST(ProcessMemory, DoesNotMoveWhenAnotherCopyOfTheProgramStarts) {
  ASSERT_FALSE(kWaitingCopy);
  int to_copy[2], from_copy[2];
  ASSERT_EQ(pipe2(to_copy, O_CLOEXEC), 0);  // the copy keeps only its dup2ed ends
  ASSERT_EQ(pipe2(from_copy, O_CLOEXEC), 0);
  char self[64];
  std::snprintf(self, sizeof self, "/proc/%d/exe", static_cast<int>(getpid()));
  const std::int64_t before = process_private_bytes(getpid());
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::dup2(to_copy[0], 0);
    ::dup2(from_copy[1], 1);
    ::setenv("PROCESS_MEMORY_TEST_COPY", "1", 1);
    execl(self, self, nullptr);
    _exit(127);
  }
  ::close(to_copy[0]);
  ::close(from_copy[1]);
  char up = 0;
  const bool started = ::read(from_copy[0], &up, 1) == 1 && up == 'u';
  const std::int64_t after = process_private_bytes(getpid());
  ::close(to_copy[1]);  // the copy exits
  ::close(from_copy[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(started);
  EXPECT_LT(std::llabs(after - before), 1 << 20) << before << " -> " << after;
}

TEST(ProcessMemory, IsUnknownForNoProcess) {
  EXPECT_EQ(process_private_bytes(0), -1);
  EXPECT_EQ(process_private_bytes(-5), -1);
  EXPECT_EQ(process_private_bytes(999999999), -1);
}
