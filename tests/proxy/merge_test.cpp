// The proxy's key splitting and reply merging (proxy/merge.h): pure functions, no server.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "proxy/merge.h"
#include "proxy/resp.h"
#include "proxy/routing.h"

using namespace perflab::proxy;

namespace {

constexpr std::size_t kNodes = 3;

std::string bulk(std::string_view s) {
  std::string out;
  append_bulk(out, s);
  return out;
}
std::string integer(std::int64_t v) {
  std::string out;
  append_integer(out, v);
  return out;
}
std::string array(const std::vector<std::string>& elements) {
  std::string out;
  append_array_header(out, static_cast<std::int64_t>(elements.size()));
  for (const auto& e : elements) out += e;
  return out;
}
const std::string kNil = "$-1\r\n";

std::string merged(MergeMode mode, std::string_view command, const std::vector<std::string>& parts,
                   const ReplyOrder& order = {}) {
  std::vector<std::string_view> views(parts.begin(), parts.end());
  std::string out = "left over";
  merge_replies(mode, command, views, order, out);
  return out;
}

// Keys k0..k(n-1) that spread over every node.
std::vector<std::string> spread_keys(std::size_t n) {
  std::vector<std::string> keys;
  std::vector<bool> seen(kNodes, false);
  for (int i = 0; keys.size() < n || std::find(seen.begin(), seen.end(), false) != seen.end();
       ++i) {
    std::string k = "key:" + std::to_string(i);
    seen[node_for_key(k, kNodes)] = true;
    keys.push_back(k);
    if (keys.size() > 1000) break;
  }
  return keys;
}

}  // namespace

TEST(Merge, MgetValuesComeBackInKeyOrderWithNils) {
  const auto keys = spread_keys(8);
  std::vector<std::string_view> argv{"MGET"};
  for (const auto& k : keys) argv.push_back(k);
  KeySplit split;
  split_keys(argv, 1, Router(kNodes), split);
  ASSERT_EQ(split.used, kNodes);
  ReplyOrder order;
  reply_order(split, 1, order);
  ASSERT_EQ(order.size(), keys.size());
  // Each node answers its keys in the order it got them; every third key is missing (nil).
  std::vector<std::string> parts;
  std::vector<std::string> expected;
  for (std::size_t n = 0; n < kNodes; ++n) {
    std::vector<std::string> values;
    for (std::uint32_t i : split.by_node[n])
      values.push_back(i % 3 == 0 ? kNil : bulk("v:" + keys[i - 1]));
    parts.push_back(array(values));
  }
  for (std::size_t i = 1; i <= keys.size(); ++i)
    expected.push_back(i % 3 == 0 ? kNil : bulk("v:" + keys[i - 1]));
  EXPECT_EQ(merged(MergeMode::Values, "MGET", parts, order), array(expected));
  // A node that answers with fewer values than it got keys is not trusted.
  parts[0] = array({});
  EXPECT_EQ(merged(MergeMode::Values, "MGET", parts, order),
            "-ERR unexpected reply from a node to 'MGET'\r\n");
  // Nor is a nil where an array belongs.
  parts[0] = kNil;
  EXPECT_EQ(merged(MergeMode::Values, "MGET", parts, order),
            "-ERR unexpected reply from a node to 'MGET'\r\n");
}

TEST(Merge, DelAndExistsSumTheIntegers) {
  EXPECT_EQ(merged(MergeMode::SumInt, "DEL", {integer(2), integer(0), integer(3)}), ":5\r\n");
  EXPECT_EQ(merged(MergeMode::SumInt, "EXISTS", {integer(1), integer(1)}), ":2\r\n");
  EXPECT_EQ(merged(MergeMode::SumInt, "DEL", {integer(1), "+OK\r\n"}),
            "-ERR unexpected reply from a node to 'DEL'\r\n");
}

TEST(Merge, BroadcastRepliesMustAgree) {
  EXPECT_EQ(merged(MergeMode::Identical, "PING", {"+PONG\r\n", "+PONG\r\n", "+PONG\r\n"}),
            "+PONG\r\n");
  EXPECT_EQ(merged(MergeMode::Identical, "FLUSHDB", {"+OK\r\n", "+QUEUED\r\n"}),
            "-ERR nodes replied differently to 'FLUSHDB'\r\n");
  EXPECT_EQ(merged(MergeMode::Concat, "KEYS", {array({bulk("a")}), array({}), array({bulk("b")})}),
            array({bulk("a"), bulk("b")}));
  EXPECT_EQ(merged(MergeMode::SumInt, "DBSIZE", {integer(4), integer(6)}), ":10\r\n");
}

