// Smoke runs of the release build: each experiment once, with its smallest parameters, on
// managed servers, through the perflab-cli a user runs. The run file must say "finished" and
// hold every chart the experiment draws, each with points, and its findings, none of which may
// say what its own numbers refute.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/run_io.h"
#include "finding_rules.h"

extern char** environ;
namespace fs = std::filesystem;
using namespace perflab;

namespace {

struct Smoke {
  std::string experiment;
  std::map<std::string, std::string> params;  // the smallest plan that still draws every chart
  std::set<std::string> groups;               // every chart it draws
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Runs perflab-cli; kills it after `limit` (a hang is a failure, not a wait).
int run_cli(const std::vector<std::string>& args, const fs::path& log, std::chrono::seconds limit) {
  std::vector<std::string> all{PERFLAB_CLI};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGINT);
      std::this_thread::sleep_for(std::chrono::seconds(2));
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class SmokeRun : public ::testing::TestWithParam<Smoke> {};

TEST_P(SmokeRun, FinishesWithEveryChart) {
  const Smoke& s = GetParam();
  const fs::path dir = fs::temp_directory_path() / ("perflab-smoke-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path out = dir / (s.experiment + ".json"), log = dir / (s.experiment + ".log");
  std::vector<std::string> args{"run", s.experiment, "--quiet", "--out", out.string()};
  for (const auto& [k, v] : s.params) args.insert(args.end(), {"--param", k + "=" + v});

  const int code = run_cli(args, log, std::chrono::minutes(10));
  ASSERT_EQ(code, 0) << "perflab-cli " << s.experiment << " exited " << code << ":\n" << slurp(log);
  const perflab::Run run = load_run(out);
  EXPECT_EQ(run.status, RunStatus::Finished) << run.message;
  EXPECT_TRUE(run.message.empty()) << run.message;
  std::set<std::string> drawn;
  for (const auto& g : run.groups) {
    bool has_points = false;
    for (const auto& ser : run.series)
      if (ser.group == g.id && !ser.points.empty()) has_points = true;
    EXPECT_TRUE(has_points) << "chart '" << g.id << "' has no points";
    drawn.insert(g.id);
  }
  EXPECT_EQ(drawn, s.groups);
  EXPECT_FALSE(run.findings.empty());
  // No finding says what its own numbers refute (docs/verdicts.md).
  for (const auto& f : run.findings)
    for (const auto& v : perflab::test::finding_rule_violations(f))
      ADD_FAILURE() << v << "\n  " << finding_sentence(f);
  EXPECT_FALSE(run.targets.empty());
  fs::remove_all(dir);
}

std::string name(const ::testing::TestParamInfo<Smoke>& info) {
  return info.param.experiment;
}

INSTANTIATE_TEST_SUITE_P(
    Experiments, SmokeRun,
    ::testing::Values(Smoke{"iolist",
                            {{"events", "1"},
                             {"writers", "1"},
                             {"readers", "1"},
                             {"repetitions", "1"},
                             {"warmup", "0"},
                             {"build_sizes", "1"},
                             {"build_sample_ms", "1"},
                             {"pgbench_ms", "10"},
                             {"pgbench_repetitions", "1"},
                             {"verdicts", "false"}},
                            {"build_time", "build_allocs", "build_bytes", "append",
                             "append_breakdown", "relay_overhead", "read", "payload_append",
                             "payload_build_share", "client_time", "client_allocs"}},
                      Smoke{"sharding",
                            {{"depths", "1"},
                             {"repetitions", "1"},
                             {"clients", "1"},
                             {"requests", "10"},
                             {"nodes", "2"},
                             {"point_budget_s", "0.2"},
                             {"distribution_keys", "100"},
                             {"verdicts", "false"}},
                            {"sweep_set", "sweep_get", "sweep_mset", "dist_nodes", "dist_moved"}},
                      Smoke{"caching",
                            {{"repetitions", "1"},
                             {"warmup", "0"},
                             {"server_cpu_window_ms", "0"},
                             {"list_size", "1"},
                             {"document_kb", "1"},
                             {"aside_keys", "1"},
                             {"aside_reads", "1"},
                             {"aside_budgets_mb", "1"}},
                            {"document_wall", "document_cpu", "document_server_cpu",
                             "document_bytes", "document_get_parts", "document_get_parts_us",
                             "list_wall", "list_cpu", "list_server_cpu", "list_bytes",
                             "list_get_parts", "list_get_parts_us", "decode_time", "decode_allocs",
                             "decode_rate", "aside_hit_ratio", "aside_latency"}}),
    name);

}  // namespace
