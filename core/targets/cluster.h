#pragma once
// A Redis Cluster client: the slot map from CLUSTER SLOTS, each command sent to the master that
// owns its keys' slot (CRC16 with {tag}, common/key_slot.h; the protocol's replies read by
// common/cluster_protocol.h), MOVED followed (the map updated and
// the command retried), ASK followed once (ASKING + the command), one connection per node,
// pipelines split by owner and in flight on every node at once, replies in request order.
//
// Every wait is bounded as RedisClient's are (the timeout per exchange, a stop within kStopSlice).
#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "common/cluster_protocol.h"
#include "targets/redis.h"

namespace perflab {

// Parses a CLUSTER SLOTS reply (common/cluster_protocol.h over hiredis's reply); a node listed
// without an address ("" or "?") is taken to be on `asked`'s host. Throws RedisError when the
// reply is not a slot table.
std::vector<ClusterSlotRange> parse_cluster_slots(const RedisReply& reply,
                                                  const RedisEndpoint& asked);

class ClusterClient {
 public:
  // Connects to the first seed that answers and reads its slot map. The seeds' password (the
  // first seed's) is used on every node. Throws RedisError naming every seed tried and why.
  explicit ClusterClient(std::vector<RedisEndpoint> seeds,
                         std::chrono::milliseconds timeout = std::chrono::seconds(5),
                         std::stop_token stop = {});

  // One command, sent to its slot's owner. Error replies are returned: the server's, and the
  // client's own for a command whose keys are in different slots ("CROSSSLOT ...") and for a
  // node that does not answer ("ERR Redis Cluster node host:port (slots a-b) is down: ...":
  // the map is read again before the next command). Throws RedisError only when no node answers
  // at all, or when stopped.
  RedisReply command(const std::vector<std::string_view>& argv);
  // A pipeline: the commands grouped by owner, every group sent before any reply is read;
  // redirected commands go again (MOVED up to 5 times, ASK with ASKING); replies in request
  // order.
  std::vector<RedisReply> pipeline(const std::vector<std::vector<std::string_view>>& cmds);

  // Reads the slot map again (from a node that answers); throws RedisError when none does.
  void refresh_slots();
  const std::vector<ClusterSlotRange>& slot_map() const { return ranges_; }
  // The master that serves `slot` as this client knows it (nullopt when unassigned).
  std::optional<RedisEndpoint> owner(int slot) const;
  // The slot the command's keys are in; nullopt for a command without keys; -1 when its keys
  // are in different slots. Asks the server once per command name where its keys are (COMMAND
  // INFO), and each time for commands with keys in varying places (COMMAND GETKEYS: EVAL, ...).
  std::optional<int> command_slot(const std::vector<std::string_view>& argv);

  struct Counters {
    std::uint64_t moved = 0, ask = 0;  // redirections followed
    std::uint64_t node_failures = 0;   // commands answered "node is down" by this client
    std::uint64_t map_refreshes = 0;   // CLUSTER SLOTS read again
  };
  const Counters& counters() const { return counters_; }
  // The masters as this client knows them (in the map's order).
  std::vector<RedisEndpoint> masters() const;

 private:
  struct KeyPositions {
    int first = 0, last = 0, step = 1;
    bool movable = false;
  };
  RedisClient& connection(const RedisEndpoint& ep);
  std::size_t node_index(const RedisEndpoint& ep);
  void load_map(const std::vector<ClusterSlotRange>& ranges);
  const KeyPositions& key_positions(std::string_view name);
  std::string describe_node(std::size_t node) const;

  std::vector<RedisEndpoint> seeds_;
  std::string password_;
  std::chrono::milliseconds timeout_;
  std::stop_token stop_;
  std::vector<ClusterSlotRange> ranges_;
  std::vector<RedisEndpoint> nodes_;                // every node ever seen, by index
  std::array<int, 16384> slot_owner_{};             // node index, -1: unassigned
  std::map<std::string, RedisClient> connections_;  // by address
  std::map<std::string, KeyPositions> key_positions_;
  bool map_stale_ = false;
  Counters counters_;
};

// Moves one slot from one master to another, as redis-cli --cluster reshard does: the target
// IMPORTING, the source MIGRATING, the keys moved with MIGRATE in batches (clients asking the
// source for a moved key get ASK meanwhile), then the slot given to the target on every master
// (clients get MOVED from then on). Every step is bounded by the timeout; errors throw
// RedisError naming the node and the step.
class SlotMigration {
 public:
  SlotMigration(const RedisEndpoint& from, const RedisEndpoint& to, int slot,
                std::chrono::milliseconds timeout = std::chrono::seconds(5),
                std::stop_token stop = {});
  void begin();
  // Moves up to `batch` keys; returns how many moved (0: none left in the slot on the source).
  std::size_t move_keys(std::size_t batch = 100);
  // The slot is the target's: told to the target, the source, then every other master listed,
  // once the target knows every master's config epoch (cluster.cpp says why).
  void finish(const std::vector<RedisEndpoint>& masters);
  int slot() const { return slot_; }

 private:
  RedisReply checked(RedisClient& c, const std::vector<std::string_view>& argv);
  RedisClient from_, to_;
  std::string from_id_, to_id_;
  int slot_;
  std::chrono::milliseconds timeout_;
  std::stop_token stop_;
};

}  // namespace perflab
