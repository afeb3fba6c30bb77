#pragma once
// perflab-proxy over a Redis Cluster: the cluster's own slot map, read at start from a seed node
// (CLUSTER SLOTS) with the proxy's RESP code, so that perflab-proxy stays free of hiredis.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/endpoint.h"

namespace perflab::proxy {

struct ClusterUpstream {
  std::vector<RedisEndpoint> masters;     // in slot order
  std::vector<std::uint32_t> slot_owner;  // 16384 entries: index into masters
};

// Asks the seeds in turn (AUTH with `password` when set), each within `timeout`, for CLUSTER
// SLOTS. Throws std::runtime_error naming every seed tried and why when none gives a map that
// serves every slot.
ClusterUpstream fetch_cluster_upstream(const std::vector<RedisEndpoint>& seeds,
                                       const std::string& password,
                                       std::chrono::milliseconds timeout);

}  // namespace perflab::proxy
