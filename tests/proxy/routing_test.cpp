// Key routing, command classes and the key distributions.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "proxy/routing.h"

using namespace perflab::proxy;

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
  EXPECT_EQ(classify("get").cls, CommandClass::Keyed);
  EXPECT_EQ(classify("HgetALL").cls, CommandClass::Keyed);
  EXPECT_EQ(classify("LPUSH").cls, CommandClass::Keyed);
  EXPECT_EQ(classify("PING").cls, CommandClass::Broadcast);
  EXPECT_EQ(classify("flushdb").merge, MergeMode::Identical);
  EXPECT_EQ(classify("DBSIZE").merge, MergeMode::SumInt);
  EXPECT_EQ(classify("KEYS").merge, MergeMode::Concat);
  EXPECT_EQ(classify("MGET").cls, CommandClass::Split);
  EXPECT_EQ(classify("MGET").merge, MergeMode::Values);
  for (const char* c : {"DEL", "EXISTS", "UNLINK", "TOUCH"}) {
    EXPECT_EQ(classify(c).cls, CommandClass::Split) << c;
    EXPECT_EQ(classify(c).merge, MergeMode::SumInt) << c;
  }
  EXPECT_EQ(classify("MSET").cls, CommandClass::Split);
  EXPECT_EQ(classify("MSET").keys.step, 2);
  // All keys on one node, forwarded whole.
  for (const char* c : {"MSETNX", "RPOPLPUSH", "LMOVE", "SMOVE", "SINTER", "SUNIONSTORE",
                        "ZUNIONSTORE", "RENAME", "RENAMENX", "PFMERGE", "BITOP", "EVAL", "EVALSHA"})
    EXPECT_EQ(classify(c).cls, CommandClass::Keyed) << c;
  EXPECT_TRUE(classify("BLPOP").dedicated);
  EXPECT_EQ(classify("BLPOP").timeout_at, -1);
  EXPECT_TRUE(classify("SELECT").dedicated);
  for (const char* c : {"QUIT", "AUTH", "PROXY"}) EXPECT_EQ(classify(c).cls, CommandClass::Local);
  for (const char* c : {"CONFIG", "DEBUG", "SHUTDOWN", "SLAVEOF", "REPLICAOF", "MODULE", "ACL",
                        "MONITOR", "CLIENT", "BGSAVE"})
    EXPECT_EQ(classify(c).cls, CommandClass::Admin) << c;
  EXPECT_EQ(classify("MONITOR").merge, MergeMode::None);  // never forwarded
  for (const char* c : {"MULTI", "SUBSCRIBE", "SCAN", "WAIT", "HELLO", "xyz", ""})
    EXPECT_EQ(classify(c).cls, CommandClass::Unsupported) << c;
  EXPECT_EQ(classify(std::string(100, 'A')).cls, CommandClass::Unsupported);
  EXPECT_EQ(classify("GET").min_args, 2);
  EXPECT_EQ(classify("MSET").min_args, 3);
  // Subcommands.
  EXPECT_EQ(classify(std::vector<std::string_view>{"script", "load", "return 1"}).cls,
            CommandClass::Broadcast);
  EXPECT_EQ(classify(std::vector<std::string_view>{"SCRIPT", "EXISTS", "a"}).merge,
            MergeMode::AllArray);
  EXPECT_EQ(classify(std::vector<std::string_view>{"SCRIPT", "KILL"}).cls,
            CommandClass::Unsupported);
  EXPECT_EQ(command_name({"script", "load", "x"}), "SCRIPT LOAD");
  EXPECT_EQ(command_name({"get", "x"}), "GET");
}

std::vector<std::uint32_t> keys_of(std::vector<std::string_view> argv) {
  std::vector<std::uint32_t> k;
  EXPECT_TRUE(command_keys(classify(argv).keys, argv, k)) << argv[0];
  return k;
}

