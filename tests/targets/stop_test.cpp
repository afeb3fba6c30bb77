// Stopping managed servers: a Redis Cluster start that a stop request ends returns at once with
// nothing left behind, also while a node it waits for is frozen; and every managed server of a
// Targets stops side by side when it goes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <memory>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "servers.h"
#include "targets/freeze.h"
#include "targets/managed_redis.h"
#include "targets/managed_redis_cluster.h"
#include "targets/redis.h"
#include "targets/targets.h"

using namespace perflab;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using test::process_exists;

namespace {

// Far above the target (a stopped start returns within a second) for ASan on a loaded machine,
// and below what a start that ignored the stop would take with a frozen node: a node's start
// waits 30 s for it to answer, a command 10 s, the wait for the nodes to agree 90 s.
constexpr auto kStopBound = std::chrono::seconds(20);

// A redis-server in cluster mode this test process started: its pid, folder and port.
struct OwnNode {
  pid_t pid = -1;
  fs::path dir;
  int port = 0;
};

std::string read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// A cluster node of ours as its /proc entry shows it, or pid -1 when `pid` is not one (or has
// not exec'd yet). redis-server rewrites its command line into "redis-server 127.0.0.1:PORT
// [cluster]" once it runs, so the port is read from either form; its folder is its working
// directory.
OwnNode node_of(pid_t pid) {
  const fs::path proc = "/proc/" + std::to_string(pid);
  if (read_all(proc / "comm") != "redis-server\n") return {};
  std::error_code ec;
  const fs::path dir = fs::read_symlink(proc / "cwd", ec);
  if (ec || dir.filename().string().rfind("perflab-redis-cluster-", 0) != 0) return {};
  std::string line = read_all(proc / "cmdline");
  std::replace(line.begin(), line.end(), '\0', ' ');
  std::size_t at = line.find("--port ");
  at = at != std::string::npos ? at + 7 : line.find("127.0.0.1:");
  if (at == std::string::npos) return {};
  if (line.compare(at, 10, "127.0.0.1:") == 0) at += 10;
  const int port = std::atoi(line.c_str() + at);
  return port > 0 ? OwnNode{pid, dir, port} : OwnNode{};
}

// The cluster nodes among this process's children, in the order they were first seen (the
// order the cluster starts them in); ones seen before the test are left out.
class NodeWatch {
 public:
  NodeWatch() { look(); }
  void start_watching() { known_before_ = seen_pids_; }

  // Looks again; returns the nodes started since start_watching().
  const std::vector<OwnNode>& look() {
    for (pid_t pid : children_of(getpid())) {
      if (seen_pids_.count(pid)) continue;
      const OwnNode n = node_of(pid);
      if (n.pid < 0) continue;  // not exec'd yet, or not a node
      seen_pids_.insert(pid);
      if (!known_before_.count(pid)) nodes_.push_back(n);
    }
    return nodes_;
  }

