// Key routing, command classes and the key distributions.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "sharding/routing.h"

using namespace perflab::sharding;

TEST(Routing, Crc32IsIeee) {
  EXPECT_EQ(crc32("123456789"), 0xCBF43926u);
  EXPECT_EQ(crc32(""), 0u);
}

TEST(Routing, HashTagAtTheEnd) {
  EXPECT_EQ(hash_tag("user{42}"), "42");
  EXPECT_EQ(hash_tag("a{b}{c}"), "c");
  EXPECT_EQ(hash_tag("{42}user"), "{42}user");  // not at the end: whole key
  EXPECT_EQ(hash_tag("user{}"), "user{}");      // empty tag: whole key
  EXPECT_EQ(hash_tag("user}"), "user}");
  EXPECT_EQ(hash_tag("plain"), "plain");
}

TEST(Routing, NodeIsCrc32ModN) {
  for (std::string k : {"foo", "bar", "key:000000000001", "x"})
    EXPECT_EQ(node_for_key(k, 4), crc32(k) % 4) << k;
  // Tagged keys land with their tag.
  EXPECT_EQ(node_for_key("user{42}", 4), crc32("42") % 4);
  EXPECT_EQ(node_for_key("user{42}", 4), node_for_key("cart{42}", 4));
  // Every node gets keys.
  int count[4] = {};
  char buf[32];
  for (int i = 0; i < 1000; ++i) {
    std::snprintf(buf, sizeof buf, "key:%012d", i);
    count[node_for_key(buf, 4)]++;
  }
  for (int c : count) EXPECT_GT(c, 150);
}

TEST(Routing, CommandClasses) {
  EXPECT_EQ(classify("get").cls, CommandClass::SingleKey);
  EXPECT_EQ(classify("HgetALL").cls, CommandClass::SingleKey);
  EXPECT_EQ(classify("LPUSH").cls, CommandClass::SingleKey);
  EXPECT_EQ(classify("PING").cls, CommandClass::Broadcast);
  EXPECT_EQ(classify("flushdb").merge, MergeMode::Identical);
  EXPECT_EQ(classify("DBSIZE").merge, MergeMode::SumInt);
  EXPECT_EQ(classify("KEYS").merge, MergeMode::Concat);
  EXPECT_EQ(classify("MGET").cls, CommandClass::MultiKey);
  EXPECT_EQ(classify("MGET").merge, MergeMode::Values);
  for (const char* c : {"DEL", "EXISTS", "UNLINK"}) {
    EXPECT_EQ(classify(c).cls, CommandClass::MultiKey) << c;
    EXPECT_EQ(classify(c).merge, MergeMode::SumInt) << c;
  }
  EXPECT_EQ(classify("MSET").cls, CommandClass::KeyValue);
  EXPECT_EQ(classify("msetnx").merge, MergeMode::AllOne);
  EXPECT_EQ(classify("BLPOP").cls, CommandClass::BlockingPop);
  EXPECT_EQ(classify("BRPOP").cls, CommandClass::BlockingPop);
  EXPECT_EQ(classify("QUIT").cls, CommandClass::Local);
  for (const char* c : {"EVAL", "MULTI", "SUBSCRIBE", "RENAME", "SINTER", "SCAN", "xyz", ""})
    EXPECT_EQ(classify(c).cls, CommandClass::Unsupported) << c;
  EXPECT_EQ(classify(std::string(100, 'A')).cls, CommandClass::Unsupported);
  EXPECT_EQ(classify("GET").min_args, 2);
  EXPECT_EQ(classify("MSET").min_args, 3);
}

TEST(Distribution, Md5) {
  auto hex = [](std::string_view s) {
    unsigned char d[16];
    md5(s, d);
    std::string h;
    char b[3];
    for (unsigned char c : d) {
      std::snprintf(b, sizeof b, "%02x", c);
      h += b;
    }
    return h;
  };
  EXPECT_EQ(hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(hex("The quick brown fox jumps over the lazy dog"), "9e107d9d372bb6826bd81d3542a419d6");
  EXPECT_EQ(hex(std::string(100, 'a')), "36a92cc94a9e0fa21f625f8bfb007adf");
}

TEST(Distribution, ConsistentSchemesMoveOnlyToTheNewNode) {
  std::vector<std::string> n4 = {"a:1", "b:2", "c:3", "d:4"}, n5 = n4;
  n5.push_back("e:5");
  KetamaRing r4(n4), r5(n5);
  int moved_mod = 0, moved_ketama = 0, moved_jump = 0;
  const int keys = 20000;
  char buf[32];
  for (int i = 0; i < keys; ++i) {
    std::snprintf(buf, sizeof buf, "key:%012d", i);
    std::string_view k(buf);
    if (modula_node(k, 4) != modula_node(k, 5)) moved_mod++;
    std::size_t a = r4.node_for(k), b = r5.node_for(k);
    if (a != b) {
      moved_ketama++;
      EXPECT_EQ(b, 4u);  // a key only ever moves to the new node
    }
    std::uint64_t h = fnv1a64(k);
    auto ja = jump_consistent_hash(h, 4), jb = jump_consistent_hash(h, 5);
    EXPECT_GE(ja, 0);
    EXPECT_LT(ja, 4);
    if (ja != jb) {
      moved_jump++;
      EXPECT_EQ(jb, 4);
    }
  }
  // modula moves ~80 %, the consistent schemes ~20 %.
  EXPECT_GT(moved_mod, keys * 70 / 100);
  EXPECT_LT(moved_ketama, keys * 30 / 100);
  EXPECT_GT(moved_ketama, keys * 10 / 100);
  EXPECT_LT(moved_jump, keys * 25 / 100);
  EXPECT_GT(moved_jump, keys * 15 / 100);
  EXPECT_EQ(jump_consistent_hash(12345, 1), 0);
}
