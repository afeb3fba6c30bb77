#include "sharding/routing.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace perflab::sharding {

std::uint32_t crc32(std::string_view data) {
  uLong c = ::crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths: feed very large inputs in pieces.
  while (!data.empty()) {
    std::size_t n = std::min<std::size_t>(data.size(), 1u << 30);
    c = ::crc32(c, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(n));
    data.remove_prefix(n);
  }
  return static_cast<std::uint32_t>(c);
}

std::string_view hash_tag(std::string_view key) {
  if (key.size() < 3 || key.back() != '}') return key;
  std::size_t open = key.rfind('{', key.size() - 2);
  if (open == std::string_view::npos || open + 1 >= key.size() - 1) return key;
  return key.substr(open + 1, key.size() - 2 - open);
}

std::size_t node_for_key(std::string_view key, std::size_t nodes) {
  return nodes == 0 ? 0 : crc32(hash_tag(key)) % nodes;
}

namespace {

const std::unordered_map<std::string_view, CommandInfo>& table() {
  static const std::unordered_map<std::string_view, CommandInfo> t = [] {
    std::unordered_map<std::string_view, CommandInfo> m;
    // Sent to every node; one merged reply.
    for (std::string_view c : {"PING", "ECHO", "SELECT", "FLUSHDB", "FLUSHALL", "CONFIG"})
      m[c] = {CommandClass::Broadcast, MergeMode::Identical, 1};
    m["AUTH"] = {CommandClass::Broadcast, MergeMode::Identical, 2};
    m["SELECT"].min_args = 2;
    m["ECHO"].min_args = 2;
    m["CONFIG"].min_args = 2;
    m["DBSIZE"] = {CommandClass::Broadcast, MergeMode::SumInt, 1};
    m["KEYS"] = {CommandClass::Broadcast, MergeMode::Concat, 2};
    // Split per node and merged.
    m["MGET"] = {CommandClass::MultiKey, MergeMode::Values, 2};
    for (std::string_view c : {"DEL", "EXISTS", "UNLINK", "TOUCH"})
      m[c] = {CommandClass::MultiKey, MergeMode::SumInt, 2};
    m["MSET"] = {CommandClass::KeyValue, MergeMode::AllOk, 3};
    m["MSETNX"] = {CommandClass::KeyValue, MergeMode::AllOne, 3};
    m["BLPOP"] = {CommandClass::BlockingPop, MergeMode::None, 3};
    m["BRPOP"] = {CommandClass::BlockingPop, MergeMode::None, 3};
    m["QUIT"] = {CommandClass::Local, MergeMode::None, 1};
    // Single-key commands: the key is argv[1].
    for (std::string_view c :
         {// strings
          "GET", "SET", "SETNX", "SETEX", "PSETEX", "APPEND", "STRLEN", "INCR", "DECR", "INCRBY",
          "DECRBY", "INCRBYFLOAT", "GETSET", "GETDEL", "GETEX", "GETRANGE", "SETRANGE", "SUBSTR",
          "GETBIT", "SETBIT", "BITCOUNT", "BITPOS", "BITFIELD",
          // keys
          "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "EXPIRETIME", "PEXPIRETIME", "TTL", "PTTL",
          "PERSIST", "TYPE", "DUMP", "RESTORE",
          // lists
          "LPUSH", "RPUSH", "LPUSHX", "RPUSHX", "LPOP", "RPOP", "LLEN", "LRANGE", "LINDEX", "LSET",
          "LREM", "LTRIM", "LINSERT", "LPOS",
          // sets
          "SADD", "SREM", "SMEMBERS", "SISMEMBER", "SMISMEMBER", "SCARD", "SPOP", "SRANDMEMBER",
          "SSCAN",
          // sorted sets
          "ZADD", "ZREM", "ZRANGE", "ZREVRANGE", "ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX",
          "ZREVRANGEBYLEX", "ZCARD", "ZSCORE", "ZMSCORE", "ZINCRBY", "ZRANK", "ZREVRANK", "ZCOUNT",
          "ZLEXCOUNT", "ZREMRANGEBYRANK", "ZREMRANGEBYSCORE", "ZREMRANGEBYLEX", "ZPOPMIN",
          "ZPOPMAX", "ZSCAN", "ZRANDMEMBER",
          // hashes
          "HSET", "HSETNX", "HMSET", "HGET", "HMGET", "HDEL", "HEXISTS", "HLEN", "HSTRLEN", "HKEYS",
          "HVALS", "HGETALL", "HINCRBY", "HINCRBYFLOAT", "HSCAN", "HRANDFIELD",
          // hyperloglog (one key)
          "PFADD"})
      m[c] = {CommandClass::SingleKey, MergeMode::None, 2};
    return m;
  }();
  return t;
}

}  // namespace

