#pragma once
// The proxy's key splitting and reply merging as pure functions (no sockets, no state): a
// multi-key command becomes one command per node, and the nodes' replies become the one reply
// the client expects, as if one Redis had answered. The proxy keeps the storage and reuses it.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "proxy/routing.h"

namespace perflab::proxy {

// Where the keys of a multi-key command go.
struct KeySplit {
  // by_node[n]: the argv indices of the keys for node n, in command order (for key/value
  // commands the key's index; its value follows it).
  std::vector<std::vector<std::uint32_t>> by_node;
  std::size_t used = 0;  // nodes that get at least one key
  std::size_t last = 0;  // the last node that got a key: the only one when used == 1
};

// Splits argv[1..] over the router's nodes: step 1 for commands whose arguments are all keys
// (MGET, DEL, EXISTS, UNLINK, TOUCH), step 2 for key/value pairs (MSET). Reuses the storage of
// `split`.
void split_keys(const std::vector<std::string_view>& argv, std::size_t step, const Router& router,
                KeySplit& split);

// Appends (RESP multibulk) the command one node gets: argv[0] and that node's keys (with their
// values for step 2), in command order.
void append_node_command(std::string& out, const std::vector<std::string_view>& argv,
                         const std::vector<std::uint32_t>& keys, std::size_t step);

// The parts of a split command are the nodes that got keys, numbered in node order. For key k
// of the command (0-based), order[k] = {part, index of its value in that part's array reply}.
using ReplyOrder = std::vector<std::pair<std::uint32_t, std::uint32_t>>;
void reply_order(const KeySplit& split, std::size_t step, ReplyOrder& order);

// Merges the replies of the parts (complete RESP replies, in part order) into `out` (cleared
// first). An error reply of any node wins (the first one); otherwise, by mode:
//   None       the only part's reply;
//   Identical  the common reply, or an error when the nodes differ (PING, FLUSHDB, SELECT...);
//   SumInt     the sum of the integer replies (DEL, EXISTS, UNLINK, TOUCH, DBSIZE);
//   Values     the array elements put back in key order, nils included (MGET; needs `order`);
//   Concat     the arrays concatenated (KEYS);
//   AllOk      +OK when every node said +OK (MSET);
//   AllArray   arrays of integers, element by element: 1 where every node said 1 (SCRIPT
//              EXISTS).
// A reply of the wrong type gives "ERR unexpected reply from a node to '<command>'".
void merge_replies(MergeMode mode, std::string_view command,
                   const std::vector<std::string_view>& replies, const ReplyOrder& order,
                   std::string& out);

}  // namespace perflab::proxy
