#include "proxy/routing.h"

#include <unordered_map>

#include "common/text.h"
#include "proxy/resp.h"

namespace perflab::proxy {

std::string_view hash_tag(std::string_view key) {
  return HashTag{}.apply(key);
}

std::size_t node_for_key(std::string_view key, std::size_t nodes) {
  return nodes == 0 ? 0 : crc32(hash_tag(key)) % nodes;
}

namespace {

KeySpec range(int first, int last, int step = 1) {
  return {KeySpec::Kind::Range, first, last, step, 0};
}
KeySpec numkeys(int at, int fixed_first = 0) {
  return {KeySpec::Kind::NumKeys, fixed_first, 0, 1, at};
}

using Table = std::unordered_map<std::string_view, CommandInfo>;

void keyed(Table& m, std::string_view name, int min_args, KeySpec keys, int timeout_at = 0) {
  CommandInfo i;
  i.cls = CommandClass::Keyed;
  i.min_args = min_args;
  i.keys = keys;
  i.timeout_at = timeout_at;
  i.dedicated = timeout_at != 0;
  m[name] = i;
}

void broadcast(Table& m, std::string_view name, MergeMode merge, int min_args) {
  CommandInfo i;
  i.cls = CommandClass::Broadcast;
  i.merge = merge;
  i.min_args = min_args;
  m[name] = i;
}

// Commands with subcommands are looked up as "NAME|SUB" (Redis's own notation).
const Table& table() {
  static const Table t = [] {
    Table m;
    // Sent to every node; one merged reply.
    broadcast(m, "PING", MergeMode::Identical, 1);
    broadcast(m, "ECHO", MergeMode::Identical, 2);
    broadcast(m, "FLUSHDB", MergeMode::Identical, 1);
    broadcast(m, "FLUSHALL", MergeMode::Identical, 1);
    broadcast(m, "DBSIZE", MergeMode::SumInt, 1);
    broadcast(m, "KEYS", MergeMode::Concat, 2);
    broadcast(m, "SCRIPT|LOAD", MergeMode::Identical, 3);
    broadcast(m, "SCRIPT|FLUSH", MergeMode::Identical, 2);
    broadcast(m, "SCRIPT|EXISTS", MergeMode::AllArray, 3);
    broadcast(m, "SELECT", MergeMode::Identical, 2);
    m["SELECT"].dedicated = true;
    // Split per node and merged.
    for (std::string_view c : {"MGET", "DEL", "EXISTS", "UNLINK", "TOUCH"})
      m[c] = {CommandClass::Split,
              c == "MGET" ? MergeMode::Values : MergeMode::SumInt,
              2,
              range(1, -1),
              false,
              0};
    m["MSET"] = {CommandClass::Split, MergeMode::AllOk, 3, range(1, -1, 2), false, 0};
    // Answered by the proxy.
    for (std::string_view c : {"QUIT", "AUTH", "PROXY"})
      m[c] = {CommandClass::Local, MergeMode::None, c == "QUIT" ? 1 : 2, {}, false, 0};
    // Administrative: refused unless --allow-admin. MONITOR and the replication handshake turn
    // a connection into a stream: never forwarded.
    for (std::string_view c : {"CONFIG", "DEBUG", "SHUTDOWN", "SLAVEOF", "REPLICAOF", "MODULE",
                               "ACL", "SAVE", "BGSAVE", "BGREWRITEAOF", "CLIENT", "CLUSTER",
                               "FAILOVER", "SWAPDB", "LATENCY", "SLOWLOG", "MIGRATE"})
      m[c] = {CommandClass::Admin, MergeMode::Identical, 1, {}, true, 0};
    for (std::string_view c : {"MONITOR", "SYNC", "PSYNC", "REPLCONF"})
      m[c] = {CommandClass::Admin, MergeMode::None, 1, {}, true, 0};

    // One key, argv[1].
    for (std::string_view c :
         {// strings
          "GET", "SET", "SETNX", "SETEX", "PSETEX", "APPEND", "STRLEN", "INCR", "DECR", "INCRBY",
          "DECRBY", "INCRBYFLOAT", "GETSET", "GETDEL", "GETEX", "GETRANGE", "SETRANGE", "SUBSTR",
          "GETBIT", "SETBIT", "BITCOUNT", "BITPOS", "BITFIELD", "BITFIELD_RO",
          // keys
          "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "EXPIRETIME", "PEXPIRETIME", "TTL", "PTTL",
          "PERSIST", "TYPE", "DUMP", "RESTORE", "MOVE",
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
          // hyperloglog, geo, streams
          "PFADD", "GEOADD", "GEODIST", "GEOPOS", "GEOHASH", "GEOSEARCH", "GEORADIUS_RO",
          "GEORADIUSBYMEMBER_RO", "XADD", "XLEN", "XRANGE", "XREVRANGE", "XDEL", "XTRIM"})
      keyed(m, c, 2, range(1, 1));

    // Several keys, all on one node: forwarded whole (else CROSSSLOT).
    for (std::string_view c : {"RENAME", "RENAMENX", "RPOPLPUSH", "COPY", "LCS"})
      keyed(m, c, 3, range(1, 2));
    keyed(m, "SMOVE", 4, range(1, 2));
    keyed(m, "LMOVE", 5, range(1, 2));
    keyed(m, "ZRANGESTORE", 5, range(1, 2));
    keyed(m, "GEOSEARCHSTORE", 5, range(1, 2));
    for (std::string_view c : {"SINTER", "SUNION", "SDIFF", "PFCOUNT", "PFMERGE"})
      keyed(m, c, 2, range(1, -1));
    for (std::string_view c : {"SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"})
      keyed(m, c, 3, range(1, -1));
    keyed(m, "BITOP", 4, range(2, -1));
    keyed(m, "MSETNX", 3, range(1, -1, 2));
    for (std::string_view c : {"ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"})
      keyed(m, c, 4, numkeys(2, 1));
    for (std::string_view c : {"ZUNION", "ZINTER", "ZDIFF", "SINTERCARD", "ZINTERCARD"})
      keyed(m, c, 3, numkeys(1));
    for (std::string_view c : {"LMPOP", "ZMPOP"}) keyed(m, c, 4, numkeys(1));
    for (std::string_view c : {"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO"})
      keyed(m, c, 3, numkeys(2));
    // Blocking: on the client's own connections, with their timeout.
    for (std::string_view c : {"BLPOP", "BRPOP", "BZPOPMIN", "BZPOPMAX"})
      keyed(m, c, 3, range(1, -2), -1);
    keyed(m, "BRPOPLPUSH", 4, range(1, 2), -1);
    keyed(m, "BLMOVE", 6, range(1, 2), -1);
    for (std::string_view c : {"BLMPOP", "BZMPOP"}) keyed(m, c, 5, numkeys(2), 1);
    return m;
  }();
  return t;
}

// Upper-cases into buf; false when too long to be a command.
bool upper_into(std::string_view s, char (&buf)[64], std::size_t at, std::size_t& len) {
  if (at + s.size() > sizeof buf) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    buf[at + i] = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  }
  len = at + s.size();
  return true;
}

}  // namespace

