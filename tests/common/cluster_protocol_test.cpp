// The Redis Cluster protocol's pure functions (common/cluster_protocol.h): MOVED / ASK read,
// CLUSTER SLOTS read into ranges and into a slot map, malformed input refused. Both cluster
// clients (targets over hiredis, the proxy over its own RESP) go through these.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "common/cluster_protocol.h"
#include "common/key_slot.h"

using namespace perflab;

namespace {

using Node = ClusterReplyNode;

Node integer(std::int64_t v) {
  Node n;
  n.type = Node::Type::Integer;
  n.integer = v;
  return n;
}

Node text(std::string_view s) {
  Node n;
  n.type = Node::Type::String;
  n.str = s;
  return n;
}

Node array(std::vector<Node> elements) {
  Node n;
  n.type = Node::Type::Array;
  n.elements = std::move(elements);
  return n;
}

// One CLUSTER SLOTS entry: [first, last, [host, port, id], replicas...].
Node range(int first, int last, std::string_view host, int port, std::vector<Node> replicas = {}) {
  std::vector<Node> e{integer(first), integer(last),
                      array({text(host), integer(port), text("node-id")})};
  for (auto& r : replicas) e.push_back(std::move(r));
  return array(std::move(e));
}

std::string slots_refusal(const Node& table) {
  try {
    parse_cluster_slots(table, "10.0.0.9");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST(ClusterRedirect, MovedAndAsk) {
  const auto moved = parse_cluster_redirect("MOVED 3999 127.0.0.1:6381");
  ASSERT_TRUE(moved);
  EXPECT_FALSE(moved->ask);
  EXPECT_EQ(moved->slot, 3999);
  EXPECT_EQ(moved->to.host, "127.0.0.1");
  EXPECT_EQ(moved->to.port, 6381);
  EXPECT_EQ(moved->to.address(), "127.0.0.1:6381");
  const auto ask = parse_cluster_redirect("ASK 0 redis-b:7000");
  ASSERT_TRUE(ask);
  EXPECT_TRUE(ask->ask);
  EXPECT_EQ(ask->slot, 0);
  EXPECT_EQ(ask->to.address(), "redis-b:7000");
  const auto last = parse_cluster_redirect("MOVED 16383 ::1:6379");  // IPv6: the last colon
  ASSERT_TRUE(last);
  EXPECT_EQ(last->slot, 16383);
  EXPECT_EQ(last->to.host, "::1");
  EXPECT_EQ(last->to.port, 6379);
}

TEST(ClusterRedirect, OtherErrorsAndMalformedOnesAreNoRedirection) {
  for (const char* error : {"",
                            "ERR unknown command",
                            "MOVED",
                            "MOVED ",
                            "MOVED 3999",
                            "MOVED 3999 ",
                            "moved 1 h:1",
                            "MOVEDX 1 h:1",
                            "ASKING",
                            "ASK 1",
                            "MOVED x h:1",
                            "MOVED 12x h:1",
                            "MOVED -1 h:1",
                            "MOVED 16384 h:1",
                            "MOVED 99999999999 h:1",
                            "MOVED 1 host",
                            "MOVED 1 host:",
                            "MOVED 1 :6379",
                            "MOVED 1 host:0",
                            "MOVED 1 host:65536",
                            "MOVED 1 host:63x",
                            "MOVED  1 h:1",
                            "CLUSTERDOWN The cluster is down",
                            "TRYAGAIN Multiple keys request during rehashing"})
    EXPECT_FALSE(parse_cluster_redirect(error)) << '"' << error << '"';
}

TEST(ClusterSlots, RangesSortedWithMastersAndReplicas) {
  const Node table = array({
      range(8192, 16383, "10.0.0.2", 7001, {array({text("10.0.0.4"), integer(7003)})}),
      range(0, 8191, "10.0.0.1", 7000),
  });
  const auto ranges = parse_cluster_slots(table, "10.0.0.9");
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].first, 0);
  EXPECT_EQ(ranges[0].last, 8191);
  EXPECT_EQ(ranges[0].master.address(), "10.0.0.1:7000");
  EXPECT_EQ(ranges[0].master_id, "node-id");
  EXPECT_TRUE(ranges[0].replicas.empty());
  EXPECT_EQ(ranges[1].first, 8192);
  EXPECT_EQ(ranges[1].master.address(), "10.0.0.2:7001");
  ASSERT_EQ(ranges[1].replicas.size(), 1u);
  EXPECT_EQ(ranges[1].replicas[0].address(), "10.0.0.4:7003");
}

TEST(ClusterSlots, NodeWithoutAddressIsOnTheAskedHost) {
  const auto ranges =
      parse_cluster_slots(array({range(0, 100, "", 7000), range(101, 200, "?", 7001)}), "h");
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].master.address(), "h:7000");
  EXPECT_EQ(ranges[1].master.address(), "h:7001");
  EXPECT_TRUE(parse_cluster_slots(array({}), "h").empty());  // a node of no formed cluster
}

