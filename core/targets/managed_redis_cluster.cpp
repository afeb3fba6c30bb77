#include "targets/managed_redis_cluster.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/key_slot.h"
#include "targets/cluster.h"
#include "targets/redis.h"
#include "targets/server_start.h"
#include "targets/side_by_side.h"

namespace perflab {
namespace {

using Clock = std::chrono::steady_clock;

// The slot map as a node tells it, in a form two nodes can be compared by.
std::string slot_map_text(const std::vector<ClusterSlotRange>& ranges) {
  std::string out;
  for (const auto& r : ranges) {
    out.append(std::to_string(r.first)).append("-").append(std::to_string(r.last));
    out.append("@").append(r.master.address());
    for (const auto& rep : r.replicas) out.append("+").append(rep.address());
    out.append(" ");
  }
  return out;
}

RedisReply checked(RedisClient& c, const std::vector<std::string_view>& argv) {
  RedisReply r = c.command(argv);
  if (r.type == RedisReply::Type::Error)
    throw ServerError("Redis Cluster node " + c.endpoint().address() + ": " + std::string(argv[0]) +
                      " " + std::string(argv.size() > 1 ? argv[1] : "") + " failed: " + r.str);
  return r;
}

constexpr auto kNodeCommandTimeout = std::chrono::seconds(10);

// What keeps the running nodes from being a cluster that is ok (see wait_ok); empty when
// nothing does.
std::string cluster_not_ok(const std::vector<std::unique_ptr<ManagedRedis>>& nodes, bool replicas,
                           const std::stop_token& stop) {
  std::string first_map;
  for (const auto& n : nodes) {
    if (!n->running()) continue;
    try {
      RedisClient c(n->endpoint(), kNodeCommandTimeout, stop);
      const RedisReply info = c.command({"CLUSTER", "INFO"});
      if (redis_info_field(info.str, "cluster_state") != "ok")
        return n->endpoint().address() +
               " reports cluster_state:" + redis_info_field(info.str, "cluster_state");
      const auto ranges = parse_cluster_slots(c.command({"CLUSTER", "SLOTS"}), n->endpoint());
      const auto replicated = static_cast<std::size_t>(std::count_if(
          ranges.begin(), ranges.end(), [](const auto& r) { return !r.replicas.empty(); }));
      const std::string map = slot_map_text(ranges);
      if (first_map.empty()) first_map = map;
      if (map != first_map) return "the nodes do not agree on the slot map yet";
      // With every node up, every master has its replica (and a replica counts once it is
      // in sync with its master, below).
      const bool all_up =
          std::all_of(nodes.begin(), nodes.end(), [](const auto& node) { return node->running(); });
      if (replicas && all_up && replicated < ranges.size())
        return "not every master has its replica yet";
      const RedisReply repl = c.command({"INFO", "replication"});
      if (repl.str.find("role:slave") != std::string::npos &&
          repl.str.find("master_link_status:up") == std::string::npos)
        return "replica " + n->endpoint().address() + " is not in sync with its master";
    } catch (const RedisError& e) {
      return e.what();
    }
  }
  return {};
}

}  // namespace

ManagedRedisCluster::ManagedRedisCluster(ManagedRedisClusterOptions opts, std::stop_token stop)
    : opts_(opts) {
  if (opts_.masters < 3 || opts_.masters > 16)
    throw ServerError("a managed Redis Cluster has 3 to 16 masters, not " +
                      std::to_string(opts_.masters));
  try {
    form(stop);
  } catch (const StartStopped&) {
    stop_nodes();
    throw;
  } catch (...) {
    stop_nodes();  // side by side, before the error leaves
    throw_if_stopped(stop, "forming the managed Redis Cluster");  // a command the stop ended
    throw;
  }
}

void ManagedRedisCluster::form(const std::stop_token& stop) {
  const ManagedRedisOptions node_opts{true, opts_.node_timeout};
  const int total = opts_.masters * (opts_.replicas ? 2 : 1);
  for (int i = 0; i < total; ++i) nodes_.push_back(std::make_unique<ManagedRedis>(node_opts, stop));

  std::vector<RedisClient> clients;
  std::vector<std::string> ids;
  for (const auto& n : nodes_) {
    clients.emplace_back(n->endpoint(), kNodeCommandTimeout, stop);
    ids.push_back(checked(clients.back(), {"CLUSTER", "MYID"}).str);
  }
  // Slots split evenly in order, as redis-cli --cluster create does; each master its own
  // config epoch, so that no collision has to be resolved first.
  for (int m = 0; m < opts_.masters; ++m) {
    const int first = kClusterSlots * m / opts_.masters;
    const int last = kClusterSlots * (m + 1) / opts_.masters - 1;
    RedisClient& c = clients[static_cast<std::size_t>(m)];
    checked(c, {"CLUSTER", "SET-CONFIG-EPOCH", std::to_string(m + 1)});
    checked(c, {"CLUSTER", "ADDSLOTSRANGE", std::to_string(first), std::to_string(last)});
  }
  for (std::size_t i = 1; i < nodes_.size(); ++i)
    checked(clients[0], {"CLUSTER", "MEET", "127.0.0.1", std::to_string(nodes_[i]->port()),
                         std::to_string(nodes_[i]->cluster_bus_port())});

  const auto deadline = Clock::now() + opts_.ready_within;
  // Replicas can only follow a master they know: every node must know every other first.
  const bool all_known = poll_until(
      deadline,
      [&] {
        for (auto& c : clients)
          if (redis_info_field(checked(c, {"CLUSTER", "INFO"}).str, "cluster_known_nodes") !=
              std::to_string(nodes_.size()))
            return false;
        return true;
      },
      stop);
  throw_if_stopped(stop, "the managed Redis Cluster's nodes were meeting");
  if (!all_known)
    throw ServerError("the managed Redis Cluster was not ready within " +
                      std::to_string(opts_.ready_within.count()) +
                      " s: not every node knows every other; " +
                      log_tail(nodes_.front()->dir() / "redis.log", 5));
  if (opts_.replicas)
    for (int m = 0; m < opts_.masters; ++m)
      checked(clients[static_cast<std::size_t>(opts_.masters + m)],
              {"CLUSTER", "REPLICATE", ids[static_cast<std::size_t>(m)]});
  wait_ok(std::chrono::duration_cast<std::chrono::milliseconds>(
              std::max(deadline - Clock::now(), Clock::duration(0))),
          stop);
}

ManagedRedisCluster::~ManagedRedisCluster() {
  stop_nodes();
}

void ManagedRedisCluster::stop_nodes() {
  std::vector<std::function<void()>> stops;
  for (auto& n : nodes_) stops.emplace_back([&n] { n.reset(); });
  run_side_by_side(std::move(stops));
  nodes_.clear();
}

std::vector<RedisEndpoint> ManagedRedisCluster::seeds() const {
  std::vector<RedisEndpoint> out;
  for (const auto& n : nodes_) out.push_back(n->endpoint());
  return out;
}

ManagedRedis* ManagedRedisCluster::replica_of(std::size_t i) {
  if (!opts_.replicas || i >= masters()) return nullptr;
  return nodes_.at(masters() + i).get();
}

void ManagedRedisCluster::wait_ok(std::chrono::milliseconds limit, std::stop_token stop) const {
  std::string missing;
  const bool ok = poll_until(
      Clock::now() + limit,
      [&] {
        missing = cluster_not_ok(nodes_, opts_.replicas, stop);
        return missing.empty();
      },
      stop);
  throw_if_stopped(stop, "waiting for the managed Redis Cluster to agree");
  if (!ok)
    throw ServerError("the managed Redis Cluster was not ready within " +
                      std::to_string(limit.count() / 1000) + " s: " + missing);
}

}  // namespace perflab