TEST(Merge, AnErrorFromOneNodeWins) {
  EXPECT_EQ(merged(MergeMode::SumInt, "DEL",
                   {integer(1), "-WRONGTYPE Operation against a key\r\n", "-ERR second\r\n"}),
            "-WRONGTYPE Operation against a key\r\n");
  EXPECT_EQ(merged(MergeMode::AllOk, "MSET", {"+OK\r\n", "-OOM command not allowed\r\n"}),
            "-OOM command not allowed\r\n");
  EXPECT_EQ(merged(MergeMode::None, "GET", {"-ERR x\r\n"}), "-ERR x\r\n");
  EXPECT_EQ(merged(MergeMode::None, "GET", {bulk("v")}), bulk("v"));
}

TEST(Merge, MsetAndScriptExists) {
  EXPECT_EQ(merged(MergeMode::AllOk, "MSET", {"+OK\r\n", "+OK\r\n"}), "+OK\r\n");
  EXPECT_EQ(merged(MergeMode::AllOk, "MSET", {"+OK\r\n", integer(1)}),
            "-ERR unexpected reply from a node to 'MSET'\r\n");
  EXPECT_EQ(merged(MergeMode::AllArray, "SCRIPT EXISTS",
                   {"*3\r\n:1\r\n:1\r\n:0\r\n", "*3\r\n:1\r\n:0\r\n:0\r\n"}),
            "*3\r\n:1\r\n:0\r\n:0\r\n");
  EXPECT_EQ(merged(MergeMode::AllArray, "SCRIPT EXISTS", {"*1\r\n:1\r\n", "*2\r\n:1\r\n:1\r\n"}),
            "-ERR unexpected reply from a node to 'SCRIPT EXISTS'\r\n");
}

TEST(Split, MsetSendsEachNodeItsPairsInOrder) {
  const auto keys = spread_keys(6);
  std::vector<std::string> values;
  std::vector<std::string_view> argv{"MSET"};
  for (const auto& k : keys) values.push_back("value of " + k);
  for (std::size_t i = 0; i < keys.size(); ++i) argv.insert(argv.end(), {keys[i], values[i]});
  KeySplit split;
  split_keys(argv, 2, Router(kNodes), split);
  ASSERT_EQ(split.used, kNodes);
  std::size_t pairs = 0;
  for (std::size_t n = 0; n < kNodes; ++n) {
    std::vector<std::string_view> expected{"MSET"};
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (node_for_key(keys[i], kNodes) == n) expected.insert(expected.end(), {keys[i], values[i]});
    std::string want, got;
    append_command(want, expected);
    append_node_command(got, argv, split.by_node[n], 2);
    EXPECT_EQ(got, want) << "node " << n;
    pairs += split.by_node[n].size();
  }
  EXPECT_EQ(pairs, keys.size());
  // Keys sharing a tag stay together: one node, forwarded whole.
  std::vector<std::string_view> tagged{"MSET", "a{user1}", "1", "b{user1}", "2", "c{user1}", "3"};
  split_keys(tagged, 2, Router(kNodes), split);
  EXPECT_EQ(split.used, 1u);
  EXPECT_EQ(split.last, node_for_key("user1", kNodes));
}

TEST(Split, StorageIsReusedAcrossCommands) {
  KeySplit split;
  const auto keys = spread_keys(9);
  std::vector<std::string_view> argv{"DEL"};
  for (const auto& k : keys) argv.push_back(k);
  split_keys(argv, 1, Router(kNodes), split);
  split_keys({"DEL", keys[0]}, 1, Router(kNodes),
             split);  // the previous command leaves nothing behind
  EXPECT_EQ(split.used, 1u);
  std::size_t total = 0;
  for (const auto& v : split.by_node) total += v.size();
  EXPECT_EQ(total, 1u);
  EXPECT_EQ(split.by_node[node_for_key(keys[0], kNodes)], std::vector<std::uint32_t>{1});
}
