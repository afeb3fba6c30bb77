// The key distribution over the user's own keys, against a managed Redis of the test's own that
// holds 100,000 keys it wrote (some hash-tagged) and 2,000 others: the run reads them with SCAN
// only (a MONITOR opened before the run sees every command), counts them as the test does and
// leaves the data as it was; keys_match narrows them; a file of keys works too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <stop_token>
#include <string>
#include <vector>

#include "common/key_slot.h"
#include "common/run_io.h"
#include "proxy/routing.h"
#include "run_probes.h"
#include "runner/experiment.h"
#include "servers.h"
#include "sharding/experiment.h"
#include "targets/cluster.h"
#include "targets/managed_redis.h"
#include "targets/managed_redis_cluster.h"
#include "targets/redis.h"

using namespace perflab;

namespace {

constexpr int kUserKeys = 100000;
constexpr int kTagged = 5000;  // of them, all under one hash tag: one slot
constexpr int kSessions = 2000;
constexpr int kNodes = 4;

std::string user_key(int i) {
  char buf[48];
  if (i < kTagged)
    std::snprintf(buf, sizeof buf, "user:{cart42}:item:%d", i);
  else
    std::snprintf(buf, sizeof buf, "user:%06d", i);
  return buf;
}

// The keys per node the test counts itself, per scheme (as the chart names them), on kNodes
// nodes: RedisSharding's modula, a ketama ring of nodes 127.0.0.1:8081.., jump hash of FNV-1a,
// and hash slots with 4 even ranges.
std::map<std::string, std::vector<double>> direct_count(const std::vector<std::string>& keys) {
  std::vector<std::string> names;
  for (int i = 0; i < kNodes; ++i) names.push_back("127.0.0.1:" + std::to_string(8081 + i));
  const proxy::KetamaRing ring(names);
  std::map<std::string, std::vector<double>> out;
  for (const char* s : {"modula (crc32)", "ketama", "jump", "hash slots (CRC16)"})
    out[s].assign(kNodes, 0);
  for (const auto& k : keys) {
    out["modula (crc32)"][proxy::modula_node(k, kNodes)] += 1;
    out["ketama"][ring.node_for(k)] += 1;
    out["jump"][static_cast<std::size_t>(proxy::jump_consistent_hash(proxy::fnv1a64(k), kNodes))] +=
        1;
    out["hash slots (CRC16)"]
       [static_cast<std::size_t>(cluster_key_slot(k) * kNodes / kClusterSlots)] += 1;
  }
  return out;
}

// Every command a MONITOR connection saw until the marker the test sends after the run: the
// command names, upper case.
class Monitor {
 public:
  explicit Monitor(const RedisEndpoint& ep) : ep_(ep), c_(ep) {
    EXPECT_EQ(c_.command({"MONITOR"}).str, "OK");
  }
  std::vector<std::string> commands_until_marker() {
    const std::string marker = test::unique_name("end-of-run");
    RedisClient(ep_).command({"ECHO", marker});
    std::vector<std::string> names;
    for (;;) {
      RedisReply r;
      c_.receive({&r, 1});  // bounded by the client's timeout: a missing marker fails
      if (r.str.find(marker) != std::string::npos) return names;
      // 1733312345.123456 [0 127.0.0.1:40000] "SCAN" "0" "MATCH" ...
      const auto open = r.str.find("] \"");
      if (open == std::string::npos) {
        ADD_FAILURE() << "not a MONITOR line: " << r.str;
        continue;
      }
      const auto from = open + 3;
      names.push_back(to_upper(r.str.substr(from, r.str.find('"', from) - from)));
    }
  }

