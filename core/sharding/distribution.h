#pragma once
// The key distribution, counted: where each scheme (modula, ketama, jump hash, Redis Cluster's
// hash slots) puts each key on N nodes and on N+1, and how many keys change node between them.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "proxy/routing.h"

namespace perflab::sharding {

// The hash slots' owners (index: slot, value: master 0..) of `masters` masters with even ranges,
// master m from ceil(16384·m/masters) on.
std::vector<int> even_slot_owners(int masters);
// The same after a master `masters` joined and took 16384/(masters+1) slots evenly from the
// others, each from the start of its range, as redis-cli --cluster rebalance does.
std::vector<int> rebalanced_slot_owners(int masters);

// One scheme's count: keys per node on N nodes, and the keys whose node differs on N+1.
struct SchemeCount {
  std::string name{};  // "modula (crc32)", "ketama", "jump", "hash slots (CRC16)"
  std::vector<std::int64_t> per_node{};
  std::int64_t moved = 0;
  // The share of the keys on its fullest node.
  double max_share(std::int64_t keys) const;
};

// Counts keys, one at a time, for every scheme on `nodes` nodes and on nodes + 1; also what a
// Redis Cluster hash tag does to them (keys per slot, keys per tag).
class DistributionCounter {
 public:
  explicit DistributionCounter(int nodes);
  void add(std::string_view key);

  int nodes() const { return nodes_; }
  std::int64_t keys() const { return keys_; }
  const std::vector<SchemeCount>& schemes() const { return schemes_; }
  // Keys with a Redis Cluster hash tag ({...}), and the most keys that share one tag.
  std::int64_t tagged_keys() const { return tagged_; }
  std::int64_t largest_tag_keys() const;
  std::string largest_tag() const;  // its name (the first in order of name when several tie)

 private:
  int nodes_;
  proxy::KetamaRing ring_, ring_next_;
  std::vector<int> slots_, slots_next_;
  std::vector<SchemeCount> schemes_;
  std::int64_t keys_ = 0, tagged_ = 0;
  std::unordered_map<std::string, std::int64_t> tags_;
};

// The sentence a run on the user's keys states, every number from the counter: which scheme
// spreads `keys` (what they are: "12,345 keys sampled from redis ...") most and least evenly
// (the fullest node's share against 1/N), how many carry a hash tag and how many keys the largest
// tag holds in one slot, and the share each scheme moves from N to N+1 nodes. The tag is named
// only with `name_tag` (key_names=true): otherwise no key's name, nor part of one, is in it.
std::string distribution_sentence(const DistributionCounter& c, const std::string& keys,
                                  bool name_tag = false);

}  // namespace perflab::sharding
