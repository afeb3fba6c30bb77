#pragma once
// A request in its client's FIFO until its reply goes out: whole to one node, or split or
// broadcast with a part per node merged once all are in, or a huge fan-out sent and merged a
// batch at a time. Internal to perflab_proxy.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "proxy/merge.h"
#include "proxy/redact.h"
#include "proxy/routing.h"

namespace perflab::proxy {

// One node's part of a split or broadcast command, and its reply once it came.
struct Part {
  bool done = false;
  std::string reply;
};

struct Batched;

// A request's place in its client's FIFO. Most go whole to one node (`single`): their reply
// needs no parts (no allocation) and is kept in `reply` only when it comes before an earlier
// request's. Split and broadcast commands have a part per node, merged once all are in.
struct Pending {
  MergeMode merge = MergeMode::None;
  int remaining = 0;
  bool close_after = false;
  bool single = false;
  std::string reply;  // known at once (errors, QUIT), or the single node's, waiting its turn
  std::string name;   // command name, for merge errors
  std::vector<Part> parts;
  ReplyOrder order;                  // MGET: key -> (part, index)
  Redact redact = Redact::None;      // what the reply may not show (proxy/redact.h)
  std::unique_ptr<Batched> batched;  // a fan-out sent in batches (fanout.cpp)
};

// A split command of more than kFanoutBatchKeys keys: its keys go a batch per loop turn, each
// batch split by node into parts of its own, and the parts' replies are merged batch by batch
// as they come, so that neither splitting nor merging a million keys holds the loop for long.
// The Pending's `remaining` counts one more while batches are still to be sent.
inline constexpr std::size_t kFanoutBatchKeys = 32 * 1024;
struct Batched {
  struct Batch {
    std::uint32_t first_part = 0, parts = 0;
    ReplyOrder order;  // MGET: the batch's key -> (its part, index)
  };
  std::vector<Batch> batches;
  std::size_t merged = 0;  // batches merged so far, in order
  std::string values;      // MGET: the values merged so far, in key order
  std::int64_t count = 0;  // MGET: how many; DEL...: the sum so far
  std::string error;       // the first error, which wins
};

// The fan-out a client is sending: its command stays in the client's input (argv views into
// it), which is neither read into nor consumed until the last batch is sent.
struct Fanout {
  std::vector<std::string_view> argv;
  CommandInfo info;
  std::uint64_t seq = 0;
  std::size_t next = 1;      // argv index of the next batch's first key
  std::size_t consumed = 0;  // the command's length in the input
};

}  // namespace perflab::proxy
