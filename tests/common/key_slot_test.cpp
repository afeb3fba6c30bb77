// Redis Cluster's key slots (common/key_slot.h): CRC-16/XMODEM and the {tag} rule. The same keys
// are checked against redis-server's own CLUSTER KEYSLOT in tests/targets/cluster_test.cpp.
#include <gtest/gtest.h>

#include "common/key_slot.h"

using namespace perflab;

TEST(KeySlot, Crc16XmodemCheckValue) {
  EXPECT_EQ(crc16_xmodem("123456789"), 0x31C3);  // the catalogue's check value
  EXPECT_EQ(crc16_xmodem(""), 0);
  EXPECT_EQ(cluster_key_slot("123456789"), 12739);  // Redis Cluster spec's example
}

TEST(KeySlot, TagRules) {
  EXPECT_EQ(cluster_hash_tag("{user1000}.following"), "user1000");
  EXPECT_EQ(cluster_hash_tag("foo{}{bar}"), "foo{}{bar}");  // empty first tag: whole key
  EXPECT_EQ(cluster_hash_tag("foo{{bar}}zap"), "{bar");     // from the first '{' to the next '}'
  EXPECT_EQ(cluster_hash_tag("foo{bar}{zap}"), "bar");      // only the first tag counts
  EXPECT_EQ(cluster_hash_tag("{}"), "{}");
  EXPECT_EQ(cluster_hash_tag("{"), "{");
  EXPECT_EQ(cluster_hash_tag("a{}{b}"), "a{}{b}");
  EXPECT_EQ(cluster_hash_tag("}{a}"), "a");
  EXPECT_EQ(cluster_hash_tag("plain"), "plain");
  EXPECT_EQ(cluster_key_slot("{user1000}.following"), cluster_key_slot("{user1000}.followers"));
  EXPECT_EQ(cluster_key_slot("x{42}"), cluster_key_slot("42"));
  EXPECT_NE(cluster_key_slot("{}a"), cluster_key_slot("{}b"));
}

TEST(KeySlot, SlotsAreInRangeAndBinarySafe) {
  for (int i = 0; i < 256; ++i) {
    const std::string key(1, static_cast<char>(i));
    const int slot = cluster_key_slot(key);
    EXPECT_GE(slot, 0);
    EXPECT_LT(slot, kClusterSlots);
  }
  EXPECT_EQ(cluster_key_slot(std::string("a\0b", 3)),
            crc16_xmodem(std::string("a\0b", 3)) & 0x3FFF);
}

TEST(KeySlot, TagForEverySlot) {
  ASSERT_EQ(cluster_slot_tags().size(), static_cast<std::size_t>(kClusterSlots));
  for (int slot = 0; slot < kClusterSlots; ++slot) {
    const std::string tag = cluster_tag_for_slot(slot);
    ASSERT_FALSE(tag.empty()) << slot;
    EXPECT_LE(tag.size(), 3u);
    EXPECT_EQ(cluster_key_slot("perflab:key:{" + tag + "}:000000000001"), slot) << tag;
  }
  EXPECT_EQ(cluster_key_slot(cluster_tag_for_slot(kClusterSlots - 1)), kClusterSlots - 1);
}