 private:
  static std::string to_upper(std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return s;
  }
  RedisEndpoint ep_;
  RedisClient c_;
};

class UserKeys : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ManagedRedis();
    RedisClient c(server_->endpoint());
    std::vector<std::string> keys;
    for (int i = 0; i < kUserKeys; ++i) keys.push_back(user_key(i));
    for (int i = 0; i < kSessions; ++i) keys.push_back("session:" + std::to_string(i));
    for (std::size_t at = 0; at < keys.size(); at += 1000) {
      std::vector<std::vector<std::string_view>> batch;
      for (std::size_t i = at; i < std::min(keys.size(), at + 1000); ++i)
        batch.push_back({"SET", keys[i], keys[i]});
      for (const auto& r : c.pipeline(batch)) ASSERT_EQ(r.str, "OK");
    }
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  // A run of the sharding experiment on the server's keys, the server configured as a user's.
  static perflab::Run run(std::map<std::string, std::string> params) {
    TargetsConfig cfg;
    cfg.redis_nodes = {server_->endpoint()};
    Targets targets(cfg);
    perflab::Run r = execute(*make_sharding_experiment(), targets, params, {}, {});
    EXPECT_TRUE(targets.describe().empty()) << "a target was claimed or a server started";
    return r;
  }

  static double sum(const Series& s) {
    double n = 0;
    for (const auto& p : s.points) n += p.samples.at(0);
    return n;
  }

  static ManagedRedis* server_;
};

ManagedRedis* UserKeys::server_ = nullptr;

TEST_F(UserKeys, CountsTheUsersKeysReadOnlyWithScanOnly) {
  RedisClient check(server_->endpoint());
  const std::int64_t size_before = check.command({"DBSIZE"}).integer;
  ASSERT_EQ(size_before, kUserKeys + kSessions);
  Monitor monitor(server_->endpoint());
  // Room for more keys than there are: the cursor goes round, every key is seen.
  const perflab::Run r =
      run({{"keys_from", "redis"}, {"keys_match", "user:*"}, {"distribution_keys", "200000"}});
  const std::vector<std::string> commands = monitor.commands_until_marker();
  ASSERT_EQ(r.status, RunStatus::Finished) << r.message;

  // Nothing but reads: SCAN, and what a client's handshake may send.
  const std::set<std::string> allowed = {"SCAN", "PING", "INFO", "HELLO", "CLIENT", "AUTH"};
  for (const auto& c : commands) EXPECT_TRUE(allowed.count(c)) << "the run sent " << c;
  const auto scans = std::count(commands.begin(), commands.end(), "SCAN");
  const Finding* calls = test::find_finding(r, "keys.scan_calls");
  ASSERT_NE(calls, nullptr);
  EXPECT_EQ(static_cast<double>(scans), calls->value);
  EXPECT_GT(scans, 0);
  EXPECT_LE(scans, std::stoll(r.params.at("scan_max_calls")));
  // The data as it was.
  EXPECT_EQ(check.command({"DBSIZE"}).integer, size_before);
  for (int i : {0, kTagged - 1, kTagged, 54321, kUserKeys - 1})
    EXPECT_EQ(check.command({"GET", user_key(i)}).str, user_key(i));

  // Keys per node within 1% of the test's own count over the keys it wrote (all of them: the
  // cursor went round within the bounds).
  std::vector<std::string> keys;
  for (int i = 0; i < kUserKeys; ++i) keys.push_back(user_key(i));
  const auto expected = direct_count(keys);
  for (const auto& [scheme, per_node] : expected) {
    const Series* s = r.find_series("dist_nodes", scheme);
    ASSERT_NE(s, nullptr) << scheme;
    ASSERT_EQ(s->points.size(), per_node.size());
    for (std::size_t n = 0; n < per_node.size(); ++n)
      EXPECT_NEAR(s->points[n].samples.at(0), per_node[n], per_node[n] * 0.01)
          << scheme << ", node " << n + 1;
  }
  ASSERT_NE(test::find_finding(r, "keys.sampled"), nullptr);
  EXPECT_EQ(test::find_finding(r, "keys.sampled")->value, kUserKeys);
  const Series* ideal = r.find_series("dist_nodes", "ideal");
  ASSERT_NE(ideal, nullptr);
  EXPECT_EQ(ideal->points.at(0).samples.at(0), kUserKeys / kNodes);

  // Only the distribution ran, and the charts and the sentence name the user's keys.
  EXPECT_EQ(r.group("sweep_set"), nullptr);
  const std::string source =
      "all 100,000 keys of redis " + server_->endpoint().address() + " matching 'user:*'";
  ASSERT_NE(r.group("dist_nodes"), nullptr);
  EXPECT_NE(r.group("dist_nodes")->title.find(source), std::string::npos)
      << r.group("dist_nodes")->title;
  EXPECT_EQ(r.group("dist_nodes")->description.find("key:0000"), std::string::npos);
  const Finding* sentence = test::find_finding(r, "dist.user_keys");
  ASSERT_NE(sentence, nullptr);
  SCOPED_TRACE(sentence->text);
  EXPECT_NE(sentence->text.find("For " + source), std::string::npos);
  // The tag's 5% in one slot: only hash slots show it.
  EXPECT_NE(sentence->text.find("hash slots (CRC16) spreads them least evenly"), std::string::npos);
  EXPECT_NE(sentence->text.find("5,000 of them (5.0%) carry a hash tag"), std::string::npos);
  ASSERT_NE(test::find_finding(r, "keys.read"), nullptr);
  EXPECT_NE(test::find_finding(r, "keys.read")->text.find("every key was seen"), std::string::npos);

  // No key name in the run file.
  const std::string file = run_to_json(r);
  for (const char* name : {"user:000", "user:{cart42}", "cart42", "session:"})
    EXPECT_EQ(file.find(name), std::string::npos) << name;
  // The user's server is named, as not Perflab's.
  ASSERT_EQ(r.targets.size(), 1u);
  EXPECT_FALSE(r.targets[0].managed);
}

