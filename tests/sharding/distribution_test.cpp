// The key distribution counted (no server): the slot tables of N and N+1 masters, and the moved
// shares from N to N+1 nodes per scheme.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "common/key_slot.h"
#include "sharding/distribution.h"

using namespace perflab;
using namespace perflab::sharding;

namespace {

std::map<int, int> slots_per_master(const std::vector<int>& owners) {
  std::map<int, int> n;
  for (int o : owners) ++n[o];
  return n;
}

DistributionCounter synthetic(int nodes, int keys) {
  DistributionCounter c(nodes);
  char buf[32];
  for (int i = 0; i < keys; ++i) {
    std::snprintf(buf, sizeof buf, "key:%012d", i);
    c.add(buf);
  }
  return c;
}

const SchemeCount& scheme(const DistributionCounter& c, const std::string& name) {
  for (const auto& s : c.schemes())
    if (s.name == name) return s;
  throw std::runtime_error("no scheme " + name);
}

}  // namespace

TEST(KeyDistribution, TheNewMasterTakesItsShareEvenlyFromTheOthers) {
  for (int n : {2, 3, 4, 5, 7, 16, 64}) {
    SCOPED_TRACE(n);
    const std::vector<int> before = even_slot_owners(n), after = rebalanced_slot_owners(n);
    const auto b = slots_per_master(before), a = slots_per_master(after);
    ASSERT_EQ(b.size(), static_cast<std::size_t>(n));
    ASSERT_EQ(a.size(), static_cast<std::size_t>(n + 1));
    EXPECT_EQ(a.at(n), kClusterSlots / (n + 1));
    for (int m = 0; m < n; ++m) {
      EXPECT_LE(std::abs(b.at(m) - kClusterSlots / n), 1) << "master " << m;
      // Each gave an equal share (within one slot), and only to the new master.
      EXPECT_LE(std::abs((b.at(m) - a.at(m)) - kClusterSlots / (n + 1) / n), 1) << "master " << m;
    }
    for (int s = 0; s < kClusterSlots; ++s) {
      if (before[s] != after[s]) {
        ASSERT_EQ(after[s], n) << "slot " << s;
      }
    }
  }
}

TEST(KeyDistribution, ModulaMovesNOverNPlusOneConsistentSchemesOneOverNPlusOne) {
  const int keys = 20000;
  for (int n : {2, 3, 4, 7, 16}) {
    SCOPED_TRACE(n);
    const DistributionCounter c = synthetic(n, keys);
    ASSERT_EQ(c.keys(), keys);
    for (const auto& s : c.schemes()) {
      std::int64_t sum = 0;
      for (auto k : s.per_node) sum += k;
      EXPECT_EQ(sum, keys) << s.name;
      EXPECT_EQ(s.per_node.size(), static_cast<std::size_t>(n));
    }
    const auto moved = [&](const char* name) {
      return static_cast<double>(scheme(c, name).moved) / keys;
    };
    const double one = 1.0 / (n + 1);
    EXPECT_NEAR(moved("modula (crc32)"), n * one, 0.02);
    EXPECT_NEAR(moved("jump"), one, 0.02);
    EXPECT_NEAR(moved("hash slots (CRC16)"), one, 0.02);
    // ketama's ring of 160 points per node shares unevenly: the new node's share, within a third.
    EXPECT_NEAR(moved("ketama"), one, one / 3);
  }
}
