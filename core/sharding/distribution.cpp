// The sharding experiment's key distribution tables: keys per node on N nodes (4 by default), and
// the share that moves when an (N+1)th joins, per scheme (modula, ketama, jump hash, Redis
// Cluster's hash slots).
#include "sharding/distribution.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "common/figure_format.h"
#include "common/key_slot.h"
#include "sharding/sharding_run.h"

namespace perflab::sharding {

namespace {

// The nodes' names on the ketama ring: 127.0.0.1:8081, :8082, ...
std::vector<std::string> node_names(int nodes) {
  std::vector<std::string> names;
  for (int i = 0; i < nodes; ++i) names.push_back("127.0.0.1:" + std::to_string(8081 + i));
  return names;
}

// Master m's first slot among `masters` even ranges.
int range_start(int m, int masters) {
  return (kClusterSlots * m + masters - 1) / masters;
}

// "5th", "21st", "62nd", "13th".
std::string ordinal(int n) {
  const int tens = n % 100, ones = n % 10;
  const char* suffix = tens >= 11 && tens <= 13 ? "th"
                       : ones == 1              ? "st"
                       : ones == 2              ? "nd"
                       : ones == 3              ? "rd"
                                                : "th";
  return std::to_string(n) + suffix;
}

// "a quarter each" on 4 nodes, "1/7 each" on 7.
std::string ideal_each(int nodes) {
  return nodes == 2   ? "a half each"
         : nodes == 4 ? "a quarter each"
                      : "1/" + std::to_string(nodes) + " each";
}

// The scheme's short id in finding ids: "modula", "ketama", "jump", "hash".
std::string scheme_id(const SchemeCount& s) {
  return s.name.substr(0, s.name.find(' '));
}

}  // namespace

std::vector<int> even_slot_owners(int masters) {
  std::vector<int> owners(kClusterSlots);
  for (int s = 0; s < kClusterSlots; ++s) owners[s] = s * masters / kClusterSlots;
  return owners;
}

std::vector<int> rebalanced_slot_owners(int masters) {
  std::vector<int> owners = even_slot_owners(masters);
  for (int m = 0, taken = 0; m < masters; ++m) {
    const int share = (kClusterSlots / (masters + 1) - taken) / (masters - m);
    const int start = range_start(m, masters);
    for (int s = start; s < start + share; ++s) owners[s] = masters;
    taken += share;
  }
  return owners;
}

DistributionCounter::DistributionCounter(int nodes)
    : nodes_(nodes),
      ring_(node_names(nodes)),
      ring_next_(node_names(nodes + 1)),
      slots_(even_slot_owners(nodes)),
      slots_next_(rebalanced_slot_owners(nodes)),
      schemes_{{"modula (crc32)"}, {"ketama"}, {"jump"}, {"hash slots (CRC16)"}} {
  for (auto& s : schemes_) s.per_node.assign(static_cast<std::size_t>(nodes), 0);
}

void DistributionCounter::add(std::string_view k) {
  const auto n = static_cast<std::size_t>(nodes_);
  std::size_t a[4], b[4];
  a[0] = proxy::modula_node(k, n), b[0] = proxy::modula_node(k, n + 1);
  a[1] = ring_.node_for(k), b[1] = ring_next_.node_for(k);
  const std::uint64_t h = proxy::fnv1a64(k);
  a[2] = static_cast<std::size_t>(proxy::jump_consistent_hash(h, nodes_));
  b[2] = static_cast<std::size_t>(proxy::jump_consistent_hash(h, nodes_ + 1));
  const int slot = cluster_key_slot(k);
  a[3] = static_cast<std::size_t>(slots_[slot]), b[3] = static_cast<std::size_t>(slots_next_[slot]);
  for (std::size_t s = 0; s < schemes_.size(); ++s) {
    schemes_[s].per_node[a[s]] += 1;
    if (a[s] != b[s]) schemes_[s].moved++;
  }
  ++keys_;
}

namespace {

// The words a distribution's charts name its keys with.
struct DistributionWords {
  std::string title_keys;   // "2000 keys"
  std::string spread_keys;  // "keys key:000000000000..."
};

// Node i's point of dist_nodes: its keys, and their share of all in percent.
Point node_point(int i, double keys, std::int64_t total) {
  Point pt;
  pt.label = "node " + std::to_string(i + 1);
  pt.samples = {keys};
  pt.extra["share_pct"] = 100.0 * keys / static_cast<double>(total);
  return pt;
}

// The tables of the counted keys, and their findings: the share each scheme moves.
void publish(RunContext& ctx, const DistributionCounter& c, const DistributionWords& words) {
  const int n = c.nodes();
  const std::int64_t nkeys = c.keys();
  const std::string nodes = std::to_string(n), next = std::to_string(n + 1);
  Group nodes_g;
  nodes_g.id = "dist_nodes";
  nodes_g.title = "Keys per node: " + words.title_keys + " on " + nodes + " nodes";
  nodes_g.unit = "keys";
  nodes_g.lower_is_better = false;
  nodes_g.y_label = "keys on the node";  // a count: more is neither better nor worse
  nodes_g.description = "How evenly each scheme spreads " + words.spread_keys + " over " + nodes +
                        " nodes (ideal: " + ideal_each(n) + ").";
  ctx.add_group(nodes_g);
  Group moved_g;
  moved_g.id = "dist_moved";
  moved_g.title = "Keys that move when a " + ordinal(n + 1) + " node is added";
  moved_g.unit = "%";
  moved_g.lower_is_better = true;
  moved_g.y_label = "% of all keys that move, lower is better";
  moved_g.description =
      "modula (crc32 mod N, RedisSharding) moves about " + nodes + "/" + next +
      " of all keys; consistent hashing (ketama ring, jump hash) moves about 1/" + next +
      ", only the new node's share. Redis Cluster's hash slots (CRC16 mod 16384) move only the "
      "slots rebalanced to the new master, taken evenly from the others as redis-cli --cluster "
      "rebalance does: about 1/" +
      next + " too, decided by an explicit slot table instead of a hash ring.";
  ctx.add_group(moved_g);

  const double ideal_moved_pct = 100.0 / (n + 1);
  const std::string moved_what = "share of keys moved from " + nodes + " to " + next +
                                 " nodes (ideal " + format_percent(1.0 / (n + 1)) + ")";
  for (const auto& s : c.schemes()) {
    for (int i = 0; i < n; ++i)
      ctx.add_point("dist_nodes", s.name, node_point(i, static_cast<double>(s.per_node[i]), nkeys));
    double pct = 100.0 * static_cast<double>(s.moved) / nkeys;
    Point pt;
    pt.label = nodes + " -> " + next + " nodes";
    pt.samples = {pct};
    pt.extra["ideal_pct"] = ideal_moved_pct;
    ctx.add_point("dist_moved", s.name, std::move(pt));
    const std::string id = scheme_id(s);
    ctx.add_finding(figure_finding({"moved." + id, s.name, moved_what, "%", "dist_moved"}, pct));
  }
}

}  // namespace

// Keys per node on `nodes` nodes, and the share that moves when one more joins, per scheme, over
// the synthetic keys key:000000000000, key:000000000001, ...
void distribution(RunContext& ctx, int nkeys, int nodes) {
  ctx.progress(0.0, "key distribution");
  DistributionCounter counter(nodes);
  char buf[32];
  for (int i = 0; i < nkeys; ++i) {
    if (i % 10000 == 0) ctx.check_stop();
    std::snprintf(buf, sizeof buf, "key:%012d", i);
    counter.add(buf);
  }
  publish(ctx, counter, {std::to_string(nkeys) + " keys", "keys key:000000000000..."});
}

}  // namespace perflab::sharding