TEST_F(UserKeys, KeysMatchNarrowsTheKeys) {
  const perflab::Run r = run({{"keys_from", "redis"}, {"keys_match", "session:*"}});
  ASSERT_EQ(r.status, RunStatus::Finished) << r.message;
  for (const char* s : {"modula (crc32)", "ketama", "jump", "hash slots (CRC16)"}) {
    const Series* ser = r.find_series("dist_nodes", s);
    ASSERT_NE(ser, nullptr) << s;
    EXPECT_EQ(sum(*ser), kSessions) << s;
  }
  EXPECT_EQ(test::find_finding(r, "keys.sampled")->value, kSessions);
  // No tag among them: the sentence says nothing of tags.
  EXPECT_EQ(test::find_finding(r, "dist.user_keys")->text.find("hash tag"), std::string::npos);
}

TEST_F(UserKeys, TheScanEndsAtItsBounds) {
  // At most 3 SCAN calls: a sample, and the run says so.
  const perflab::Run few =
      run({{"keys_from", "redis"}, {"scan_count", "100"}, {"scan_max_calls", "3"}});
  ASSERT_EQ(few.status, RunStatus::Finished) << few.message;
  EXPECT_EQ(test::find_finding(few, "keys.scan_calls")->value, 3);
  EXPECT_NE(test::find_finding(few, "keys.read")->text.find("the bound of 3 SCAN calls"),
            std::string::npos);
  EXPECT_NE(few.group("dist_nodes")->title.find("keys sampled from redis"), std::string::npos);
  // At distribution_keys distinct keys.
  const perflab::Run bounded = run({{"keys_from", "redis"}, {"distribution_keys", "1000"}});
  ASSERT_EQ(bounded.status, RunStatus::Finished) << bounded.message;
  EXPECT_EQ(test::find_finding(bounded, "keys.sampled")->value, 1000);
  EXPECT_NE(test::find_finding(bounded, "keys.read")->text.find("stopped at distribution_keys"),
            std::string::npos);
}

// Stop as the SCAN begins (a progress hook, not a guessed delay): the run ends cancelled.
TEST_F(UserKeys, StopsWhenAsked) {
  TargetsConfig cfg;
  cfg.redis_nodes = {server_->endpoint()};
  Targets targets(cfg);
  std::stop_source stop;
  const RunHooks hooks = test::at_first_step("SCAN ", [&] { stop.request_stop(); });
  const perflab::Run r = execute(*make_sharding_experiment(), targets, {{"keys_from", "redis"}},
                                 hooks, stop.get_token());
  ASSERT_TRUE(stop.stop_requested()) << "no SCAN step was reported";
  EXPECT_EQ(r.status, RunStatus::Cancelled) << r.message;
  EXPECT_TRUE(r.series.empty());
}

