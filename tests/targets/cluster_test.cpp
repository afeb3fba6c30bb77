// Redis Cluster against real redis-server processes in cluster mode, started by the project's
// own managed-server code: the managed cluster, CRC16 slots against CLUSTER KEYSLOT, and the
// cluster client (routing, pipelines split by owner, MOVED, ASK, CROSSSLOT, a node that is down).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/key_slot.h"
#include "servers.h"
#include "targets/cluster.h"
#include "targets/managed_redis.h"
#include "targets/managed_redis_cluster.h"
#include "targets/ownership.h"
#include "targets/targets.h"

using namespace perflab;

namespace {

// A cluster of 3 masters shared by the tests that leave its slot map as they found it.
ManagedRedisCluster& shared_cluster() {
  static ManagedRedisCluster c;
  return c;
}

// The ownership marks of `prefix` a master holds (KEYS <prefix>__perflab_owner__*).
std::vector<RedisReply> prefix_marks(const RedisEndpoint& master, const std::string& prefix) {
  RedisClient m(master);
  return m.command({"KEYS", redis_glob_escape(prefix + std::string(kPrefixMarkKey)) + "*"})
      .elements;
}

// A master other than the owner of `slot`.
RedisEndpoint other_master(ClusterClient& c, int slot) {
  for (const auto& m : c.masters())
    if (m.address() != c.owner(slot)->address()) return m;
  ADD_FAILURE() << "one master only";
  return {};
}

// The owner of `slot` in the map `node` gives (CLUSTER SLOTS), or "" when none does.
std::string owner_seen_by(const RedisEndpoint& node, int slot) {
  RedisClient n(node);
  for (const auto& r : parse_cluster_slots(n.command({"CLUSTER", "SLOTS"}), node))
    if (r.first <= slot && slot <= r.last) return r.master.address();
  return {};
}

// Moves the slot, then waits until every master's map names its new owner: on a loaded machine
// a node can answer from an older map for a while, and the next test would meet MOVED where its
// map says the slot is served.
void move_slot(ClusterClient& c, int slot, const RedisEndpoint& to) {
  SlotMigration m(*c.owner(slot), to, slot);
  m.begin();
  while (m.move_keys(100) > 0) {
  }
  const auto masters = c.masters();
  m.finish(masters);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (const auto& node : masters)
    while (owner_seen_by(node, slot) != to.address() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (const auto& node : masters) EXPECT_EQ(owner_seen_by(node, slot), to.address());
}

}  // namespace

TEST(TargetsRedisCluster, FormsWithEverySlotServed) {
  ManagedRedisCluster& cluster = shared_cluster();
  ASSERT_EQ(cluster.seeds().size(), 3u);
  RedisClient node(cluster.seeds()[1]);
  const RedisReply info = node.command({"CLUSTER", "INFO"});
  EXPECT_NE(info.str.find("cluster_state:ok"), std::string::npos) << info.str;
  EXPECT_NE(info.str.find("cluster_slots_assigned:16384"), std::string::npos) << info.str;
  const auto ranges = parse_cluster_slots(node.command({"CLUSTER", "SLOTS"}), node.endpoint());
  ASSERT_EQ(ranges.size(), 3u);
  EXPECT_EQ(ranges.front().first, 0);
  EXPECT_EQ(ranges.back().last, kClusterSlots - 1);
  for (std::size_t i = 1; i < ranges.size(); ++i)
    EXPECT_EQ(ranges[i].first, ranges[i - 1].last + 1);
}

TEST(TargetsRedisCluster, SlotsMatchClusterKeyslot) {
  std::vector<std::string> keys = {"",      "{}",    "{",         "}",          "a{}{b}",
                                   "{}{b}", "a{b}c", "{user1}.x", "foo{{bar}}", "foo{bar}{zap}",
                                   "}{a}",  "{a",    "a}",        "123456789",  "perflab:key:1"};
  std::mt19937_64 rng(12);
  for (int i = 0; i < 1000; ++i) {
    std::string k;
    const int len = static_cast<int>(rng() % 24);
    for (int j = 0; j < len; ++j) {
      const auto pick = rng() % 10;
      k += pick == 0 ? '{' : pick == 1 ? '}' : static_cast<char>(rng() % 256);
    }
    keys.push_back(k);
  }
  RedisClient node(shared_cluster().seeds()[0]);
  std::vector<std::vector<std::string_view>> cmds;
  for (const auto& k : keys) cmds.push_back({"CLUSTER", "KEYSLOT", k});
  const auto replies = node.pipeline(cmds);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(replies[i].type, RedisReply::Type::Integer) << replies[i].str;
    EXPECT_EQ(cluster_key_slot(keys[i]), replies[i].integer) << "key #" << i;
  }
}

