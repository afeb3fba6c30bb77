// The Redis Cluster protocol's pure functions: redirections, CLUSTER SLOTS, the slot map.
#include "common/cluster_protocol.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "common/key_slot.h"

namespace perflab {
namespace {

std::optional<int> parse_int(std::string_view s) {
  int v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// "host:port" as a redirection names a node (IPv6 hosts contain colons: the port is after the
// last one).
std::optional<RedisEndpoint> parse_node_address(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  const auto port = parse_int(text.substr(colon + 1));
  if (!port || *port <= 0 || *port > 65535) return std::nullopt;
  RedisEndpoint ep;
  ep.host = std::string(text.substr(0, colon));
  ep.port = *port;
  return ep;
}

[[noreturn]] void refuse(const std::string& what) {
  throw std::invalid_argument("CLUSTER SLOTS " + what);
}

// The node of a CLUSTER SLOTS entry: [host, port, id, ...].
RedisEndpoint slots_node(const ClusterReplyNode& node, std::string_view asked_host) {
  using T = ClusterReplyNode::Type;
  if (node.type != T::Array || node.elements.size() < 2 || node.elements[1].type != T::Integer)
    refuse("lists a node without port");
  RedisEndpoint ep;
  const std::string_view host = node.elements[0].str;
  ep.host = std::string(host.empty() || host == "?" ? asked_host : host);
  ep.port = static_cast<int>(node.elements[1].integer);
  return ep;
}

}  // namespace

std::optional<ClusterRedirect> parse_cluster_redirect(std::string_view error) {
  ClusterRedirect r;
  std::string_view rest;
  if (error.starts_with("MOVED "))
    rest = error.substr(6);
  else if (error.starts_with("ASK "))
    r.ask = true, rest = error.substr(4);
  else
    return std::nullopt;
  const auto space = rest.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const auto slot = parse_int(rest.substr(0, space));
  const auto to = parse_node_address(rest.substr(space + 1));
  if (!slot || *slot < 0 || *slot >= kClusterSlots || !to) return std::nullopt;
  r.slot = *slot;
  r.to = *to;
  return r;
}

std::vector<ClusterSlotRange> parse_cluster_slots(const ClusterReplyNode& table,
                                                  std::string_view asked_host) {
  using T = ClusterReplyNode::Type;
  if (table.type != T::Array) refuse("did not answer a table");
  std::vector<ClusterSlotRange> out;
  for (const ClusterReplyNode& e : table.elements) {
    if (e.type != T::Array || e.elements.size() < 3 || e.elements[0].type != T::Integer ||
        e.elements[1].type != T::Integer)
      refuse("entry is malformed");
    const std::int64_t first = e.elements[0].integer, last = e.elements[1].integer;
    if (first < 0 || last < first || last >= kClusterSlots) refuse("has a bad slot range");
    ClusterSlotRange r;
    r.first = static_cast<int>(first);
    r.last = static_cast<int>(last);
    r.master = slots_node(e.elements[2], asked_host);
    if (e.elements[2].elements.size() >= 3)
      r.master_id = std::string(e.elements[2].elements[2].str);
    for (std::size_t i = 3; i < e.elements.size(); ++i)
      r.replicas.push_back(slots_node(e.elements[i], asked_host));
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

ClusterSlotMap cluster_slot_map(const std::vector<ClusterSlotRange>& ranges) {
  constexpr std::uint32_t kNone = ~std::uint32_t{0};
  ClusterSlotMap map;
  map.slot_owner.assign(static_cast<std::size_t>(kClusterSlots), kNone);
  for (const ClusterSlotRange& r : ranges) {
    const std::string address = r.master.address();
    std::uint32_t index = 0;
    while (index < map.masters.size() && map.masters[index].address() != address) ++index;
    if (index == map.masters.size()) map.masters.push_back(r.master);
    for (int s = r.first; s <= r.last; ++s) map.slot_owner[static_cast<std::size_t>(s)] = index;
  }
  for (std::uint32_t owner : map.slot_owner)
    if (owner == kNone)
      throw std::invalid_argument("not every slot is served (is the cluster formed?)");
  return map;
}

}  // namespace perflab
