// The sharding experiment's key distribution tables: keys per node on 4 nodes, and the share that
// moves when a 5th joins, per scheme (modula, ketama, jump hash, Redis Cluster's hash slots).
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "common/key_slot.h"
#include "proxy/routing.h"
#include "sharding/sharding_run.h"

namespace perflab::sharding {

// Keys per node on 4 nodes, and the share that moves when a 5th joins, per scheme.
void distribution(RunContext& ctx, int nkeys) {
  ctx.progress(0.0, "key distribution");
  Group nodes_g;
  nodes_g.id = "dist_nodes";
  nodes_g.title = "Keys per node: " + std::to_string(nkeys) + " keys on 4 nodes";
  nodes_g.unit = "keys";
  nodes_g.lower_is_better = false;
  nodes_g.y_label = "keys on the node";  // a count: more is neither better nor worse
  nodes_g.description =
      "How evenly each scheme spreads keys key:000000000000... over 4 nodes "
      "(ideal: a quarter each).";
  ctx.add_group(nodes_g);
  Group moved_g;
  moved_g.id = "dist_moved";
  moved_g.title = "Keys that move when a 5th node is added";
  moved_g.unit = "%";
  moved_g.lower_is_better = true;
  moved_g.y_label = "% of all keys that move, lower is better";
  moved_g.description =
      "modula (crc32 mod N, RedisSharding) moves about 4/5 of all keys; consistent hashing "
      "(ketama ring, jump hash) moves about 1/5, only the new node's share. Redis Cluster's "
      "hash slots (CRC16 mod 16384) move only the slots rebalanced to the new master, taken "
      "evenly from the others as redis-cli --cluster rebalance does: about 1/5 too, decided "
      "by an explicit slot table instead of a hash ring.";
  ctx.add_group(moved_g);

  std::vector<std::string> names4, names5;
  for (int i = 0; i < 5; ++i) {
    std::string n = "127.0.0.1:" + std::to_string(8081 + i);
    if (i < 4) names4.push_back(n);
    names5.push_back(n);
  }
  proxy::KetamaRing ring4(names4), ring5(names5);
  // Hash slots: 4 masters with even ranges; a 5th takes 16384/5 slots, an equal share from the
  // start of each other master's range.
  std::vector<int> slots4(kClusterSlots), slots5(kClusterSlots);
  for (int s = 0; s < kClusterSlots; ++s) slots4[s] = slots5[s] = s * 4 / kClusterSlots;
  for (int m = 0, taken = 0; m < 4; ++m) {
    const int share = (kClusterSlots / 5 - taken) / (4 - m);
    for (int s = kClusterSlots * m / 4; s < kClusterSlots * m / 4 + share; ++s) slots5[s] = 4;
    taken += share;
  }
  struct Scheme {
    std::string name;
    std::vector<double> per_node = std::vector<double>(4, 0);
    std::int64_t moved = 0;
  };
  std::vector<Scheme> schemes = {{"modula (crc32)"}, {"ketama"}, {"jump"}, {"hash slots (CRC16)"}};
  char buf[32];
  for (int i = 0; i < nkeys; ++i) {
    if (i % 10000 == 0) ctx.check_stop();
    std::snprintf(buf, sizeof buf, "key:%012d", i);
    std::string_view k(buf);
    std::size_t a[4], b[4];
    a[0] = proxy::modula_node(k, 4), b[0] = proxy::modula_node(k, 5);
    a[1] = ring4.node_for(k), b[1] = ring5.node_for(k);
    std::uint64_t h = proxy::fnv1a64(k);
    a[2] = static_cast<std::size_t>(proxy::jump_consistent_hash(h, 4));
    b[2] = static_cast<std::size_t>(proxy::jump_consistent_hash(h, 5));
    const int slot = cluster_key_slot(k);
    a[3] = static_cast<std::size_t>(slots4[slot]), b[3] = static_cast<std::size_t>(slots5[slot]);
    for (int s = 0; s < 4; ++s) {
      schemes[s].per_node[a[s]] += 1;
      if (a[s] != b[s]) schemes[s].moved++;
    }
  }
  for (auto& s : schemes) {
    for (int n = 0; n < 4; ++n) {
      Point pt;
      pt.label = "node " + std::to_string(n + 1);
      pt.samples = {s.per_node[n]};
      pt.extra["share_pct"] = 100.0 * s.per_node[n] / nkeys;
      ctx.add_point("dist_nodes", s.name, std::move(pt));
    }
    double pct = 100.0 * static_cast<double>(s.moved) / nkeys;
    Point pt;
    pt.label = "4 -> 5 nodes";
    pt.samples = {pct};
    pt.extra["ideal_pct"] = 20.0;
    ctx.add_point("dist_moved", s.name, std::move(pt));
    std::string id = s.name.substr(0, s.name.find(' '));
    ctx.add_finding(
        figure_finding({"moved." + id, s.name, "share of keys moved from 4 to 5 nodes (ideal 20%)",
                        "%", "dist_moved"},
                       pct));
  }
}

}  // namespace perflab::sharding
