// write_all: a whole buffer through a pipe that takes it in pieces, and an error with its errno.
#include "common/fd_write.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <thread>

using namespace perflab;

TEST(FdWrite, AWholeBufferGoesThroughAPipeThatTakesItInPieces) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::string data(1 << 20, '\0');  // 16 times a pipe's 64 KiB: written in pieces
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7 + i / 4096);
  std::string got;
  std::thread reader([&] {
    char buf[5000];  // reads smaller than the writes
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
      got.append(buf, static_cast<std::size_t>(n));
  });
  EXPECT_TRUE(write_all(fds[1], data));
  ::close(fds[1]);
  reader.join();
  ::close(fds[0]);
  EXPECT_TRUE(got == data) << got.size() << " of " << data.size() << " bytes";
  EXPECT_TRUE(write_all(-1, ""));  // nothing to write: no call, no error
}

TEST(FdWrite, AnErrorIsReportedWithItsErrno) {
  errno = 0;
  EXPECT_FALSE(write_all(-1, "x"));
  EXPECT_EQ(errno, EBADF);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[1]);
  EXPECT_FALSE(write_all(fds[1], "x"));
  EXPECT_EQ(errno, EBADF);
  ::close(fds[0]);
}
