#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/run_io.h"
#include "servers.h"

extern char** environ;
using namespace perflab;
namespace fs = std::filesystem;

namespace {

struct Result {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / test::unique_name("perflab-cli");
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs perflab-cli; when interrupt_when is given, sends SIGINT once stderr shows it.
  Result cli(std::vector<std::string> args, const std::string& interrupt_when = {}) {
    args.insert(args.begin(), PERFLAB_CLI);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string out = (dir_ / "stdout").string(), err = (dir_ / "stderr").string();
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = -1;
    EXPECT_EQ(posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    if (!interrupt_when.empty()) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
      while (slurp(err).find(interrupt_when) == std::string::npos &&
             std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      kill(pid, SIGINT);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    Result r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }

  std::vector<std::string> small_run(const std::string& out) {
    return {"run",      "iolist",
            "--pg",     test::shared_targets().postgres().conninfo,
            "--schema", test::unique_name("perflab_cli"),
            "--param",  "writers=1,2",
            "--param",  "readers=1",
            "--param",  "repetitions=2",
            "--param",  "warmup=0",
            "--param",  "events=10",
            "--param",  "build_sizes=1,10",
            "--param",  "build_sample_ms=1",
            "--out",    out};
  }

  fs::path dir_;
};

}  // namespace

TEST_F(Cli, UsageAndUnknownThingsExitNonZeroWithOneLine) {
  EXPECT_EQ(cli({}).exit_code, 2);
  auto r = cli({"run", "nosuch"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown experiment 'nosuch'"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(cli({"frobnicate"}).exit_code, 2);
  r = cli({"list"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("iolist"), std::string::npos);
  EXPECT_NE(r.out.find("--param writers=1,10,100"), std::string::npos);
}

TEST_F(Cli, BadParametersWriteNothing) {
  const auto out = dir_ / "bad.json";
  auto r = cli({"run", "iolist", "--param", "bogus=1", "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown parameter 'bogus'"), std::string::npos) << r.err;
  r = cli({"run", "iolist", "--param", "repetitions=0", "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'repetitions'"), std::string::npos) << r.err;
  r = cli({"run", "iolist", "--param", "nonsense", "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(Cli, UnreachableServerNamesItAndWritesNothing) {
  const auto out = dir_ / "dead.json";
  auto r = cli({"run", "iolist", "--pg", "host=127.0.0.1 port=1 user=x password=hunter2", "--param",
                "benchmarks=append", "--out", out.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("127.0.0.1"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("hunter2"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(Cli, UnreadableRunFilesAreClearErrors) {
  std::ofstream(dir_ / "junk.json") << "{ not json";
  auto r = cli({"compare", (dir_ / "junk.json").string(), (dir_ / "missing.json").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("junk.json"), std::string::npos) << r.err;
  r = cli({"export", (dir_ / "missing.json").string(), "--csv", (dir_ / "x.csv").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(fs::exists(dir_ / "x.csv"));
}

TEST_F(Cli, RunCompareExportChart) {
  const auto a = dir_ / "a.json", b = dir_ / "b.json";
  auto r = cli(small_run(a.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Append 10 events (us/op"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[article 0.78]"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("run written to"), std::string::npos);
  const perflab::Run run = load_run(a);
  EXPECT_EQ(run.status, RunStatus::Finished);
  ASSERT_EQ(cli(small_run(b.string())).exit_code, 0);

  r = cli({"compare", a.string(), b.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("append/iolist/single writer"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("new/old"), std::string::npos);
  r = cli({"compare", a.string(), b.string(), "-d", "percent"});
  EXPECT_NE(r.out.find("%"), std::string::npos);

  r = cli({"export", a.string(), "--csv", (dir_ / "a.csv").string(), "--gbench",
           (dir_ / "a.gbench.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(dir_ / "a.csv").rfind("group,series,label", 0), 0u);
  EXPECT_NE(slurp(dir_ / "a.gbench.json").find("\"benchmarks\""), std::string::npos);

  r = cli({"chart", a.string(), "--log", "--png", (dir_ / "a.png").string(), "--svg",
           (dir_ / "a.svg").string(), "--pdf", (dir_ / "a.pdf").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(dir_ / "a.png").substr(1, 3), "PNG");
  EXPECT_NE(slurp(dir_ / "a.svg").find("<svg"), std::string::npos);
  EXPECT_EQ(slurp(dir_ / "a.pdf").substr(0, 4), "%PDF");
}

TEST_F(Cli, InterruptKeepsWhatWasMeasured) {
  const auto out = dir_ / "int.json";
  auto args = small_run(out.string());
  args.push_back("--param");
  args.push_back("repetitions=1000");
  args.push_back("--param");
  args.push_back("benchmarks=build,append");
  args.push_back("--param");
  args.push_back("build_sizes=1");
  auto r = cli(args, "repetition 2/");
  EXPECT_EQ(r.exit_code, 130) << r.err;
  ASSERT_TRUE(fs::exists(out)) << r.err;
  const perflab::Run run = load_run(out);
  EXPECT_EQ(run.status, RunStatus::Cancelled);
  EXPECT_NE(run.find_point("build_time", "iolist", "1"), nullptr);
}
