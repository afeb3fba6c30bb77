// perflab-proxy over a managed Redis Cluster (--cluster): the conformance script answered as a
// single Redis answers it, MOVED and ASK followed, a seed that is no cluster refused.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/key_slot.h"
#include "proxy/pool_config.h"
#include "proxy/proxy.h"
#include "proxy/routing.h"
#include "proxy_test_support.h"
#include "servers.h"
#include "targets/child_process.h"
#include "targets/cluster.h"
#include "targets/managed_redis.h"
#include "targets/managed_redis_cluster.h"
#include "targets/owned_folder.h"
#include "targets/redis.h"
#include "targets/server_binary.h"
#include "targets/server_start.h"

using namespace perflab;
using namespace perflab::proxy;
using namespace perflab::proxy::support;

namespace {

ManagedRedisCluster& upstream_cluster() {
  static ManagedRedisCluster c;
  return c;
}

std::unique_ptr<Proxy> make_cluster_proxy() {
  ProxyOptions o;
  o.port = 0;
  o.cluster = {upstream_cluster().seeds()[1]};
  o.log_level = LogLevel::Warn;
  auto proxy = std::make_unique<Proxy>(o);
  proxy->start();
  return proxy;
}

TEST(ProxyOverCluster, SameRepliesAsASingleRedis) {
  auto proxy = make_cluster_proxy();
  EXPECT_EQ(proxy->options().nodes.size(), 3u);  // the masters
  flush_all(servers().single);
  RedisClient single(servers().single);
  RedisClient through(at(proxy->port()));
  EXPECT_EQ(run(through, {"FLUSHALL"}).str, "OK");
  for (const Cmd& cmd : script()) {
    std::string line;
    for (const auto& a : cmd) line += a + " ";
    EXPECT_EQ(show(run(through, cmd)), show(run(single, cmd))) << line;
  }
  // The MSET of six keys really spans several slots and masters; each key is on its owner.
  EXPECT_EQ(
      run(through, {"MSET", "k1", "1", "k2", "2", "k3", "3", "k4", "4", "k5", "5", "k6", "6"}).str,
      "OK");
  ClusterClient direct(upstream_cluster().seeds());
  std::set<std::string> owners;
  for (const char* k : {"k1", "k2", "k3", "k4", "k5", "k6"}) {
    const auto owner = *direct.owner(cluster_key_slot(k));
    owners.insert(owner.address());
    RedisClient node(owner);
    EXPECT_EQ(node.command({"GET", k}).str, std::string(1, k[1])) << k;
  }
  EXPECT_GE(owners.size(), 2u);
  EXPECT_EQ(run(through, {"DBSIZE"}).integer, 6);
  EXPECT_EQ(run(through, {"FLUSHALL"}).str, "OK");
}

// A slot moved under the proxy (MOVED) and a key of a migrating slot (ASK) are followed: the
// client, which knows nothing of clusters, sees only its values.
TEST(ProxyOverCluster, FollowsMovedAndAsk) {
  auto proxy = make_cluster_proxy();
  RedisClient through(at(proxy->port()));
  ClusterClient admin(upstream_cluster().seeds());
  std::vector<std::string> keys;
  for (int i = 0; i < 4; ++i) keys.push_back("perflab:test:{px}" + std::to_string(i));
  const int slot = cluster_key_slot(keys[0]);
  for (const auto& k : keys) ASSERT_EQ(run(through, {"SET", k, "v" + k}).str, "OK");
  const RedisEndpoint from = *admin.owner(slot);
  RedisEndpoint to;
  for (const auto& m : admin.masters())
    if (m.address() != from.address()) to = m;
  SlotMigration m(from, to, slot);
  m.begin();
  ASSERT_EQ(m.move_keys(2), 2u);  // two keys at the target: ASK for them
  for (const auto& k : keys) EXPECT_EQ(run(through, {"GET", k}).str, "v" + k) << k;
  EXPECT_EQ(show(run(through, {"MGET", keys[0], keys[3]})).find("ASK"), std::string::npos);
  while (m.move_keys(100) > 0) {
  }
  m.finish(admin.masters());
  // The slot is the target's: MOVED, the proxy's map updated, every key read and written.
  for (const auto& k : keys) EXPECT_EQ(run(through, {"GET", k}).str, "v" + k) << k;
  EXPECT_EQ(run(through, {"SET", keys[0], "after"}).str, "OK");
  RedisClient at_target(to);
  EXPECT_EQ(at_target.command({"GET", keys[0]}).str, "after");
  SlotMigration back(to, from, slot);
  back.begin();
  while (back.move_keys(100) > 0) {
  }
  back.finish(admin.masters());
  run(through, {"DEL", keys[0], keys[1], keys[2], keys[3]});
}

TEST(ProxyOverCluster, ASeedThatIsNoClusterIsAClearError) {
  ProxyOptions o;
  o.port = 0;
  o.cluster = {servers().single};
  try {
    Proxy p(o);
    FAIL() << "a plain Redis taken for a cluster";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(servers().single.address()), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("cluster"), std::string::npos) << e.what();
  }
  o.nodes = {servers().single};
  EXPECT_THROW(Proxy{o}, std::invalid_argument);
}

}  // namespace
