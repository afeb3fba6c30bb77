#include "proxy/hashkit.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "common/key_slot.h"

namespace perflab::proxy {

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

std::size_t modula_node(std::string_view key, std::size_t n) {
  return crc32(key) % n;
}

// ---------------------------------------------------------------------------------------------
// twemproxy's hash functions

namespace {

// A key byte as twemproxy's hashes that read `const char` see it: sign-extended.
std::uint32_t sx32(char c) {
  return static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<signed char>(c)));
}
std::uint64_t sx64(char c) {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<signed char>(c)));
}
std::uint32_t byte(char c) {
  return static_cast<unsigned char>(c);
}
std::uint32_t le32(const char* p) {
  return byte(p[0]) | byte(p[1]) << 8 | byte(p[2]) << 16 | byte(p[3]) << 24;
}

std::uint32_t one_at_a_time(std::string_view k) {
  std::uint32_t v = 0;
  for (char c : k) {
    v += sx32(c);
    v += v << 10;
    v ^= v >> 6;
  }
  v += v << 3;
  v ^= v >> 11;
  v += v << 15;
  return v;
}

std::uint32_t md5_32(std::string_view k) {
  unsigned char d[16];
  md5(k, d);
  return static_cast<std::uint32_t>(d[0]) | static_cast<std::uint32_t>(d[1]) << 8 |
         static_cast<std::uint32_t>(d[2]) << 16 | static_cast<std::uint32_t>(d[3]) << 24;
}

// CRC-16/XMODEM (polynomial 0x1021, initial 0; Redis Cluster's table), with twemproxy's 32-bit
// accumulator: the bits shifted out above 16 are kept in the result.
std::uint32_t crc16(std::string_view k) {
  const auto& table = crc16_xmodem_table();
  std::uint32_t crc = 0;
  for (char c : k) crc = (crc << 8) ^ table[((crc >> 8) ^ byte(c)) & 0xff];
  return crc;
}

std::uint32_t fnv1_64(std::string_view k) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : k) {
    h *= 0x100000001b3ULL;
    h ^= sx64(c);
  }
  return static_cast<std::uint32_t>(h);
}

// twemproxy's "fnv1a_64": 32-bit arithmetic with the 64-bit offset basis and prime truncated.
std::uint32_t fnv1a_64_32(std::string_view k) {
  std::uint32_t h = static_cast<std::uint32_t>(0xcbf29ce484222325ULL);
  for (char c : k) {
    h ^= sx32(c);
    h *= static_cast<std::uint32_t>(0x100000001b3ULL);
  }
  return h;
}

std::uint32_t fnv1_32(std::string_view k) {
  std::uint32_t h = 2166136261u;
  for (char c : k) {
    h *= 16777619u;
    h ^= sx32(c);
  }
  return h;
}

std::uint32_t fnv1a_32(std::string_view k) {
  std::uint32_t h = 2166136261u;
  for (char c : k) {
    h ^= sx32(c);
    h *= 16777619u;
  }
  return h;
}

// Paul Hsieh's SuperFastHash.
std::uint32_t hsieh(std::string_view k) {
  if (k.empty()) return 0;
  auto get16 = [](const char* p) { return byte(p[0]) | byte(p[1]) << 8; };
  std::uint32_t h = 0;
  const char* p = k.data();
  for (std::size_t n = k.size() / 4; n > 0; --n, p += 4) {
    h += get16(p);
    const std::uint32_t tmp = (get16(p + 2) << 11) ^ h;
    h = (h << 16) ^ tmp;
    h += h >> 11;
  }
  switch (k.size() & 3) {
    case 3:
      h += get16(p);
      h ^= h << 16;
      h ^= sx32(p[2]) << 18;
      h += h >> 11;
      break;
    case 2:
      h += get16(p);
      h ^= h << 11;
      h += h >> 17;
      break;
    case 1:
      h += byte(p[0]);
      h ^= h << 10;
      h += h >> 1;
      break;
    default:
      break;
  }
  h ^= h << 3;
  h += h >> 5;
  h ^= h << 4;
  h += h >> 17;
  h ^= h << 25;
  h += h >> 6;
  return h;
}

