#pragma once
// The Redis Cluster protocol as pure functions: a CLUSTER SLOTS reply read into slot ranges and a
// slot map, a MOVED / ASK redirection read, how often one is followed. No network code and
// neither client's reply type: the cluster client (targets, over hiredis) and the proxy (its own
// RESP parse) each turn their reply into the small tree below. Slots are in common/key_slot.h.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/endpoint.h"

namespace perflab {

// How often one command follows MOVED or ASK; the next redirection goes to its client.
inline constexpr int kClusterMaxRedirects = 5;

// A redirection error: "MOVED <slot> <host:port>" or "ASK <slot> <host:port>" (IPv6 hosts are not
// bracketed: the port is after the last colon).
struct ClusterRedirect {
  bool ask = false;
  int slot = 0;
  RedisEndpoint to;  // without password
};
// `error` is the error's text, without RESP's '-' and CRLF ("MOVED 3999 127.0.0.1:6381").
// nullopt when it is no redirection, or a malformed one (slot outside 0..16383, no port, ...).
std::optional<ClusterRedirect> parse_cluster_redirect(std::string_view error);

// A reply as far as CLUSTER SLOTS needs one; each client converts its own reply to it. Strings
// are views into the client's reply.
struct ClusterReplyNode {
  enum class Type { Integer, String, Array, Other } type = Type::Other;
  std::int64_t integer = 0;
  std::string_view str;
  std::vector<ClusterReplyNode> elements;
};
// A client's reply tree (a type with .type, .integer, .str and .elements) as that tree;
// `type_of(reply)` gives each reply's Type.
template <typename Reply, typename TypeOf>
ClusterReplyNode cluster_reply_node(const Reply& reply, const TypeOf& type_of) {
  ClusterReplyNode n;
  n.type = type_of(reply);
  n.integer = reply.integer;
  n.str = reply.str;
  for (const Reply& e : reply.elements) n.elements.push_back(cluster_reply_node(e, type_of));
  return n;
}

// A range of slots and the nodes that serve it, as CLUSTER SLOTS lists them.
struct ClusterSlotRange {
  int first = 0, last = 0;  // inclusive
  RedisEndpoint master;
  std::string master_id;
  std::vector<RedisEndpoint> replicas;
};

// Reads a CLUSTER SLOTS table ([[first, last, [host, port, id], replicas...], ...]) into its
// ranges, sorted by first slot; a node listed without an address ("" or "?") is on
// `asked_host`. Throws std::invalid_argument saying what is wrong ("CLUSTER SLOTS entry is
// malformed"). An error reply is the caller's to report: it is not a table.
std::vector<ClusterSlotRange> parse_cluster_slots(const ClusterReplyNode& table,
                                                  std::string_view asked_host);

// Every slot's master: the masters in the order of the ranges (each once), and for each of the
// 16384 slots its master's index. Throws std::invalid_argument when a slot has no master.
struct ClusterSlotMap {
  std::vector<RedisEndpoint> masters;
  std::vector<std::uint32_t> slot_owner;
};
ClusterSlotMap cluster_slot_map(const std::vector<ClusterSlotRange>& ranges);

}  // namespace perflab