  // Looks every millisecond until `done` holds for the nodes seen; false after `limit`.
  template <class Done>
  bool wait(Done done, std::chrono::seconds limit) {
    const auto deadline = Clock::now() + limit;
    while (!done(look())) {
      if (Clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  }

 private:
  std::set<pid_t> seen_pids_, known_before_;
  std::vector<OwnNode> nodes_;
};

bool answers(const OwnNode& n) {
  try {
    RedisClient c({"127.0.0.1", n.port, {}}, std::chrono::milliseconds(500));
    return c.command({"PING"}).str == "PONG";
  } catch (const RedisError&) {
    return false;
  }
}

// How a cluster start ended: "formed", "stopped: <message>" (StartStopped) or "failed: ...".
std::string start_cluster(ManagedRedisClusterOptions opts, std::stop_token stop) {
  try {
    ManagedRedisCluster cluster(opts, std::move(stop));
    return "formed";
  } catch (const StartStopped& e) {
    return std::string("stopped: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("failed: ") + e.what();
  }
}

// Starts a cluster of 3 masters on a thread; once `frozen_when` holds for the nodes seen, freezes
// the first one (so the start cannot finish), requests a stop 300 ms later and expects the start
// to end by that stop within kStopBound, every node it started stopped and its folder removed.
template <class When>
void expect_stop_ends_a_start_that_cannot_finish(When frozen_when) {
  NodeWatch watch;
  watch.start_watching();
  std::stop_source stop;
  ManagedRedisClusterOptions opts;
  opts.masters = 3;
  auto started = std::async(std::launch::async, start_cluster, opts, stop.get_token());

  ASSERT_TRUE(watch.wait(frozen_when, std::chrono::seconds(120)))
      << "the cluster's nodes did not start";
  const OwnNode first = watch.look().front();
  auto freeze = std::make_unique<Freeze>(first.pid);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto stop_at = Clock::now();
  stop.request_stop();
  const bool ended = started.wait_for(kStopBound) == std::future_status::ready;
  const double took = std::chrono::duration<double>(Clock::now() - stop_at).count();
  freeze.reset();  // thawed: a start that ignored the stop can end now
  const std::string outcome = started.get();

  EXPECT_TRUE(ended) << "the start went on " << took << " s after the stop";
  EXPECT_EQ(outcome.rfind("stopped: ", 0), 0u) << outcome;
  const auto nodes = watch.look();
  EXPECT_GE(nodes.size(), 1u);
  for (const OwnNode& n : nodes) {
    EXPECT_FALSE(process_exists(n.pid)) << "node " << n.port << " left running";
    EXPECT_FALSE(fs::exists(n.dir)) << n.dir << " left behind";
  }
  std::printf("the start ended %.2f s after the stop: %s\n", took, outcome.c_str());
}

}  // namespace

TEST(TargetsStop, StopEndsAClusterStartWhoseFirstNodeFreezesAtOnce) {
  // The first node frozen as soon as it runs, before or just after it first answered: the wait
  // for it to answer, or the commands to it, cannot finish.
  expect_stop_ends_a_start_that_cannot_finish(
      [](const std::vector<OwnNode>& nodes) { return !nodes.empty(); });
}

TEST(TargetsStop, StopEndsAClusterStartWhoseNodeIsFrozenWhileTheNodesMeet) {
  // Every node up and answering, then the first one frozen: the cluster's commands and its wait
  // for the nodes to agree cannot finish.
  expect_stop_ends_a_start_that_cannot_finish([](const std::vector<OwnNode>& nodes) {
    if (nodes.size() < 3) return false;
    for (const OwnNode& n : nodes)
      if (!answers(n)) return false;
    return true;
  });
}

TEST(TargetsStop, EveryManagedServerStopsSideBySide) {
  // PostgreSQL, its standby and PgBouncer, eight Redis servers (six of them frozen, so each
  // waits out its grace and is killed) and a Redis Cluster: all stopped, their folders removed.
  // Frozen ones stopped one after the other would take a grace each.
  constexpr int kRedis = 8, kFrozen = 6;
  TargetsConfig cfg;
  cfg.managed_pg.durable = false;
  cfg.managed_pg.max_connections = 100;
  auto targets = std::make_unique<Targets>(cfg);
  targets->pg_pooler();
  targets->postgres_standbys(1);
  targets->redis(kRedis);
  targets->redis_cluster();

  std::vector<std::pair<pid_t, fs::path>> servers;
  servers.emplace_back(targets->managed_postgres()->pid(), targets->managed_postgres()->data_dir());
  servers.emplace_back(targets->managed_pgbouncer()->pid(), targets->managed_pgbouncer()->dir());
  for (auto* s : targets->managed_standbys()) servers.emplace_back(s->pid(), s->data_dir());
  for (auto* r : targets->managed_redis()) servers.emplace_back(r->pid(), r->dir());
  ManagedRedisCluster& cluster = *targets->managed_cluster();
  for (std::size_t m = 0; m < cluster.masters(); ++m)
    servers.emplace_back(cluster.master(m).pid(), cluster.master(m).dir());
  ASSERT_EQ(servers.size(), 3 + std::size_t{kRedis} + cluster.masters());
  for (const auto& [pid, dir] : servers) ASSERT_TRUE(process_exists(pid)) << dir;

  std::vector<std::unique_ptr<Freeze>> frozen;
  for (int i = 0; i < kFrozen; ++i)
    frozen.push_back(
        std::make_unique<Freeze>(targets->managed_redis()[static_cast<std::size_t>(i)]->pid()));
  const auto t0 = Clock::now();
  targets.reset();
  const auto took = Clock::now() - t0;
  frozen.clear();

  for (const auto& [pid, dir] : servers) {
    EXPECT_FALSE(process_exists(pid)) << "pid " << pid << " of " << dir << " left running";
    EXPECT_FALSE(fs::exists(dir)) << dir << " left behind";
  }
  EXPECT_LT(took, kFrozen * kRedisStopGrace)
      << "the frozen servers were waited for one after the other";
  std::printf("%zu servers stopped in %.2f s\n", servers.size(),
              std::chrono::duration<double>(took).count());
}
