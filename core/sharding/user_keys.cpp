// The user's keys for the key distribution: SCAN over their Redis (node by node, in turns) or
// the lines of a file, each key once, within the sample's bounds.
#include "sharding/user_keys.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unordered_set>

#include "common/params.h"
#include "proxy/hashkit.h"
#include "runner/experiment.h"
#include "targets/cluster.h"
#include "targets/redis.h"

namespace perflab::sharding {

namespace {

// Keys in the order first seen, each once, up to a bound.
class DistinctKeys {
 public:
  explicit DistinctKeys(std::size_t max) : max_(max) {}
  // False when the key is new but the bound is reached (it is left out).
  bool add(std::string key) {
    if (seen_.count(key)) return true;
    if (keys_.size() >= max_) return false;
    seen_.insert(key);
    keys_.push_back(std::move(key));
    return true;
  }
  bool full() const { return keys_.size() >= max_; }
  std::vector<std::string> take() { return std::move(keys_); }

 private:
  std::size_t max_;
  std::unordered_set<std::string> seen_;
  std::vector<std::string> keys_;
};

// One node's SCAN: its connection and its cursor ("0" again when it has gone round).
struct NodeScan {
  RedisClient client;
  std::string cursor = "0";
  bool done = false;
};

// The cursor and the keys of a SCAN reply; throws RedisError when it is not one.
const RedisReply& scan_keys_of(const RedisReply& r, const RedisClient& c, std::string& cursor) {
  const std::string where = "Redis at " + c.endpoint().address() + ": SCAN ";
  if (r.type == RedisReply::Type::Error) throw RedisError(where + "refused: " + r.str);
  if (r.type != RedisReply::Type::Array || r.elements.size() != 2 ||
      r.elements[0].type != RedisReply::Type::String ||
      r.elements[1].type != RedisReply::Type::Array)
    throw RedisError(where + "answered with something that is not a cursor and keys");
  cursor = r.elements[0].str;
  return r.elements[1];
}

}  // namespace

KeySample scan_keys(const std::vector<RedisEndpoint>& nodes, const ScanBounds& bounds,
                    std::chrono::milliseconds timeout, std::stop_token stop) {
  std::vector<NodeScan> scans;
  for (const auto& ep : nodes) scans.push_back({RedisClient(ep, timeout, stop)});
  const std::string count = std::to_string(bounds.count);
  DistinctKeys keys(bounds.max_keys);
  KeySample out;
  bool left_out = false;  // a key SCAN returned that the bound kept out
  // The nodes take turns, one SCAN each, so that a bound reached early still samples them all.
  const auto more = [&] { return !left_out && !keys.full() && out.scan_calls < bounds.max_calls; };
  for (bool pending = !scans.empty(); pending && more();) {
    pending = false;
    for (auto& s : scans) {
      if (s.done || !more()) continue;
      if (stop.stop_requested()) throw Cancelled{};
      const RedisReply r =
          s.client.command({"SCAN", s.cursor, "MATCH", bounds.match, "COUNT", count});
      ++out.scan_calls;
      for (const auto& k : scan_keys_of(r, s.client, s.cursor).elements)
        if (!keys.add(k.str)) left_out = true;
      s.done = s.cursor == "0";
      pending = pending || !s.done;
    }
  }
  out.whole = !left_out &&
              std::all_of(scans.begin(), scans.end(), [](const NodeScan& s) { return s.done; });
  out.keys = keys.take();
  return out;
}

std::vector<RedisEndpoint> cluster_masters(const std::vector<RedisEndpoint>& seeds,
                                           std::chrono::milliseconds timeout,
                                           std::stop_token stop) {
  std::vector<RedisEndpoint> masters = ClusterClient(seeds, timeout, std::move(stop)).masters();
  for (auto& m : masters) m.password = seeds.front().password;
  return masters;
}

KeySample read_key_file(const std::string& path, std::size_t max_keys) {
  const std::string what = "keys_file: cannot read '" + path + "': ";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ParamError(what + "it is a folder");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParamError(what + std::strerror(errno));
  DistinctKeys keys(max_keys);
  KeySample out;
  std::string line;
  while (!keys.full() && std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) keys.add(line);
  }
  if (in.bad()) throw ParamError(what + std::strerror(errno));
  // Whole when nothing is left after the last key taken.
  out.whole = in.eof() || (in >> std::ws).eof();
  out.keys = keys.take();
  if (out.keys.empty())
    throw ParamError("keys_file: '" + path + "' holds no key (one key per line)");
  return out;
}

std::string key_set_fingerprint(std::vector<std::string> keys) {
  std::sort(keys.begin(), keys.end());
  std::string hashes;
  hashes.reserve(keys.size() * 8);
  for (const auto& k : keys) {
    const std::uint64_t h = proxy::fnv1a64(k);
    for (int b = 0; b < 8; ++b) hashes.push_back(static_cast<char>(h >> (8 * b)));
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(proxy::fnv1a64(hashes)));
  return hex;
}

}  // namespace perflab::sharding
