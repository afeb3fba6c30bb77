// The key distribution counted (no server): the slot tables of N and N+1 masters, the moved
// shares from N to N+1 nodes per scheme, the sentence about the user's keys, and the file of keys.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "common/key_slot.h"
#include "common/params.h"
#include "sharding/distribution.h"
#include "sharding/user_keys.h"

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

std::filesystem::path write_file(const std::string& name, const std::string& text) {
  const auto path =
      std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".txt");
  std::ofstream(path, std::ios::binary) << text;
  return path;
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

TEST(KeyDistribution, TheSentenceRevealsWhatAHashTagDoesToHashSlotsOnly) {
  DistributionCounter c(4);
  for (int i = 0; i < 7000; ++i) c.add("user:" + std::to_string(i));
  for (int i = 0; i < 3000; ++i) c.add("cart:{basket}:" + std::to_string(i));
  EXPECT_EQ(c.tagged_keys(), 3000);
  EXPECT_EQ(c.largest_tag_keys(), 3000);
  const SchemeCount& slots = scheme(c, "hash slots (CRC16)");
  const std::string sentence = distribution_sentence(c, "the test's 10,000 keys");
  SCOPED_TRACE(sentence);
  // 30% of the keys in one slot: hash slots' fullest node holds at least that.
  EXPECT_GE(slots.max_share(c.keys()), 0.3);
  for (const auto& s : c.schemes()) {
    if (&s != &slots) {
      EXPECT_LT(s.max_share(c.keys()), 0.3) << s.name;
    }
  }
  char fullest[32];
  std::snprintf(fullest, sizeof fullest, "%.1f%%", 100.0 * slots.max_share(c.keys()));
  EXPECT_NE(sentence.find("hash slots (CRC16) spreads them least evenly, " + std::string(fullest)),
            std::string::npos);
  EXPECT_NE(sentence.find("3,000 of them (30.0%) carry a hash tag"), std::string::npos);
  EXPECT_NE(sentence.find("the largest tag alone puts 3,000 keys (30.0%)"), std::string::npos);
  EXPECT_NE(sentence.find("For the test's 10,000 keys, "), std::string::npos);
  EXPECT_NE(sentence.find("Going from 4 to 5 nodes would move "), std::string::npos);
  EXPECT_NE(sentence.find("(ideal 20.0%"), std::string::npos);
  EXPECT_EQ(sentence.find("basket"), std::string::npos) << "a key's name in the sentence";
  // Asked for (key_names=true), the sentence names the tag.
  EXPECT_EQ(c.largest_tag(), "basket");
  EXPECT_NE(distribution_sentence(c, "the test's 10,000 keys", true)
                .find("the largest tag, {basket}, alone puts 3,000 keys (30.0%)"),
            std::string::npos);
}

TEST(KeyDistribution, AFileGivesItsDistinctKeysUpToTheBound) {
  const auto path = write_file("keys", "a\r\nb\n\nc\na\nd\n");
  const KeySample all = read_key_file(path.string(), 100);
  EXPECT_EQ(all.keys, (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_TRUE(all.whole);
  const KeySample two = read_key_file(path.string(), 2);
  EXPECT_EQ(two.keys, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(two.whole);
  std::filesystem::remove(path);
}

TEST(KeyDistribution, AnEmptyMissingOrFolderFileIsRefused) {
  const auto refusal = [](const std::string& path) -> std::string {
    try {
      read_key_file(path, 100);
    } catch (const ParamError& e) {
      return e.what();
    }
    return "accepted";
  };
  const auto empty = write_file("empty-keys", "\n\r\n");
  EXPECT_NE(refusal(empty.string()).find("holds no key"), std::string::npos);
  std::filesystem::remove(empty);
  EXPECT_NE(refusal("/nonexistent/keys.txt").find("keys_file: cannot read '/nonexistent/keys.txt'"),
            std::string::npos);
  EXPECT_NE(refusal(std::filesystem::temp_directory_path().string()).find("it is a folder"),
            std::string::npos);
}

TEST(KeyDistribution, TheFingerprintIsTheSetsNotTheOrders) {
  EXPECT_EQ(key_set_fingerprint({"a", "b", "c"}), key_set_fingerprint({"c", "a", "b"}));
  EXPECT_NE(key_set_fingerprint({"a", "b", "c"}), key_set_fingerprint({"a", "b", "d"}));
  EXPECT_NE(key_set_fingerprint({"ab", "c"}), key_set_fingerprint({"a", "bc"}));
  EXPECT_EQ(key_set_fingerprint({"a"}).size(), 16u);
}