CommandInfo classify(std::string_view name) {
  char buf[64];
  std::size_t len = 0;
  if (!upper_into(name, buf, 0, len)) return {};
  const auto& t = table();
  auto it = t.find(std::string_view(buf, len));
  return it == t.end() ? CommandInfo{} : it->second;
}

CommandInfo classify(const std::vector<std::string_view>& argv) {
  if (argv.empty()) return {};
  CommandInfo info = classify(argv[0]);
  if (info.cls != CommandClass::Unsupported || argv.size() < 2) return info;
  // A command with subcommands: "NAME|SUB".
  char buf[64];
  std::size_t len = 0;
  if (!upper_into(argv[0], buf, 0, len) || len + 1 > sizeof buf) return {};
  buf[len] = '|';
  if (!upper_into(argv[1], buf, len + 1, len)) return {};
  const auto& t = table();
  auto it = t.find(std::string_view(buf, len));
  return it == t.end() ? CommandInfo{} : it->second;
}

bool command_keys(const KeySpec& spec, const std::vector<std::string_view>& argv,
                  std::vector<std::uint32_t>& out) {
  out.clear();
  const auto argc = static_cast<std::int64_t>(argv.size());
  switch (spec.kind) {
    case KeySpec::Kind::None:
      return true;
    case KeySpec::Kind::Range: {
      const std::int64_t last = spec.last < 0 ? argc + spec.last : spec.last;
      if (spec.first >= argc || last >= argc) return false;
      for (std::int64_t i = spec.first; i <= last; i += spec.step)
        out.push_back(static_cast<std::uint32_t>(i));
      return true;
    }
    case KeySpec::Kind::NumKeys: {
      if (spec.numkeys_at >= argc) return false;
      std::int64_t n = 0;
      if (!parse_int64(argv[static_cast<std::size_t>(spec.numkeys_at)], n) || n < 0 ||
          n > argc - 1 - spec.numkeys_at)
        return false;
      if (spec.first > 0) out.push_back(static_cast<std::uint32_t>(spec.first));
      for (std::int64_t i = 0; i < n; ++i)
        out.push_back(static_cast<std::uint32_t>(spec.numkeys_at + 1 + i));
      return true;
    }
  }
  return false;
}

std::string command_name(const std::vector<std::string_view>& argv) {
  if (argv.empty()) return {};
  std::string n = to_upper(argv[0]);
  if (argv.size() > 1 && classify(argv[0]).cls == CommandClass::Unsupported &&
      classify(argv).cls != CommandClass::Unsupported)
    n.append(" ").append(to_upper(argv[1]));
  return n;
}

}  // namespace perflab::proxy
