#pragma once
// Key routing as RedisSharding does it, the command classes, and the other key distributions
// the experiment compares (ketama ring, jump consistent hash).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace perflab::sharding {

// CRC-32 (IEEE 802.3, as zlib's crc32 and twemproxy's "crc32a").
std::uint32_t crc32(std::string_view data);

// The part of a key that is hashed: for a key ending in "{tag}" (a '}' as last byte, the last
// '{' before it, a non-empty tag between), the tag; otherwise the whole key. So "user{42}" and
// "cart{42}" land on the same node, while "{42}user" hashes as a whole.
std::string_view hash_tag(std::string_view key);

// RedisSharding's node: crc32(hash_tag(key)) mod nodes, nodes numbered in --nodes order.
std::size_t node_for_key(std::string_view key, std::size_t nodes);

// How the proxy treats a command.
enum class CommandClass {
  Broadcast,    // sent to every node, one merged reply
  SingleKey,    // argv[1] is the key; forwarded whole
  MultiKey,     // MGET, DEL, EXISTS, UNLINK, TOUCH: split per node, merged
  KeyValue,     // MSET, MSETNX: key/value pairs split per node
  BlockingPop,  // BLPOP, BRPOP: keys argv[1..n-2], all on one node
  Local,        // answered by the proxy itself (QUIT)
  Unsupported,
};

// How replies of a command sent to several nodes are merged.
enum class MergeMode {
  None,       // single node: forwarded as is
  Identical,  // every node must give the same reply (PING, SELECT, FLUSHDB, ...)
  SumInt,     // integers summed (DEL, EXISTS, UNLINK, TOUCH, DBSIZE)
  Values,     // array elements put back in the original key order (MGET)
  Concat,     // arrays concatenated (KEYS)
  AllOk,      // MSET: +OK when every node said +OK
  AllOne,     // MSETNX: 1 only when every node said 1 (not atomic across nodes)
};

struct CommandInfo {
  CommandClass cls = CommandClass::Unsupported;
  MergeMode merge = MergeMode::None;
  int min_args = 1;  // including the command name; fewer gives Redis's arity error
};

// Looks a command up (case-insensitive).
CommandInfo classify(std::string_view name);

// --- Distributions compared by the experiment's key distribution table ---

// modula: crc32(key) mod n (RedisSharding, twemproxy crc32a+modula).
std::size_t modula_node(std::string_view key, std::size_t n);

// Jump consistent hash (Lamping & Veach 2014) of a 64-bit key hash.
std::int32_t jump_consistent_hash(std::uint64_t key, std::int32_t buckets);
std::uint64_t fnv1a64(std::string_view data);

// A ketama ring as libketama/twemproxy build it: 160 points per node (40 MD5 digests of
// "name-i", 4 points each), keys placed by the first 4 bytes of MD5(key), clockwise.
class KetamaRing {
 public:
  explicit KetamaRing(const std::vector<std::string>& node_names);
  std::size_t node_for(std::string_view key) const;

 private:
  std::vector<std::pair<std::uint32_t, std::uint32_t>> points_;  // (hash, node), sorted
};

// MD5 of data (RFC 1321), for the ketama ring.
void md5(std::string_view data, unsigned char digest[16]);

}  // namespace perflab::sharding
