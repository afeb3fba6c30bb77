#pragma once
// Key hashing and key distribution as twemproxy (nutcracker 0.5) names and computes them, so that
// perflab-proxy routes every key of an existing twemproxy pool to the same server: the hash
// functions of its hashkit (one_at_a_time, md5, crc16, crc32, crc32a, fnv1_64, fnv1a_64,
// fnv1_32, fnv1a_32, hsieh, murmur, jenkins), modula and ketama distributions with weights, and
// hash tags. Also jump consistent hash, which the experiment compares with them.
//
// The functions reproduce twemproxy's results bit for bit on x86-64, including what follows from
// its C types: several of its hashes read key bytes as signed chars, so bytes >= 0x80 are
// sign-extended; fnv1a_64 is in fact a 32-bit FNV with the 64-bit constants truncated.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perflab::proxy {

// CRC-32 (IEEE 802.3, as zlib's crc32 and twemproxy's "crc32a").
std::uint32_t crc32(std::string_view data);
// FNV-1a with 64-bit arithmetic (the real one; the experiment's jump hash input).
std::uint64_t fnv1a64(std::string_view data);
// MD5 of data (RFC 1321).
void md5(std::string_view data, unsigned char digest[16]);

enum class HashFunction {
  OneAtATime,
  Md5,
  Crc16,
  Crc32,
  Crc32a,
  Fnv1_64,
  Fnv1a_64,
  Fnv1_32,
  Fnv1a_32,
  Hsieh,
  Murmur,
  Jenkins,
};
// twemproxy's names: "one_at_a_time", "md5", "crc16", "crc32", "crc32a", "fnv1_64", ...
const char* to_string(HashFunction h);
HashFunction parse_hash_function(std::string_view s);  // throws std::invalid_argument
std::vector<std::string> hash_function_names();
// The 32-bit hash twemproxy's `hash:` setting computes.
std::uint32_t hash_key(HashFunction h, std::string_view key);

enum class Distribution { Modula, Ketama };
const char* to_string(Distribution d);
Distribution parse_distribution(std::string_view s);  // throws std::invalid_argument

// Which part of a key is hashed.
struct HashTag {
  enum class Rule {
    None,      // the whole key (twemproxy without hash_tag)
    Trailing,  // RedisSharding: a key ending in "{tag}" hashes the tag ("user{42}" -> "42")
    Pair,      // twemproxy's hash_tag "ab": from the first `open` to the next `close` after it
  } rule = Rule::Trailing;
  char open = '{', close = '}';
  std::string_view apply(std::string_view key) const;
  // "trailing", "none", or two characters such as "{}" (twemproxy's hash_tag); throws
  // std::invalid_argument.
  static HashTag parse(std::string_view s);
  std::string describe() const;
};

// A ketama continuum as twemproxy builds it: per server, 160 points scaled by its share of the
// total weight (rounded down to a multiple of 4), from MD5 digests of "<name>-<i>"; a key goes
// to the first point at or after its hash, clockwise.
class KetamaRing {
 public:
  // weights empty: all 1.
  explicit KetamaRing(const std::vector<std::string>& names, const std::vector<int>& weights = {});
  std::size_t node_for_hash(std::uint32_t hash) const;
  // With the key hashed by MD5 (twemproxy's `hash: md5`, libketama's own choice).
  std::size_t node_for(std::string_view key) const;

 private:
  std::vector<std::pair<std::uint32_t, std::uint32_t>> points_;  // (hash, node), sorted
};

// A server of a pool: its ketama name (twemproxy: "host:port" unless the config names it) and
// weight.
struct PoolServer {
  std::string name;
  int weight = 1;
};

// Where a key goes: hash_tag, then hash, then distribution, as twemproxy's server_pool_idx.
// The default (crc32a, modula, trailing tag, weights 1) is RedisSharding's crc32(key) mod N.
struct RoutingOptions {
  HashFunction hash = HashFunction::Crc32a;
  Distribution distribution = Distribution::Modula;
  HashTag tag;
};

class Router {
 public:
  Router() = default;
  // Throws std::invalid_argument for no servers or a weight below 1.
  Router(RoutingOptions opts, const std::vector<PoolServer>& servers);
  // RedisSharding's routing over `nodes` servers: crc32 mod N, trailing {tag}.
  explicit Router(std::size_t nodes);
  // Redis Cluster's routing: node = owner[slot of the key] (CRC16, Redis's {tag} rule), over
  // `nodes` masters; owner has 16384 entries. The owner of one slot changes on MOVED.
  static Router cluster_slots(std::vector<std::uint32_t> owner, std::size_t nodes);
  bool uses_slots() const { return !slot_owner_.empty(); }
  void set_slot_owner(int slot, std::uint32_t node);
  std::size_t node(std::string_view key) const;
  std::size_t size() const { return size_; }
  const RoutingOptions& options() const { return opts_; }

 private:
  RoutingOptions opts_;
  std::size_t size_ = 0;
  std::vector<std::uint32_t> modula_;      // server index per weight unit, in server order
  std::vector<KetamaRing> ketama_;         // one, for ketama
  std::vector<std::uint32_t> slot_owner_;  // Redis Cluster: node per slot
};

// modula: crc32(key) mod n (RedisSharding, twemproxy crc32a+modula, weights 1).
std::size_t modula_node(std::string_view key, std::size_t n);
// Jump consistent hash (Lamping & Veach 2014) of a 64-bit key hash.
std::int32_t jump_consistent_hash(std::uint64_t key, std::int32_t buckets);

}  // namespace perflab::proxy
