// Redirects over a Redis Cluster: a node's MOVED or ASK sends the request part again to the node
// named, as a cluster client would.
#include <algorithm>
#include <string>

#include "common/cluster_protocol.h"
#include "proxy/proxy_impl.h"

namespace perflab::proxy {

// Over a cluster: a node's MOVED (the slot is another node's now: the map is updated) or ASK
// (this key is already at the migration's target: asked there once, with ASKING) sends the
// part again. False when the reply is no redirection, or to a node the proxy does not know.
bool Proxy::Impl::follow_redirect(Client& c, const Entry& e, std::string_view reply) {
  if (e.redirects >= kClusterMaxRedirects) return false;
  // The error's text, without '-' and CRLF.
  const auto redirect = parse_cluster_redirect(reply.substr(1, reply.find('\r') - 1));
  if (!redirect) return false;
  const std::string to = redirect->to.address();
  const auto known = std::find(node_addrs.names.begin(), node_addrs.names.end(), to);
  if (known == node_addrs.names.end()) {
    log(LogLevel::Warn, "slot " + std::to_string(redirect->slot) + " is served by " + to +
                            ", which is not one of the cluster's masters at start: the "
                            "client gets the redirection");
    return false;
  }
  const auto node = static_cast<std::uint32_t>(known - node_addrs.names.begin());
  if (!redirect->ask) router.set_slot_owner(redirect->slot, node);
  c.inflight--;
  send_part(c, e.seq, e.part, node, e.bytes, e.extra_ns, e.redirects + 1, redirect->ask);
  return true;
}

}  // namespace perflab::proxy
