#pragma once
// perflab-cli as a user runs it: the fixture every CLI test uses (a subprocess with its stdout
// and stderr in files of the test's own folder, exit codes, the run plans the tests share).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/figure_format.h"
#include "common/run_io.h"
#include "servers.h"
#include "targets/managed_postgres.h"
#include "targets/managed_redis_cluster.h"
#include "targets/ownership.h"
#include "targets/pg_conninfo.h"
#include "targets/redis.h"
#include "targets/server_start.h"

extern char** environ;
using namespace perflab;
namespace fs = std::filesystem;

namespace cli_test {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

inline std::size_t lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

struct Result {
  int exit_code = -1;
  std::string out, err;
};

inline std::string slurp(const fs::path& p) {
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

  // Starts perflab-cli with stdout and stderr into files of the test's folder. Once the shared
  // managed PostgreSQL runs, its password is in the child's environment (PGPASSWORD), as a user
  // gives it: pg_conninfo() names the server on the command line without it.
  // `name` tells apart the output files of programs that run at the same time.
  pid_t spawn(std::vector<std::string> args, const std::string& name = {}) {
    args.insert(args.begin(), PERFLAB_CLI);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::string password;
    if (const ManagedPostgres* pg = test::shared_targets().managed_postgres())
      password = "PGPASSWORD=" + pg->passwords().user;
    std::vector<char*> envp;
    for (char** e = environ; *e; ++e)
      if (std::string_view(*e).rfind("PGPASSWORD=", 0) != 0) envp.push_back(*e);
    if (!password.empty()) envp.push_back(password.data());
    envp.push_back(nullptr);
    const std::string out = out_file(name).string(), err = err_file(name).string();
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = -1;
    EXPECT_EQ(posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data()), 0);
    posix_spawn_file_actions_destroy(&fa);
    return pid;
  }

  // Waits until stderr shows `text` (at most two minutes); false if it never does.
  bool wait_for_stderr(const std::string& text) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (slurp(err_file()).find(text) == std::string::npos) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }

  // Waits for perflab-cli to exit; one that hangs is killed after `limit` and fails the test.
  Result finish(pid_t pid, std::chrono::seconds limit = std::chrono::seconds(600),
                const std::string& name = {}) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        ADD_FAILURE() << "perflab-cli did not exit within " << limit.count() << " s: killed";
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    Result r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(out_file(name));
    r.err = slurp(err_file(name));
    return r;
  }

  // Runs perflab-cli; when interrupt_when is given, sends SIGINT once stderr shows it.
  Result cli(std::vector<std::string> args, const std::string& interrupt_when = {}) {
    const pid_t pid = spawn(std::move(args));
    if (!interrupt_when.empty()) {
      wait_for_stderr(interrupt_when);
      kill(pid, SIGINT);
    }
    return finish(pid);
  }

  fs::path out_file(const std::string& name = {}) const { return dir_ / (name + "stdout"); }
  fs::path err_file(const std::string& name = {}) const { return dir_ / (name + "stderr"); }

  // A run of the build micro-benchmark only (no server): quick, and a run file to read.
  std::vector<std::string> build_run(const std::string& out, const std::string& reps = "2") {
    return {"run",     "iolist",
            "--param", "benchmarks=build",
            "--param", "build_sizes=1,10",
            "--param", "build_sample_ms=1",
            "--param", "repetitions=" + reps,
            "--out",   out,
            "--quiet"};
  }

  // The shared managed PostgreSQL (started if need be) for --pg: its password is not in it (see
  // spawn).
  static std::string pg_conninfo() {
    return redact_conninfo(test::shared_targets().postgres().conninfo);
  }

  std::vector<std::string> small_run(const std::string& out) {
    return {"run",      "iolist",
            "--pg",     pg_conninfo(),
            "--schema", test::unique_name("perflab_cli"),
            "--param",  "writers=1,2",
            "--param",  "readers=1",
            "--param",  "repetitions=2",
            "--param",  "warmup=0",
            "--param",  "pgbench_repetitions=2",
            "--param",  "events=10",
            "--param",  "build_sizes=1,10",
            "--param",  "build_sample_ms=1",
            "--param",  "verdicts=false",  // fixed rounds
            "--out",    out};
  }

  fs::path dir_;
};

}  // namespace cli_test

using cli_test::Cli;
using cli_test::Clock;
using cli_test::lines;
using cli_test::Result;
using cli_test::seconds_since;
using cli_test::slurp;