TEST(ClusterSlots, MalformedTablesAreRefusedSayingWhy) {
  EXPECT_EQ(slots_refusal(text("ERR no")), "CLUSTER SLOTS did not answer a table");
  EXPECT_EQ(slots_refusal(integer(3)), "CLUSTER SLOTS did not answer a table");
  EXPECT_EQ(slots_refusal(array({integer(1)})), "CLUSTER SLOTS entry is malformed");
  EXPECT_EQ(slots_refusal(array({array({integer(0), integer(5)})})),
            "CLUSTER SLOTS entry is malformed");
  EXPECT_EQ(slots_refusal(array({array({text("0"), integer(5), array({text("h"), integer(1)})})})),
            "CLUSTER SLOTS entry is malformed");
  EXPECT_EQ(slots_refusal(array({range(5, 4, "h", 1)})), "CLUSTER SLOTS has a bad slot range");
  EXPECT_EQ(slots_refusal(array({range(-1, 4, "h", 1)})), "CLUSTER SLOTS has a bad slot range");
  EXPECT_EQ(slots_refusal(array({range(0, 16384, "h", 1)})), "CLUSTER SLOTS has a bad slot range");
  EXPECT_EQ(slots_refusal(array({array({integer(0), integer(5), text("h:1")})})),
            "CLUSTER SLOTS lists a node without port");
  EXPECT_EQ(slots_refusal(array({array({integer(0), integer(5), array({text("h")})})})),
            "CLUSTER SLOTS lists a node without port");
  EXPECT_EQ(slots_refusal(array({array({integer(0), integer(5), array({text("h"), text("1")})})})),
            "CLUSTER SLOTS lists a node without port");
  EXPECT_EQ(slots_refusal(array({range(0, 5, "h", 1, {text("replica")})})),
            "CLUSTER SLOTS lists a node without port");
}

TEST(ClusterSlotMap, EverySlotToItsMasterEachMasterOnce) {
  const auto ranges = parse_cluster_slots(
      array({range(0, 99, "a", 1), range(100, 16000, "b", 2), range(16001, 16383, "a", 1)}), "h");
  const ClusterSlotMap map = cluster_slot_map(ranges);
  ASSERT_EQ(map.masters.size(), 2u);
  EXPECT_EQ(map.masters[0].address(), "a:1");
  EXPECT_EQ(map.masters[1].address(), "b:2");
  ASSERT_EQ(map.slot_owner.size(), static_cast<std::size_t>(kClusterSlots));
  EXPECT_EQ(map.slot_owner[0], 0u);
  EXPECT_EQ(map.slot_owner[99], 0u);
  EXPECT_EQ(map.slot_owner[100], 1u);
  EXPECT_EQ(map.slot_owner[16000], 1u);
  EXPECT_EQ(map.slot_owner[16001], 0u);
  EXPECT_EQ(map.slot_owner[16383], 0u);
}

TEST(ClusterSlotMap, ASlotWithoutMasterIsRefused) {
  const auto gap =
      parse_cluster_slots(array({range(0, 99, "a", 1), range(101, 16383, "b", 2)}), "h");
  EXPECT_THROW(cluster_slot_map(gap), std::invalid_argument);
  EXPECT_THROW(cluster_slot_map({}), std::invalid_argument);
}

TEST(ClusterSlots, AClientsOwnReplyTypeConverts) {
  struct Reply {  // the shape of hiredis's and the proxy's replies
    enum class Kind { Int, Str, Arr } type = Kind::Str;
    std::int64_t integer = 0;
    std::string str;
    std::vector<Reply> elements;
  };
  const auto type_of = [](const Reply& r) {
    return r.type == Reply::Kind::Int   ? Node::Type::Integer
           : r.type == Reply::Kind::Arr ? Node::Type::Array
                                        : Node::Type::String;
  };
  Reply node{Reply::Kind::Arr,
             0,
             "",
             {{Reply::Kind::Str, 0, "10.1.1.1", {}}, {Reply::Kind::Int, 6379, "", {}}}};
  Reply entry{Reply::Kind::Arr,
              0,
              "",
              {{Reply::Kind::Int, 0, "", {}}, {Reply::Kind::Int, 16383, "", {}}, node}};
  const Reply table{Reply::Kind::Arr, 0, "", {entry}};
  const auto ranges = parse_cluster_slots(cluster_reply_node(table, type_of), "h");
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(ranges[0].last, 16383);
  EXPECT_EQ(ranges[0].master.address(), "10.1.1.1:6379");
  EXPECT_EQ(cluster_slot_map(ranges).masters.size(), 1u);
}