TEST_F(UserKeys, NoMatchingKeyFailsTheRunWithoutAPoint) {
  const perflab::Run r = run({{"keys_from", "redis"}, {"keys_match", "nobody:*"}});
  EXPECT_EQ(r.status, RunStatus::Failed);
  EXPECT_NE(r.message.find("no key found on redis"), std::string::npos) << r.message;
  EXPECT_TRUE(r.series.empty());
}

TEST_F(UserKeys, AFileOfKeysOnSixNodes) {
  const auto path = std::filesystem::temp_directory_path() / (test::unique_name("keys") + ".txt");
  {
    std::ofstream out(path);
    for (int i = 0; i < 3000; ++i) out << "order:" << i << "\r\n";
    out << "order:7\n\n";  // a repeat and an empty line: counted once, skipped
  }
  const perflab::Run r =
      run({{"keys_from", "file"}, {"keys_file", path.string()}, {"distribution_nodes", "6"}});
  std::filesystem::remove(path);
  ASSERT_EQ(r.status, RunStatus::Finished) << r.message;
  const Series* jump = r.find_series("dist_nodes", "jump");
  ASSERT_NE(jump, nullptr);
  EXPECT_EQ(jump->points.size(), 6u);
  EXPECT_EQ(sum(*jump), 3000);
  EXPECT_EQ(r.find_series("dist_moved", "jump")->points.at(0).label, "6 -> 7 nodes");
  EXPECT_NE(r.group("dist_moved")->title.find("a 7th node"), std::string::npos);
  EXPECT_NE(r.group("dist_nodes")->title.find("all 3,000 keys of file '" + path.string() + "'"),
            std::string::npos)
      << r.group("dist_nodes")->title;
  EXPECT_EQ(test::find_finding(r, "keys.scan_calls"), nullptr);
  EXPECT_TRUE(r.targets.empty());
}

// A user's Redis Cluster: every master scanned (replicas not), each key counted once.
TEST(UserKeysOfACluster, EveryMasterIsScanned) {
  ManagedRedisCluster cluster(ManagedRedisClusterOptions{.masters = 3, .replicas = true});
  ClusterClient c(cluster.seeds());
  std::vector<std::string> keys;
  for (int i = 0; i < 3000; ++i) keys.push_back("account:" + std::to_string(i));
  std::vector<std::vector<std::string_view>> batch;
  for (const auto& k : keys) batch.push_back({"SET", k, "v"});
  for (const auto& r : c.pipeline(batch)) ASSERT_EQ(r.str, "OK");
  TargetsConfig cfg;
  cfg.redis_cluster = {cluster.seeds().front()};
  Targets targets(cfg);
  const perflab::Run r = execute(*make_sharding_experiment(), targets,
                                 {{"keys_from", "redis"}, {"keys_match", "account:*"}}, {}, {});
  ASSERT_EQ(r.status, RunStatus::Finished) << r.message;
  const Series* slots = r.find_series("dist_nodes", "hash slots (CRC16)");
  ASSERT_NE(slots, nullptr);
  double sum = 0;
  for (const auto& p : slots->points) sum += p.samples.at(0);
  EXPECT_EQ(sum, 3000);
  EXPECT_EQ(r.targets.size(), 3u);  // the masters
  for (const auto& t : r.targets) EXPECT_EQ(t.kind, "redis-cluster");
  EXPECT_NE(r.group("dist_nodes")->title.find("all 3,000 keys of the masters of redis cluster"),
            std::string::npos)
      << r.group("dist_nodes")->title;
  EXPECT_GE(test::find_finding(r, "keys.scan_calls")->value, 3);
}

}  // namespace