CommandInfo classify(std::string_view name) {
  char buf[32];
  if (name.size() > sizeof buf) return {};
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    buf[i] = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  }
  const auto& t = table();
  auto it = t.find(std::string_view(buf, name.size()));
  return it == t.end() ? CommandInfo{} : it->second;
}

// ---------------------------------------------------------------------------------------------
// Distributions

std::size_t modula_node(std::string_view key, std::size_t n) {
  return crc32(key) % n;
}

std::int32_t jump_consistent_hash(std::uint64_t key, std::int32_t buckets) {
  std::int64_t b = -1, j = 0;
  while (j < buckets) {
    b = j;
    key = key * 2862933555777941757ULL + 1;
    j = static_cast<std::int64_t>(
        static_cast<double>(b + 1) *
        (static_cast<double>(1LL << 31) / static_cast<double>((key >> 33) + 1)));
  }
  return static_cast<std::int32_t>(b);
}

std::uint64_t fnv1a64(std::string_view data) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

void md5(std::string_view data, unsigned char digest[16]) {
  static const std::uint32_t s[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                      5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                                      4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                      6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};
  static const auto k = [] {
    std::vector<std::uint32_t> v(64);
    for (int i = 0; i < 64; ++i)
      v[i] = static_cast<std::uint32_t>(std::floor(std::fabs(std::sin(i + 1.0)) * 4294967296.0));
    return v;
  }();
  std::uint32_t a0 = 0x67452301, b0 = 0xefcdab89, c0 = 0x98badcfe, d0 = 0x10325476;
  std::string msg(data);
  std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
  msg.push_back(static_cast<char>(0x80));
  while (msg.size() % 64 != 56) msg.push_back('\0');
  for (int i = 0; i < 8; ++i) msg.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  auto rotl = [](std::uint32_t x, std::uint32_t c) { return (x << c) | (x >> (32 - c)); };
  for (std::size_t off = 0; off < msg.size(); off += 64) {
    std::uint32_t m[16];
    for (int i = 0; i < 16; ++i) {
      const auto* p = reinterpret_cast<const unsigned char*>(msg.data() + off + 4 * i);
      m[i] = p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
    }
    std::uint32_t a = a0, b = b0, c = c0, d = d0;
    for (int i = 0; i < 64; ++i) {
      std::uint32_t f, g;
      if (i < 16) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (i < 32) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) % 16;
      } else if (i < 48) {
        f = b ^ c ^ d;
        g = (3 * i + 5) % 16;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) % 16;
      }
      f = f + a + k[i] + m[g];
      a = d;
      d = c;
      c = b;
      b = b + rotl(f, s[i]);
    }
    a0 += a, b0 += b, c0 += c, d0 += d;
  }
  std::uint32_t out[4] = {a0, b0, c0, d0};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) digest[4 * i + j] = static_cast<unsigned char>(out[i] >> (8 * j));
}

KetamaRing::KetamaRing(const std::vector<std::string>& node_names) {
  for (std::uint32_t n = 0; n < node_names.size(); ++n) {
    for (int i = 0; i < 40; ++i) {
      unsigned char d[16];
      md5(node_names[n] + "-" + std::to_string(i), d);
      for (int x = 0; x < 4; ++x) {
        std::uint32_t h = (static_cast<std::uint32_t>(d[3 + x * 4]) << 24) |
                          (static_cast<std::uint32_t>(d[2 + x * 4]) << 16) |
                          (static_cast<std::uint32_t>(d[1 + x * 4]) << 8) | d[x * 4];
        points_.emplace_back(h, n);
      }
    }
  }
  std::sort(points_.begin(), points_.end());
}

std::size_t KetamaRing::node_for(std::string_view key) const {
  if (points_.empty()) return 0;
  unsigned char d[16];
  md5(key, d);
  std::uint32_t h = (static_cast<std::uint32_t>(d[3]) << 24) |
                    (static_cast<std::uint32_t>(d[2]) << 16) |
                    (static_cast<std::uint32_t>(d[1]) << 8) | d[0];
  auto it = std::lower_bound(points_.begin(), points_.end(), std::make_pair(h, 0u));
  if (it == points_.end()) it = points_.begin();
  return it->second;
}

}  // namespace perflab::sharding