TEST(Routing, KeyPositions) {
  using V = std::vector<std::uint32_t>;
  EXPECT_EQ(keys_of({"GET", "k"}), V{1});
  EXPECT_EQ(keys_of({"RPOPLPUSH", "a", "b"}), (V{1, 2}));
  EXPECT_EQ(keys_of({"LMOVE", "a", "b", "LEFT", "RIGHT"}), (V{1, 2}));
  EXPECT_EQ(keys_of({"SMOVE", "a", "b", "m"}), (V{1, 2}));
  EXPECT_EQ(keys_of({"SINTERSTORE", "d", "a", "b"}), (V{1, 2, 3}));
  EXPECT_EQ(keys_of({"ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "2"}), (V{1, 3, 4}));
  EXPECT_EQ(keys_of({"ZUNION", "2", "a", "b", "WITHSCORES"}), (V{2, 3}));
  EXPECT_EQ(keys_of({"BITOP", "AND", "d", "a", "b"}), (V{2, 3, 4}));
  EXPECT_EQ(keys_of({"MSETNX", "a", "1", "b", "2"}), (V{1, 3}));
  EXPECT_EQ(keys_of({"EVAL", "return 1", "2", "a", "b", "arg"}), (V{3, 4}));
  EXPECT_EQ(keys_of({"EVAL", "return 1", "0"}), V{});
  EXPECT_EQ(keys_of({"BLPOP", "a", "b", "0"}), (V{1, 2}));
  EXPECT_EQ(keys_of({"BLMPOP", "1", "2", "a", "b", "LEFT"}), (V{3, 4}));
  std::vector<std::uint32_t> k;
  // A count the node refuses: not routed by keys.
  for (std::vector<std::string_view> bad : {std::vector<std::string_view>{"EVAL", "s", "x"},
                                            {"EVAL", "s", "3", "a"},
                                            {"EVAL", "s", "-1"},
                                            {"EVAL", "s", "01", "a"},
                                            {"ZUNIONSTORE", "d", "+1", "a"}})
    EXPECT_FALSE(command_keys(classify(bad).keys, bad, k)) << bad[2];
}

TEST(Hashkit, TwemproxyHashesOfKnownInputs) {
  // Reference values of the published algorithms (CRC-32/ISO-HDLC, CRC-16/XMODEM check
  // "123456789"; FNV test vectors; MD5's first word).
  EXPECT_EQ(hash_key(HashFunction::Crc32a, "123456789"), 0xCBF43926u);
  EXPECT_EQ(hash_key(HashFunction::Crc32, "123456789"), (0xCBF43926u >> 16) & 0x7fff);
  EXPECT_EQ(hash_key(HashFunction::Crc16, "123456789") & 0xffff, 0x31C3u);
  EXPECT_EQ(hash_key(HashFunction::Fnv1a_32, "a"), 0xe40c292cu);
  EXPECT_EQ(hash_key(HashFunction::Fnv1_32, "a"), 0x050c5d7eu);
  EXPECT_EQ(hash_key(HashFunction::Fnv1_64, "a"),
            static_cast<std::uint32_t>(0xaf63bd4c8601b7beULL));
  EXPECT_EQ(hash_key(HashFunction::Md5, "abc"), 0x98500190u);  // 90 01 50 98, little-endian
  // twemproxy's fnv1a_64 is FNV-1a in 32 bits with truncated 64-bit constants.
  std::uint32_t h = 0x84222325u;
  for (char c : std::string("foo")) h = (h ^ static_cast<unsigned char>(c)) * 0x1b3u;
  EXPECT_EQ(hash_key(HashFunction::Fnv1a_64, "foo"), h);
  for (const auto& name : hash_function_names())
    EXPECT_EQ(to_string(parse_hash_function(name)), name);
  EXPECT_THROW(parse_hash_function("sha1"), std::invalid_argument);
  EXPECT_THROW(parse_distribution("random"), std::invalid_argument);
  EXPECT_EQ(parse_distribution("ketama"), Distribution::Ketama);
}

TEST(Hashkit, HashTags) {
  HashTag trailing;
  EXPECT_EQ(trailing.apply("user{42}"), "42");
  EXPECT_EQ(trailing.apply("{42}user"), "{42}user");
  HashTag pair = HashTag::parse("{}");
  EXPECT_EQ(pair.apply("{42}user"), "42");
  EXPECT_EQ(pair.apply("a{b}{c}"), "b");
  EXPECT_EQ(pair.apply("a{}b}"), "a{}b}");  // an empty tag: the whole key
  EXPECT_EQ(pair.apply("a{b"), "a{b");
  EXPECT_EQ(HashTag::parse("none").apply("user{42}"), "user{42}");
  EXPECT_THROW(HashTag::parse("{"), std::invalid_argument);
}

TEST(Hashkit, RouterDefaultIsRedisSharding) {
  Router r(4);
  Router same(RoutingOptions{}, {{"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}});
  char buf[32];
  for (int i = 0; i < 1000; ++i) {
    std::snprintf(buf, sizeof buf, "key:%d", i);
    EXPECT_EQ(r.node(buf), node_for_key(buf, 4));
    EXPECT_EQ(same.node(buf), node_for_key(buf, 4));
  }
}

TEST(Hashkit, ModulaWeightsRepeatServers) {
  RoutingOptions o;
  o.tag.rule = HashTag::Rule::None;
  Router r(o, {{"a", 1}, {"b", 3}});
  int count[2] = {0, 0};
  char buf[32];
  for (int i = 0; i < 4000; ++i) {
    std::snprintf(buf, sizeof buf, "key:%d", i);
    const std::size_t n = r.node(buf);
    EXPECT_EQ(n, crc32(buf) % 4 == 0 ? 0u : 1u) << buf;
    count[n]++;
  }
  EXPECT_GT(count[1], 2 * count[0]);
  EXPECT_THROW(Router(o, {{"a", 0}}), std::invalid_argument);
}

TEST(Hashkit, KetamaWeightsScalePoints) {
  // Weight 3 of 4 in all: about three quarters of the keys.
  KetamaRing ring({"127.0.0.1:6379", "127.0.0.1:6380"}, {1, 3});
  int count[2] = {0, 0};
  char buf[32];
  for (int i = 0; i < 20000; ++i) {
    std::snprintf(buf, sizeof buf, "key:%d", i);
    count[ring.node_for(buf)]++;
  }
  EXPECT_GT(count[1], 20000 * 6 / 10);
  EXPECT_LT(count[1], 20000 * 9 / 10);
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
