#pragma once
// The proxy's command table: which commands it forwards, where their keys are, how replies of
// several nodes are merged, and RedisSharding's default key routing.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "proxy/hashkit.h"

namespace perflab::proxy {

// The part of a key that RedisSharding hashes: for a key ending in "{tag}" (a '}' as last byte,
// the last '{' before it, a non-empty tag between), the tag; otherwise the whole key. So
// "user{42}" and "cart{42}" land on the same node, while "{42}user" hashes as a whole.
std::string_view hash_tag(std::string_view key);

// RedisSharding's node: crc32(hash_tag(key)) mod nodes, nodes numbered in --nodes order (the
// default Router).
std::size_t node_for_key(std::string_view key, std::size_t nodes);

// How the proxy treats a command.
enum class CommandClass {
  Broadcast,  // sent to every node, one merged reply (PING, FLUSHDB, DBSIZE, KEYS, SCRIPT LOAD)
  Keyed,      // its keys (KeySpec) must all be on one node: forwarded whole, else CROSSSLOT
  Split,      // split per node and merged: MGET, DEL, EXISTS, UNLINK, TOUCH; MSET (key/value)
  Local,      // answered by the proxy itself (QUIT, AUTH, PROXY STATS)
  Admin,      // administrative: refused unless --allow-admin; then sent to every node on the
              // client's own connections (merge Identical), or never (merge None: MONITOR...)
  Unsupported,
};

// How replies of a command sent to several nodes are merged.
enum class MergeMode {
  None,       // single node: forwarded as is
  Identical,  // every node must give the same reply (PING, SELECT, FLUSHDB, SCRIPT LOAD, ...)
  SumInt,     // integers summed (DEL, EXISTS, UNLINK, TOUCH, DBSIZE)
  Values,     // array elements put back in the original key order (MGET)
  Concat,     // arrays concatenated (KEYS)
  AllOk,      // MSET: +OK when every node said +OK
  AllArray,   // arrays of 0/1 of equal length, element by element: 1 where every node said 1
              // (SCRIPT EXISTS)
};

// Where a command's keys are, as Redis's key specs say.
struct KeySpec {
  enum class Kind {
    None,     // no key
    Range,    // argv[first .. last] every `step`; last < 0 counts from the end (-1: last)
    NumKeys,  // argv[numkeys_at] = N, the N keys follow it; plus argv[first] when first > 0
              // (ZUNIONSTORE's destination)
  } kind = Kind::None;
  int first = 0, last = 0, step = 1;
  int numkeys_at = 0;
};

struct CommandInfo {
  CommandClass cls = CommandClass::Unsupported;
  MergeMode merge = MergeMode::None;
  int min_args = 1;  // including the command name; fewer gives Redis's arity error
  KeySpec keys;
  // Changes the state of its connection (SELECT) or may block it (BLPOP...): the client moves
  // to backend connections of its own first.
  bool dedicated = false;
  // A blocking command: the argument that holds its timeout in seconds (negative: from the end);
  // 0 for none. A reply may take that long, plus the backend timeout.
  int timeout_at = 0;
};

// Looks a command up (case-insensitive), by its name and, for commands with subcommands
// (SCRIPT), argv[1].
CommandInfo classify(const std::vector<std::string_view>& argv);
CommandInfo classify(std::string_view name);

// The argv indices of the keys of a Keyed or Split command. False when the command's own key
// count is malformed (numkeys not a number, negative, or beyond the arguments): the node that
// gets the command whole answers with Redis's error then.
bool command_keys(const KeySpec& spec, const std::vector<std::string_view>& argv,
                  std::vector<std::uint32_t>& out);

// The name of a command for messages: upper case, with its subcommand ("SCRIPT LOAD").
std::string command_name(const std::vector<std::string_view>& argv);

}  // namespace perflab::proxy
