// Helper programs started through the managed-server spawner (no server involved).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "targets/child_process.h"
#include "targets/owned_folder.h"

using namespace perflab;

namespace {
std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
}  // namespace

TEST(ChildProcess, EnvironmentOnlyForTheChildAndSeparateStreams) {
  TempFolder dir("perflab-child-test-");
  ASSERT_TRUE(std::filesystem::is_directory(dir.path()));
  ChildProcessOptions o;
  o.args = {"-c", "echo \"out:$PERFLAB_CHILD_SECRET\"; echo err >&2; exit 3"};
  o.output = dir.path() / "out";
  o.errors = dir.path() / "err";
  o.environment = {"PERFLAB_CHILD_SECRET=s3cret"};
  ChildProcess p("/bin/sh", o);
  EXPECT_TRUE(p.wait());
  ASSERT_TRUE(p.exit_status().has_value());
  EXPECT_TRUE(WIFEXITED(*p.exit_status()));
  EXPECT_EQ(WEXITSTATUS(*p.exit_status()), 3);
  EXPECT_EQ(describe_exit_status(*p.exit_status()), "exited with status 3");
  EXPECT_EQ(slurp(dir.path() / "out"), "out:s3cret\n");
  EXPECT_EQ(slurp(dir.path() / "err"), "err\n");
  EXPECT_EQ(std::getenv("PERFLAB_CHILD_SECRET"), nullptr);
}

TEST(ChildProcess, StopRequestEndsItQuickly) {
  std::stop_source stop;
  ChildProcess p("/bin/sleep", {{"30"}, {}, {}, {}});
  EXPECT_TRUE(p.running());
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop.request_stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(p.wait(stop.get_token()));
  t.join();
  EXPECT_FALSE(p.running());
  // A stop ends the child rather than waiting for its 30 s; the bound is far above the
  // target (a second) for a loaded machine with ASan.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
}

TEST(ChildProcess, DestructorStopsAndFolderGoes) {
  std::filesystem::path folder;
  pid_t pid = -1;
  {
    TempFolder dir("perflab-child-test-");
    folder = dir.path();
    ChildProcess p("/bin/sleep", {{"30"}, {}, {}, {}});
    pid = p.pid();
    EXPECT_GT(pid, 0);
  }
  EXPECT_NE(kill(pid, 0), 0);  // reaped: no such process
  EXPECT_FALSE(std::filesystem::exists(folder));
}

// A server's data folder is removed without the caller waiting for its blocks: its path is free
// at once, and the folder (renamed beside it) is gone soon after, by a remover of its own.
TEST(OwnedFolder, ADetachedRemovalFreesThePathAtOnceAndRemovesEverything) {
  namespace fs = std::filesystem;
  const fs::path dir = make_owned_folder("perflab-detached-test-", {});
  fs::create_directories(dir / "data" / "pg_wal");
  for (int i = 0; i < 8; ++i) {
    std::ofstream f(dir / "data" / "pg_wal" / ("segment" + std::to_string(i)));
    f << std::string(1 << 20, 'x');
  }
  const fs::path away = dir.parent_path() / ("perflab-removed-" + dir.filename().string());
  remove_folder_detached(dir);
  EXPECT_FALSE(fs::exists(dir));
  // "It ends, nothing is left": the bound is far above what rm takes on a loaded machine.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (fs::exists(away) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(fs::exists(away)) << away;
  remove_folder_detached({});  // nothing to do; reaps the remover that ended
}

TEST(ChildProcess, MissingProgramIsAClearError) {
  try {
    ChildProcess p("/nonexistent/perflab-tool", {});
    FAIL();
  } catch (const ServerError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/perflab-tool"), std::string::npos)
        << e.what();
  }
}

// Managed servers run as a user of their own, never as the shared "nobody" or as root: without
// one, the refusal says how to make it.
TEST(ChildProcess, ServersRunAsAUserOfTheirOwn) {
  if (geteuid() != 0) {
    EXPECT_FALSE(unprivileged_credentials().drop);  // Perflab's own user
    GTEST_SKIP() << "as root, the servers' user is chosen";
  }
  const Credentials c = unprivileged_credentials();
  EXPECT_TRUE(c.drop);
  EXPECT_EQ(c.user, "postgres");
  EXPECT_NE(c.uid, 0u);
  try {
    unprivileged_credentials("perflab-no-such-user");
    FAIL() << "ran as a user that does not exist";
  } catch (const ServerError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("no user 'perflab-no-such-user'"), std::string::npos) << m;
    EXPECT_NE(m.find("adduser --system --group perflab-no-such-user"), std::string::npos) << m;
  }
  EXPECT_THROW(unprivileged_credentials("root"), ServerError);
}