// MurmurHash2 with twemproxy's seed (0xdeadbeef * length).
std::uint32_t murmur(std::string_view k) {
  const std::uint32_t m = 0x5bd1e995;
  const auto len = static_cast<std::uint32_t>(k.size());
  std::uint32_t h = (0xdeadbeefu * len) ^ len;
  const char* p = k.data();
  std::size_t n = k.size();
  for (; n >= 4; n -= 4, p += 4) {
    std::uint32_t w = le32(p);
    w *= m;
    w ^= w >> 24;
    w *= m;
    h *= m;
    h ^= w;
  }
  switch (n) {
    case 3:
      h ^= byte(p[2]) << 16;
      [[fallthrough]];
    case 2:
      h ^= byte(p[1]) << 8;
      [[fallthrough]];
    case 1:
      h ^= byte(p[0]);
      h *= m;
      break;
    default:
      break;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return h;
}

// Bob Jenkins' lookup3 hashlittle, initial value 13, read byte by byte (equal to its aligned
// word reads on a little-endian machine).
std::uint32_t jenkins(std::string_view k) {
  auto rot = [](std::uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
  std::uint32_t a, b, c;
  a = b = c = 0xdeadbeefu + static_cast<std::uint32_t>(k.size()) + 13u;
  const char* p = k.data();
  std::size_t n = k.size();
  auto word = [&](std::size_t i, std::size_t have) {
    std::uint32_t w = 0;
    for (std::size_t j = 0; j < 4 && i + j < have; ++j) w |= byte(p[i + j]) << (8 * j);
    return w;
  };
  while (n > 12) {
    a += le32(p);
    b += le32(p + 4);
    c += le32(p + 8);
    a -= c, a ^= rot(c, 4), c += b;
    b -= a, b ^= rot(a, 6), a += c;
    c -= b, c ^= rot(b, 8), b += a;
    a -= c, a ^= rot(c, 16), c += b;
    b -= a, b ^= rot(a, 19), a += c;
    c -= b, c ^= rot(b, 4), b += a;
    n -= 12;
    p += 12;
  }
  if (n == 0) return c;
  a += word(0, n);
  b += word(4, n);
  c += word(8, n);
  c ^= b, c -= rot(b, 14);
  a ^= c, a -= rot(c, 11);
  b ^= a, b -= rot(a, 25);
  c ^= b, c -= rot(b, 16);
  a ^= c, a -= rot(c, 4);
  b ^= a, b -= rot(a, 14);
  c ^= b, c -= rot(b, 24);
  return c;
}

struct HashName {
  HashFunction h;
  const char* name;
};
constexpr HashName kHashNames[] = {
    {HashFunction::OneAtATime, "one_at_a_time"},
    {HashFunction::Md5, "md5"},
    {HashFunction::Crc16, "crc16"},
    {HashFunction::Crc32, "crc32"},
    {HashFunction::Crc32a, "crc32a"},
    {HashFunction::Fnv1_64, "fnv1_64"},
    {HashFunction::Fnv1a_64, "fnv1a_64"},
    {HashFunction::Fnv1_32, "fnv1_32"},
    {HashFunction::Fnv1a_32, "fnv1a_32"},
    {HashFunction::Hsieh, "hsieh"},
    {HashFunction::Murmur, "murmur"},
    {HashFunction::Jenkins, "jenkins"},
};

}  // namespace

const char* to_string(HashFunction h) {
  for (const auto& n : kHashNames)
    if (n.h == h) return n.name;
  return "?";
}

std::vector<std::string> hash_function_names() {
  std::vector<std::string> out;
  for (const auto& n : kHashNames) out.emplace_back(n.name);
  return out;
}

HashFunction parse_hash_function(std::string_view s) {
  for (const auto& n : kHashNames)
    if (s == n.name) return n.h;
  std::string all;
  for (const auto& n : kHashNames) all += std::string(all.empty() ? "" : ", ") + n.name;
  throw std::invalid_argument("unknown hash '" + std::string(s) + "' (expected one of " + all +
                              ")");
}

std::uint32_t hash_key(HashFunction h, std::string_view key) {
  switch (h) {
    case HashFunction::OneAtATime:
      return one_at_a_time(key);
    case HashFunction::Md5:
      return md5_32(key);
    case HashFunction::Crc16:
      return crc16(key);
    case HashFunction::Crc32:
      return (crc32(key) >> 16) & 0x7fff;
    case HashFunction::Crc32a:
      return crc32(key);
    case HashFunction::Fnv1_64:
      return fnv1_64(key);
    case HashFunction::Fnv1a_64:
      return fnv1a_64_32(key);
    case HashFunction::Fnv1_32:
      return fnv1_32(key);
    case HashFunction::Fnv1a_32:
      return fnv1a_32(key);
    case HashFunction::Hsieh:
      return hsieh(key);
    case HashFunction::Murmur:
      return murmur(key);
    case HashFunction::Jenkins:
      return jenkins(key);
  }
  return 0;
}

const char* to_string(Distribution d) {
  return d == Distribution::Modula ? "modula" : "ketama";
}

Distribution parse_distribution(std::string_view s) {
  if (s == "modula") return Distribution::Modula;
  if (s == "ketama") return Distribution::Ketama;
  if (s == "random")
    throw std::invalid_argument(
        "distribution 'random' is not supported: a key would be read from a server other than "
        "the one it was written to (expected modula or ketama)");
  throw std::invalid_argument("unknown distribution '" + std::string(s) +
                              "' (expected modula or ketama)");
}

// ---------------------------------------------------------------------------------------------
// Hash tags

std::string_view HashTag::apply(std::string_view key) const {
  switch (rule) {
    case Rule::None:
      return key;
    case Rule::Trailing: {
      if (key.size() < 3 || key.back() != close) return key;
      std::size_t o = key.rfind(open, key.size() - 2);
      if (o == std::string_view::npos || o + 1 >= key.size() - 1) return key;
      return key.substr(o + 1, key.size() - 2 - o);
    }
    case Rule::Pair: {
      std::size_t o = key.find(open);
      if (o == std::string_view::npos) return key;
      std::size_t c = key.find(close, o + 1);
      if (c == std::string_view::npos || c - o <= 1) return key;
      return key.substr(o + 1, c - o - 1);
    }
  }
  return key;
}

HashTag HashTag::parse(std::string_view s) {
  HashTag t;
  if (s == "trailing") return t;
  if (s == "none" || s.empty()) {
    t.rule = Rule::None;
    return t;
  }
  if (s.size() != 2)
    throw std::invalid_argument("bad hash tag '" + std::string(s) +
                                "' (expected two characters such as {}, or trailing, or none)");
  t.rule = Rule::Pair;
  t.open = s[0];
  t.close = s[1];
  return t;
}

std::string HashTag::describe() const {
  switch (rule) {
    case Rule::None:
      return "none";
    case Rule::Trailing:
      return "trailing";
    case Rule::Pair:
      return std::string{open, close};
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// Ketama and the router

KetamaRing::KetamaRing(const std::vector<std::string>& names, const std::vector<int>& weights) {
  const auto n = static_cast<std::uint32_t>(names.size());
  std::uint32_t total = 0;
  for (std::uint32_t i = 0; i < n; ++i)
    total += weights.empty() ? 1u : static_cast<std::uint32_t>(weights[i]);
  for (std::uint32_t s = 0; s < n; ++s) {
    const float pct =
        static_cast<float>(weights.empty() ? 1 : weights[s]) / static_cast<float>(total);
    // twemproxy's expression, types included (float, one double addition): the same rounding.
    const auto per_server = static_cast<std::uint32_t>(
        std::floor(static_cast<float>(pct * 160 / 4 * static_cast<float>(n) + 0.0000000001)) * 4);
    for (std::uint32_t i = 0; i < per_server / 4; ++i) {
      unsigned char d[16];
      md5(names[s] + "-" + std::to_string(i), d);
      for (int x = 0; x < 4; ++x) {
        std::uint32_t h = (static_cast<std::uint32_t>(d[3 + x * 4]) << 24) |
                          (static_cast<std::uint32_t>(d[2 + x * 4]) << 16) |
                          (static_cast<std::uint32_t>(d[1 + x * 4]) << 8) | d[x * 4];
        points_.emplace_back(h, s);
      }
    }
  }
  std::sort(points_.begin(), points_.end());
}

std::size_t KetamaRing::node_for_hash(std::uint32_t h) const {
  if (points_.empty()) return 0;
  auto it = std::lower_bound(points_.begin(), points_.end(), std::make_pair(h, 0u));
  if (it == points_.end()) it = points_.begin();
  return it->second;
}

std::size_t KetamaRing::node_for(std::string_view key) const {
  return node_for_hash(md5_32(key));
}

Router::Router(RoutingOptions opts, const std::vector<PoolServer>& servers)
    : opts_(opts), size_(servers.size()) {
  if (servers.empty()) throw std::invalid_argument("no servers to route to");
  std::vector<std::string> names;
  std::vector<int> weights;
  for (std::uint32_t i = 0; i < servers.size(); ++i) {
    const PoolServer& s = servers[i];
    if (s.weight < 1)
      throw std::invalid_argument("server " + s.name + ": weight " + std::to_string(s.weight) +
                                  " (must be at least 1)");
    for (int w = 0; w < s.weight; ++w) modula_.push_back(i);
    names.push_back(s.name);
    weights.push_back(s.weight);
  }
  if (opts_.distribution == Distribution::Ketama) ketama_.emplace_back(names, weights);
}

Router::Router(std::size_t nodes) : size_(nodes) {
  for (std::uint32_t i = 0; i < nodes; ++i) modula_.push_back(i);
}

Router Router::cluster_slots(std::vector<std::uint32_t> owner, std::size_t nodes) {
  if (owner.size() != static_cast<std::size_t>(kClusterSlots))
    throw std::invalid_argument("a slot map has 16384 entries");
  for (std::uint32_t n : owner)
    if (n >= nodes) throw std::invalid_argument("a slot map names a node that is not there");
  Router r(nodes);
  r.slot_owner_ = std::move(owner);
  return r;
}

void Router::set_slot_owner(int slot, std::uint32_t node) {
  if (slot >= 0 && slot < kClusterSlots && node < size_)
    slot_owner_[static_cast<std::size_t>(slot)] = node;
}

std::size_t Router::node(std::string_view key) const {
  if (!slot_owner_.empty()) return slot_owner_[static_cast<std::size_t>(cluster_key_slot(key))];
  if (size_ <= 1) return 0;
  key = opts_.tag.apply(key);
  // twemproxy hashes an empty key to 0.
  const std::uint32_t h = key.empty() ? 0 : hash_key(opts_.hash, key);
  if (!ketama_.empty()) return ketama_.front().node_for_hash(h);
  return modula_[h % modula_.size()];
}

}  // namespace perflab::proxy
