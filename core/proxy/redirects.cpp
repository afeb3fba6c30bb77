// Redirects over a Redis Cluster: a node's MOVED or ASK sends the request part again to the node
// named, as a cluster client would.
#include <algorithm>
#include <charconv>

#include "proxy/proxy_impl.h"

namespace perflab::proxy {
namespace {

constexpr int kMaxRedirects = 5;

}  // namespace

// Over a cluster: a node's MOVED (the slot is another node's now: the map is updated) or ASK
// (this key is already at the migration's target: asked there once, with ASKING) sends the
// part again. False when the reply is no redirection, or to a node the proxy does not know.
bool Proxy::Impl::follow_redirect(Client& c, const Entry& e, std::string_view reply) {
  const bool moved = reply.starts_with("-MOVED "), ask = reply.starts_with("-ASK ");
  if ((!moved && !ask) || e.redirects >= kMaxRedirects) return false;
  std::string_view rest = reply.substr(moved ? 7 : 5);
  rest = rest.substr(0, rest.find('\r'));
  const auto space = rest.find(' ');
  if (space == std::string_view::npos) return false;
  int slot = -1;
  const std::string_view num = rest.substr(0, space);
  std::from_chars(num.data(), num.data() + num.size(), slot);
  const std::string_view to = rest.substr(space + 1);
  const auto known = std::find(node_names.begin(), node_names.end(), to);
  if (known == node_names.end()) {
    log(LogLevel::Warn, "slot " + std::string(num) + " is served by " + std::string(to) +
                            ", which is not one of the cluster's masters at start: the "
                            "client gets the redirection");
    return false;
  }
  const auto node = static_cast<std::uint32_t>(known - node_names.begin());
  if (moved) router.set_slot_owner(slot, node);
  pending_at(c, e.seq).parts[e.part].node = node;
  c.inflight--;
  send_part(c, e.seq, e.part, node, e.bytes, e.extra_ns, e.redirects + 1, ask);
  return true;
}

}  // namespace perflab::proxy
