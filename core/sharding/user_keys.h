#pragma once
// The user's own keys for the key distribution, read-only: sampled from their Redis with SCAN
// (never KEYS, never a write) or read from a file, distinct and bounded.
#include <chrono>
#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "common/endpoint.h"

namespace perflab::sharding {

struct KeySample {
  std::vector<std::string> keys;  // distinct, in the order first seen
  std::int64_t scan_calls = 0;    // SCAN commands sent, over every node
  // Every node's cursor came back to 0 (or the file was read to its end) with no key left out.
  bool whole = false;
};

// How a sample is taken from Redis: SCAN cursor MATCH match COUNT count on every node in turn,
// until max_keys distinct keys or max_calls SCAN calls in all or every cursor is back at 0.
struct ScanBounds {
  std::string match = "*";
  std::int64_t count = 1000;
  std::size_t max_keys = 100000;
  std::int64_t max_calls = 10000;
};

// Samples the keys of `nodes` (standalone servers, or a cluster's masters), each over a
// connection of its own bounded by `timeout`, a stop seen between calls (and within kStopSlice
// of a wait). Sends nothing but AUTH (when the endpoint has a password) and SCAN. Throws
// RedisError naming the node (refused, timeout, SCAN answered with an error), Cancelled when
// stopped.
KeySample scan_keys(const std::vector<RedisEndpoint>& nodes, const ScanBounds& bounds,
                    std::chrono::milliseconds timeout, std::stop_token stop);

// The masters of the Redis Cluster `seeds` belong to (CLUSTER SLOTS), with the seeds' password.
std::vector<RedisEndpoint> cluster_masters(const std::vector<RedisEndpoint>& seeds,
                                           std::chrono::milliseconds timeout, std::stop_token stop);

// One key per line of `path` (a trailing '\r' dropped, empty lines skipped), the first
// max_keys distinct ones. Throws ParamError ("keys_file: ...") when the file cannot be read or
// holds no key.
KeySample read_key_file(const std::string& path, std::size_t max_keys);

// A fingerprint of the key set (not of their order): FNV-1a 64 over the sorted keys, as 16 hex
// digits. Two samples of the same keys have the same one; it does not give the names away.
std::string key_set_fingerprint(std::vector<std::string> keys);

}  // namespace perflab::sharding
