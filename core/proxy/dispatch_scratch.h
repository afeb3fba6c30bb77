#pragma once
// The buffers a request's dispatch reuses from one request to the next (none is allocated per
// request): its arguments, its keys split by node or slot, the parts' replies being merged.
// Internal to perflab_proxy.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "proxy/merge.h"

namespace perflab::proxy {

struct DispatchScratch {
  std::vector<std::string_view> argv;                // the request being dispatched
  KeySplit split;                                    // key indices per node (or per slot)
  std::vector<std::uint32_t> split_node;             // over a cluster: the node of each group
  std::unordered_map<int, std::size_t> split_group;  // over a cluster: slot -> group
  std::vector<std::uint32_t> keys;                   // a command's key indices
  std::vector<std::string_view> reply_views;         // the parts' replies, for merging
  std::string text;                                  // a command or reply being built
};

}  // namespace perflab::proxy
