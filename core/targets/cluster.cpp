#include "targets/cluster.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "common/key_slot.h"
#include "common/text.h"

namespace perflab {
namespace {

RedisReply error_reply(std::string text) {
  RedisReply r;
  r.type = RedisReply::Type::Error;
  r.str = std::move(text);
  return r;
}

// hiredis's reply as the protocol's functions read it (strings stay in the reply).
ClusterReplyNode reply_node(const RedisReply& reply) {
  return cluster_reply_node(reply, [](const RedisReply& r) {
    using Type = ClusterReplyNode::Type;
    switch (r.type) {
      case RedisReply::Type::Integer:
        return Type::Integer;
      case RedisReply::Type::String:
      case RedisReply::Type::Status:
        return Type::String;
      case RedisReply::Type::Array:
        return Type::Array;
      default:
        return Type::Other;
    }
  });
}

bool same_node(const RedisEndpoint& a, const RedisEndpoint& b) {
  return a.host == b.host && a.port == b.port;
}

}  // namespace

std::vector<ClusterSlotRange> parse_cluster_slots(const RedisReply& reply,
                                                  const RedisEndpoint& asked) {
  if (reply.type == RedisReply::Type::Error)
    throw RedisError("Redis at " + asked.address() + ": CLUSTER SLOTS failed: " + reply.str +
                     (reply.str.find("cluster support disabled") != std::string::npos
                          ? " (not a Redis Cluster node)"
                          : ""));
  try {
    return parse_cluster_slots(reply_node(reply), asked.host);
  } catch (const std::invalid_argument& e) {
    throw RedisError("Redis at " + asked.address() + ": " + e.what());
  }
}

// ---- ClusterClient ----

ClusterClient::ClusterClient(std::vector<RedisEndpoint> seeds, std::chrono::milliseconds timeout,
                             std::stop_token stop)
    : seeds_(std::move(seeds)), timeout_(timeout), stop_(std::move(stop)) {
  if (seeds_.empty()) throw RedisError("Redis Cluster: no seed node given");
  password_ = seeds_.front().password;
  slot_owner_.fill(-1);
  refresh_slots();
}

std::size_t ClusterClient::node_index(const RedisEndpoint& ep) {
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (same_node(nodes_[i], ep)) return i;
  RedisEndpoint node = ep;
  node.password = password_;
  nodes_.push_back(std::move(node));
  return nodes_.size() - 1;
}

RedisClient& ClusterClient::connection(const RedisEndpoint& ep) {
  const std::string key = ep.address();
  auto it = connections_.find(key);
  if (it != connections_.end()) return it->second;
  RedisEndpoint with_password = ep;
  with_password.password = password_;
  return connections_.emplace(key, RedisClient(with_password, timeout_, stop_)).first->second;
}

void ClusterClient::load_map(const std::vector<ClusterSlotRange>& ranges) {
  ranges_ = ranges;
  slot_owner_.fill(-1);
  for (const auto& r : ranges_) {
    const auto node = static_cast<int>(node_index(r.master));
    for (int s = r.first; s <= r.last; ++s) slot_owner_[static_cast<std::size_t>(s)] = node;
  }
  map_stale_ = false;
}

void ClusterClient::refresh_slots() {
  // The masters as known, then the seeds: the first that answers gives the map.
  std::vector<RedisEndpoint> candidates = masters();
  for (const auto& s : seeds_)
    if (std::none_of(candidates.begin(), candidates.end(),
                     [&](const RedisEndpoint& c) { return same_node(c, s); }))
      candidates.push_back(s);
  std::string tried;
  for (const auto& ep : candidates) {
    try {
      RedisClient& c = connection(ep);
      load_map(parse_cluster_slots(c.command({"CLUSTER", "SLOTS"}), ep));
      ++counters_.map_refreshes;
      return;
    } catch (const RedisError& e) {
      connections_.erase(ep.address());
      if (stop_.stop_requested()) throw;
      tried.append(tried.empty() ? "" : "; ").append(e.what());
    }
  }
  throw RedisError("Redis Cluster: no node gave its slot map (" + tried + ")");
}

std::optional<RedisEndpoint> ClusterClient::owner(int slot) const {
  if (slot < 0 || slot >= kClusterSlots) return std::nullopt;
  const int node = slot_owner_[static_cast<std::size_t>(slot)];
  if (node < 0) return std::nullopt;
  return nodes_[static_cast<std::size_t>(node)];
}

std::vector<RedisEndpoint> ClusterClient::masters() const {
  std::vector<RedisEndpoint> out;
  for (const auto& r : ranges_)
    if (std::none_of(out.begin(), out.end(),
                     [&](const RedisEndpoint& e) { return same_node(e, r.master); }))
      out.push_back(r.master);
  return out;
}

std::string ClusterClient::describe_node(std::size_t node) const {
  std::string slots;
  for (const auto& r : ranges_) {
    if (!same_node(r.master, nodes_[node])) continue;
    if (!slots.empty()) slots.append(",");
    slots.append(std::to_string(r.first));
    if (r.last != r.first) slots.append("-").append(std::to_string(r.last));
  }
  return nodes_[node].address() + (slots.empty() ? "" : " (slots " + slots + ")");
}

const ClusterClient::KeyPositions& ClusterClient::key_positions(std::string_view name) {
  const std::string lower = to_lower(name);
  if (auto it = key_positions_.find(lower); it != key_positions_.end()) return it->second;
  // COMMAND INFO: [name, arity, flags, first key, last key, step, ...]; nil for an unknown one.
  KeyPositions kp;
  RedisReply info;
  for (const auto& ep : masters()) {
    try {
      info = connection(ep).command({"COMMAND", "INFO", lower});
      break;
    } catch (const RedisError&) {
      connections_.erase(ep.address());
      if (stop_.stop_requested()) throw;
    }
  }
  if (info.type == RedisReply::Type::Array && info.elements.size() == 1 &&
      info.elements[0].type == RedisReply::Type::Array && info.elements[0].elements.size() >= 6) {
    const auto& e = info.elements[0].elements;
    kp.first = static_cast<int>(e[3].integer);
    kp.last = static_cast<int>(e[4].integer);
    kp.step = std::max<int>(1, static_cast<int>(e[5].integer));
    for (const auto& flag : e[2].elements) kp.movable = kp.movable || flag.str == "movablekeys";
  } else if (info.type == RedisReply::Type::Nil) {
    return key_positions_[std::string()];  // no answer: keyless this time, asked again next time
  }
  return key_positions_[lower] = kp;
}

std::optional<int> ClusterClient::command_slot(const std::vector<std::string_view>& argv) {
  if (argv.empty()) return std::nullopt;
  const KeyPositions& kp = key_positions(argv[0]);
  std::vector<std::string> keys;
  if (kp.movable) {
    std::vector<std::string_view> ask{"COMMAND", "GETKEYS"};
    ask.insert(ask.end(), argv.begin(), argv.end());
    for (const auto& ep : masters()) {
      try {
        const RedisReply r = connection(ep).command(ask);
        for (const auto& k : r.elements) keys.push_back(k.str);
        break;
      } catch (const RedisError&) {
        connections_.erase(ep.address());
        if (stop_.stop_requested()) throw;
      }
    }
  } else if (kp.first > 0) {
    const int argc = static_cast<int>(argv.size());
    const int last = std::min(kp.last < 0 ? argc + kp.last : kp.last, argc - 1);
    for (int i = kp.first; i <= last; i += kp.step)
      keys.emplace_back(argv[static_cast<std::size_t>(i)]);
  }
  if (keys.empty()) return std::nullopt;
  const int slot = cluster_key_slot(keys.front());
  for (const auto& k : keys)
    if (cluster_key_slot(k) != slot) return -1;
  return slot;
}

RedisReply ClusterClient::command(const std::vector<std::string_view>& argv) {
  return pipeline({argv}).front();
}

std::vector<RedisReply> ClusterClient::pipeline(
    const std::vector<std::vector<std::string_view>>& cmds) {
  if (map_stale_) refresh_slots();
  std::vector<RedisReply> out(cmds.size());
  struct Pending {
    std::size_t index;  // in cmds
    std::size_t node;
    bool asking = false;
    int redirects = 0;
  };
  std::vector<Pending> todo;
  // Commands without keys (and with a slot no one serves: the node answers CLUSTERDOWN) go to
  // the owner of slot 0.
  const auto any_node = static_cast<std::size_t>(std::max(0, slot_owner_[0]));
  for (std::size_t i = 0; i < cmds.size(); ++i) {
    const std::optional<int> slot = command_slot(cmds[i]);
    if (slot && *slot < 0) {
      out[i] = error_reply("CROSSSLOT Keys in request don't hash to the same slot (" +
                           to_upper(cmds[i][0]) +
                           "'s keys are in different slots: give them a common {tag})");
      continue;
    }
    const int owner = slot ? slot_owner_[static_cast<std::size_t>(*slot)] : -1;
    todo.push_back({i, owner >= 0 ? static_cast<std::size_t>(owner) : any_node});
  }
  static const std::vector<std::string_view> kAsking{"ASKING"};
  while (!todo.empty()) {
    // Every node's share leaves before any reply is read.
    std::map<std::size_t, std::vector<Pending>> groups;
    for (const auto& p : todo) groups[p.node].push_back(p);
    std::map<std::size_t, std::string> failed;
    std::map<std::size_t, std::size_t> sent;  // node -> commands sent (ASKING included)
    for (auto& [node, group] : groups) {
      std::vector<std::vector<std::string_view>> batch;
      for (const auto& p : group) {
        if (p.asking) batch.push_back(kAsking);
        batch.push_back(cmds[p.index]);
      }
      try {
        connection(nodes_[node]).send(batch);
        sent[node] = batch.size();
      } catch (const RedisError& e) {
        failed[node] = e.what();
      }
    }
    std::vector<Pending> next;
    bool moved = false;
    for (auto& [node, group] : groups) {
      if (failed.count(node)) continue;
      std::vector<RedisReply> replies(sent[node]);
      try {
        connection(nodes_[node]).receive(replies);
      } catch (const RedisError& e) {
        failed[node] = e.what();
        continue;
      }
      std::size_t r = 0;
      for (auto& p : group) {
        if (p.asking) ++r;  // ASKING's +OK
        RedisReply& reply = replies[r++];
        const auto redirect = reply.type == RedisReply::Type::Error
                                  ? parse_cluster_redirect(reply.str)
                                  : std::nullopt;
        if (!redirect || p.redirects >= kClusterMaxRedirects) {
          out[p.index] = std::move(reply);
          continue;
        }
        const std::size_t to = node_index(redirect->to);
        if (redirect->ask) {
          ++counters_.ask;
        } else {
          ++counters_.moved;
          slot_owner_[static_cast<std::size_t>(redirect->slot)] = static_cast<int>(to);
          moved = true;
        }
        next.push_back({p.index, to, redirect->ask, p.redirects + 1});
      }
    }
    for (const auto& [node, why] : failed) {
      connections_.erase(nodes_[node].address());
      if (stop_.stop_requested()) throw RedisError(why);
      map_stale_ = true;
      for (const auto& p : groups[node]) {
        out[p.index] =
            error_reply("ERR Redis Cluster node " + describe_node(node) + " is down: " + why);
        ++counters_.node_failures;
      }
    }
    if (moved) {
      try {
        refresh_slots();
      } catch (const RedisError&) {
        if (stop_.stop_requested()) throw;
        map_stale_ = true;  // the redirections' own owners still serve the retries
      }
    }
    todo = std::move(next);
  }
  return out;
}

// ---- SlotMigration ----

SlotMigration::SlotMigration(const RedisEndpoint& from, const RedisEndpoint& to, int slot,
                             std::chrono::milliseconds timeout, std::stop_token stop)
    : from_(from, timeout, stop),
      to_(to, timeout, stop),
      slot_(slot),
      timeout_(timeout),
      stop_(std::move(stop)) {
  if (slot < 0 || slot >= kClusterSlots)
    throw RedisError("Redis Cluster: slot " + std::to_string(slot) + " is not in 0-16383");
  from_id_ = checked(from_, {"CLUSTER", "MYID"}).str;
  to_id_ = checked(to_, {"CLUSTER", "MYID"}).str;
}

RedisReply SlotMigration::checked(RedisClient& c, const std::vector<std::string_view>& argv) {
  RedisReply r = c.command(argv);
  if (r.type == RedisReply::Type::Error) {
    std::string step;
    for (std::size_t i = 0; i < argv.size() && i < 3; ++i) {
      if (i) step += ' ';  // appended piece by piece: GCC 12 -O3 flags " " + std::string&&
      step += argv[i];
    }
    throw RedisError("Redis at " + c.endpoint().address() + ": " + step +
                     " failed while moving slot " + std::to_string(slot_) + ": " + r.str);
  }
  return r;
}

void SlotMigration::begin() {
  const std::string slot = std::to_string(slot_);
  checked(to_, {"CLUSTER", "SETSLOT", slot, "IMPORTING", from_id_});
  checked(from_, {"CLUSTER", "SETSLOT", slot, "MIGRATING", to_id_});
}

std::size_t SlotMigration::move_keys(std::size_t batch) {
  const RedisReply keys =
      checked(from_, {"CLUSTER", "GETKEYSINSLOT", std::to_string(slot_), std::to_string(batch)});
  if (keys.elements.empty()) return 0;
  const RedisEndpoint& to = to_.endpoint();
  const std::string port = std::to_string(to.port);
  const std::string ms = std::to_string(timeout_.count());
  std::vector<std::string_view> argv{"MIGRATE", to.host, port, "", "0", ms};
  if (!to.password.empty()) argv.insert(argv.end(), {"AUTH", to.password});
  argv.push_back("KEYS");
  for (const auto& k : keys.elements) argv.push_back(k.str);
  checked(from_, argv);
  return keys.elements.size();
}

// The slot is the target's. Its SETSLOT NODE bumps its config epoch to one past the greatest it
// knows of, and that epoch is what makes the cluster take its claim of the slot. Right after
// another move, gossip may not yet have brought it the epoch the last importer took: the two
// then tie, a claim of the slot by its old owner still in flight can win, and the whole cluster
// went back to the old owner (1 move in about 150 under load in the tests). So it first waits,
// up to the timeout, until the target knows every master's epoch. Stop does not cut the wait
// short: like every step of a move, it is bounded, and a move begun is finished.
void SlotMigration::finish(const std::vector<RedisEndpoint>& masters) {
  std::vector<RedisClient> others;  // the masters besides the source and the target
  for (const auto& m : masters) {
    if (same_node(m, to_.endpoint()) || same_node(m, from_.endpoint())) continue;
    RedisEndpoint ep = m;
    if (ep.password.empty()) ep.password = to_.endpoint().password;
    others.emplace_back(ep, timeout_, stop_);
  }
  const auto epoch = [&](RedisClient& c, std::string_view field) {
    std::string digits = "0";  // appended: GCC 12 -O3 flags "0" + std::string&& (-Wrestrict)
    digits += redis_info_field(checked(c, {"CLUSTER", "INFO"}).str, field);
    return std::stoll(digits);
  };
  long long greatest = std::max(epoch(from_, "cluster_my_epoch"), epoch(to_, "cluster_my_epoch"));
  for (auto& c : others) greatest = std::max(greatest, epoch(c, "cluster_my_epoch"));
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  while (epoch(to_, "cluster_current_epoch") < greatest &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));

  const std::string slot = std::to_string(slot_);
  const std::vector<std::string_view> assign{"CLUSTER", "SETSLOT", slot, "NODE", to_id_};
  checked(to_, assign);
  checked(from_, assign);
  for (auto& c : others) checked(c, assign);
}

}  // namespace perflab