TEST(TargetsRedisCluster, ClientRoutesPipelinesAcrossOwnersInOrder) {
  ClusterClient c(shared_cluster().seeds());
  const std::string prefix = test::unique_name("perflab:test:route:");
  std::vector<std::string> keys, values;
  for (int i = 0; i < 300; ++i)
    keys.push_back(prefix + std::to_string(i)), values.push_back("v" + std::to_string(i * 7));
  std::vector<std::vector<std::string_view>> sets, gets;
  for (std::size_t i = 0; i < keys.size(); ++i)
    sets.push_back({"SET", keys[i], values[i]}), gets.push_back({"GET", keys[i]});
  for (const auto& r : c.pipeline(sets)) EXPECT_EQ(r.str, "OK");
  const auto got = c.pipeline(gets);
  for (std::size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(got[i].str, values[i]);
  // Every master got some: the pipeline was split by owner.
  std::set<std::string> owners;
  for (const auto& k : keys) owners.insert(c.owner(cluster_key_slot(k))->address());
  EXPECT_EQ(owners.size(), 3u);
  // Each key is on the node the slot map says (asked directly, no redirection).
  for (std::size_t i = 0; i < 20; ++i) {
    RedisClient direct(*c.owner(cluster_key_slot(keys[i])));
    EXPECT_EQ(direct.command({"GET", keys[i]}).str, values[i]);
  }
  EXPECT_EQ(c.counters().moved, 0u);

  // Multi-key commands: one slot through a {tag}, refused across slots with a clear error,
  // while the rest of the pipeline is answered.
  const std::string ta = prefix + "{t}a", tb = prefix + "{t}b";
  const auto mixed = c.pipeline({{"MSET", ta, "1", tb, "2"},
                                 {"MGET", ta, tb},
                                 {"MGET", keys[0], keys[1], keys[2], keys[3]},
                                 {"PING"},
                                 {"GET", keys[5]}});
  EXPECT_EQ(mixed[0].str, "OK");
  ASSERT_EQ(mixed[1].elements.size(), 2u);
  EXPECT_EQ(mixed[1].elements[1].str, "2");
  EXPECT_EQ(mixed[2].type, RedisReply::Type::Error);
  EXPECT_EQ(mixed[2].str.rfind("CROSSSLOT", 0), 0u) << mixed[2].str;
  EXPECT_NE(mixed[2].str.find("{tag}"), std::string::npos) << mixed[2].str;
  EXPECT_EQ(mixed[3].str, "PONG");
  EXPECT_EQ(mixed[4].str, values[5]);
}

TEST(TargetsRedisCluster, ClientFollowsMovedAfterTheTestMovesASlot) {
  ClusterClient c(shared_cluster().seeds());
  const std::string key = test::unique_name("perflab:test:moved:");
  const int slot = cluster_key_slot(key);
  ASSERT_EQ(c.command({"SET", key, "before"}).str, "OK");
  const RedisEndpoint from = *c.owner(slot);
  const RedisEndpoint to = other_master(c, slot);

  ClusterClient mover(shared_cluster().seeds());
  move_slot(mover, slot, to);

  // c's map still names the old owner: MOVED, followed, and the map updated.
  EXPECT_EQ(c.command({"GET", key}).str, "before");
  EXPECT_GE(c.counters().moved, 1u);
  EXPECT_EQ(c.owner(slot)->address(), to.address());
  EXPECT_EQ(c.command({"SET", key, "after"}).str, "OK");
  RedisClient direct(to);
  EXPECT_EQ(direct.command({"GET", key}).str, "after");

  ClusterClient back(shared_cluster().seeds());
  move_slot(back, slot, from);
  EXPECT_EQ(c.command({"GET", key}).str, "after");
}

TEST(TargetsRedisCluster, ClientFollowsAskDuringAMigration) {
  ClusterClient c(shared_cluster().seeds());
  const std::string tag = "{" + test::unique_name("ask") + "}";
  std::vector<std::string> keys;
  for (int i = 0; i < 6; ++i) keys.push_back("perflab:test:" + tag + std::to_string(i));
  const int slot = cluster_key_slot(keys[0]);
  for (const auto& k : keys) ASSERT_EQ(c.command({"SET", k, "v-" + k}).str, "OK");
  const RedisEndpoint from = *c.owner(slot);
  const RedisEndpoint to = other_master(c, slot);

  SlotMigration m(from, to, slot);
  m.begin();
  ASSERT_EQ(m.move_keys(3), 3u);  // half of the keys are on the target now
  // Reads of moved keys get ASK from the source and are answered by the target (ASKING);
  // a new key in the migrating slot is written on the target the same way.
  std::vector<std::vector<std::string_view>> gets;
  for (const auto& k : keys) gets.push_back({"GET", k});
  const auto got = c.pipeline(gets);
  for (std::size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(got[i].str, "v-" + keys[i]);
  EXPECT_EQ(c.counters().ask, 3u);
  const std::string fresh = "perflab:test:" + tag + "new";
  EXPECT_EQ(c.command({"SET", fresh, "n"}).str, "OK");
  EXPECT_EQ(c.counters().ask, 4u);
  EXPECT_EQ(c.counters().moved, 0u);  // the slot is still the source's
  EXPECT_EQ(c.owner(slot)->address(), from.address());

  while (m.move_keys(100) > 0) {
  }
  m.finish(c.masters());
  for (const auto& k : keys) EXPECT_EQ(c.command({"GET", k}).str, "v-" + k);
  EXPECT_EQ(c.command({"GET", fresh}).str, "n");
  EXPECT_GE(c.counters().moved, 1u);

  ClusterClient back(shared_cluster().seeds());
  move_slot(back, slot, from);
}

TEST(TargetsRedisCluster, NoSeedAnswersIsAClearError) {
  int port = 0;
  const int fd = test::listen_on_loopback(port);
  ASSERT_GE(fd, 0);
  close(fd);  // nothing listens there now: connection refused
  try {
    ClusterClient c({RedisEndpoint{"127.0.0.1", port, {}}}, std::chrono::seconds(2));
    FAIL() << "a client without any node";
  } catch (const RedisError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << m;
    EXPECT_NE(m.find("refused"), std::string::npos) << m;
  }
  // A plain Redis is not a cluster node: said so.
  ManagedRedis plain;
  try {
    ClusterClient c({plain.endpoint()});
    FAIL() << "a plain Redis taken for a cluster";
  } catch (const RedisError& e) {
    EXPECT_NE(std::string(e.what()).find("not a Redis Cluster node"), std::string::npos)
        << e.what();
  }
}

TEST(TargetsRedisCluster, MasterDownIsAClearErrorThenItsReplicaTakesOver) {
  ManagedRedisClusterOptions opts;
  opts.replicas = true;
  opts.node_timeout = std::chrono::milliseconds(1000);
  ManagedRedisCluster cluster(opts);
  ClusterClient c(cluster.seeds(), std::chrono::seconds(2));
  for (const auto& r : c.slot_map()) EXPECT_EQ(r.replicas.size(), 1u);

  // A key on master 1, and one on master 0, written and acknowledged by the replica too.
  const auto key_on = [&](std::size_t m) {
    for (int i = 0;; ++i) {
      std::string k = "perflab:test:down:" + std::to_string(i);
      if (c.owner(cluster_key_slot(k))->port == cluster.master(m).port()) return k;
    }
  };
  const std::string lost_owner = key_on(1), survivor = key_on(0);
  ASSERT_EQ(c.command({"SET", lost_owner, "a"}).str, "OK");
  ASSERT_EQ(c.command({"SET", survivor, "b"}).str, "OK");
  RedisClient m1(cluster.master(1).endpoint());
  EXPECT_EQ(m1.command({"WAIT", "1", "5000"}).integer, 1);

  const std::string address = cluster.master(1).endpoint().address();
  cluster.master(1).kill_now();
  const auto replies = c.pipeline({{"GET", lost_owner}, {"GET", survivor}});
  EXPECT_EQ(replies[0].type, RedisReply::Type::Error);
  EXPECT_NE(replies[0].str.find("Redis Cluster node " + address), std::string::npos)
      << replies[0].str;
  EXPECT_NE(replies[0].str.find("is down"), std::string::npos) << replies[0].str;
  EXPECT_EQ(replies[1].str, "b");  // the other masters' replies are kept
  EXPECT_EQ(c.counters().node_failures, 1u);
  // The connection it had was closed; a new one is refused, and said so.
  const RedisReply again = c.command({"GET", lost_owner});
  EXPECT_NE(again.str.find("Redis Cluster node " + address), std::string::npos) << again.str;
  EXPECT_NE(again.str.find("refused"), std::string::npos) << again.str;
  EXPECT_EQ(c.counters().node_failures, 2u);

  // The replica is promoted; the client reads the map again and is served by it.
  cluster.wait_ok(std::chrono::seconds(60));
  RedisReply after;
  // Until the client's map names the new owner: a deadline far above the time it takes, for a
  // loaded machine with ASan (it returns as soon as it is served).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  do {
    after = c.command({"GET", lost_owner});
    if (after.type != RedisReply::Type::Error) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  } while (std::chrono::steady_clock::now() < deadline);
  EXPECT_EQ(after.str, "a");
  EXPECT_EQ(c.owner(cluster_key_slot(lost_owner))->port, cluster.replica_of(1)->port());
}

TEST(TargetsRedisCluster, TooFewMastersIsRefusedBeforeStarting) {
  ManagedRedisClusterOptions opts;
  opts.masters = 2;
  EXPECT_THROW(ManagedRedisCluster{opts}, ServerError);
}

// An external cluster (here: one the test started, given by its seeds): Perflab's prefix is
// claimed with a mark on every master, and refused when a user's key lives under it.
TEST(TargetsRedisCluster, ExternalClusterIsClaimedOnEveryMaster) {
  TargetsConfig cfg;
  cfg.redis_cluster = {shared_cluster().seeds()[2]};
  cfg.redis_prefix = test::unique_name("perflab-ext:") + ":";
  Targets targets(cfg);
  const RedisClusterTarget t = targets.redis_cluster();
  EXPECT_FALSE(t.managed);
  EXPECT_EQ(targets.managed_cluster(), nullptr);
  ClusterClient c(t.seeds);
  for (const auto& r : c.slot_map())
    EXPECT_EQ(prefix_marks(r.master, cfg.redis_prefix).size(), 1u) << r.master.address();
  EXPECT_EQ(targets.describe().size(), 3u);

  // A user's key under another prefix, on whichever master owns it: refused, left alone.
  TargetsConfig users = cfg;
  users.redis_prefix = test::unique_name("users:") + ":";
  const std::string key = users.redis_prefix + "session";
  ASSERT_EQ(c.command({"SET", key, "theirs"}).str, "OK");
  Targets refused(users);
  try {
    refused.redis_cluster();
    FAIL() << "a prefix with a user's key claimed";
  } catch (const TargetError& e) {
    EXPECT_EQ(e.field(), TargetField::RedisPrefix);
    EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
  }
  EXPECT_EQ(c.command({"GET", key}).str, "theirs");
  c.command({"DEL", key});
  for (const auto& r : c.slot_map()) {
    RedisClient m(r.master);
    for (const auto& k : prefix_marks(r.master, cfg.redis_prefix)) m.command({"DEL", k.str});
  }
}
