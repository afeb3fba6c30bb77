// Request dispatch: a command routed by its keys to one node, broadcast to every node, or split
// by node (by slot over a Redis Cluster) into parts whose replies are merged; parts forwarded.
#include <cstdlib>
#include <string>

#include "common/key_slot.h"
#include "common/text.h"
#include "proxy/proxy_impl.h"

namespace perflab::proxy {
namespace {

// A blocking command's timeout argument (seconds, fractions allowed) in nanoseconds; 0 seconds
// blocks for ever.
std::int64_t blocking_ns(const std::vector<std::string_view>& av, int at) {
  const std::int64_t i = at < 0 ? static_cast<std::int64_t>(av.size()) + at : at;
  if (i <= 0 || i >= static_cast<std::int64_t>(av.size())) return 0;
  std::string s(av[static_cast<std::size_t>(i)]);
  char* end = nullptr;
  const double secs = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || !(secs >= 0)) return 0;  // the node refuses it
  if (secs == 0 || secs > 1e9) return kForever;
  return static_cast<std::int64_t>(secs * 1e9);
}

}  // namespace

// Routes one command. raw is its bytes as received, info what classify says of it.
void Proxy::Impl::dispatch(Client& c, const std::vector<std::string_view>& av, std::string_view raw,
                           const CommandInfo& info) {
  if (!c.authenticated && info.cls != CommandClass::Local) {
    refuse(c, "NOAUTH Authentication required.");
    return;
  }
  if (info.cls == CommandClass::Unsupported) {
    refuse(c, "ERR unsupported command '" + std::string(av[0]) + "'");
    return;
  }
  if (static_cast<int>(av.size()) < info.min_args ||
      (info.cls == CommandClass::Split && (av.size() - 1) % info.keys.step != 0)) {
    immediate_error(
        c, "ERR wrong number of arguments for '" + to_lower(command_name(av)) + "' command");
    return;
  }
  if (info.cls == CommandClass::Local) {
    if (!c.authenticated && to_upper(av[0]) == "PROXY") {
      refuse(c, "NOAUTH Authentication required.");
      return;
    }
    local(c, av);
    return;
  }
  if (info.cls == CommandClass::Admin) {
    if (!opts.allow_admin) {
      refuse(c, "ERR '" + command_name(av) +
                    "' is an administrative command: perflab-proxy refuses it (start it with "
                    "--allow-admin to send it to every node)");
      return;
    }
    if (info.merge == MergeMode::None) {
      refuse(c, "ERR '" + command_name(av) +
                    "' cannot go through perflab-proxy: it turns the connection into a stream");
      return;
    }
  }
  // Inline commands are re-encoded; multibulk ones are forwarded as received.
  std::string encoded;
  if (raw.empty() || raw[0] != '*') {
    append_command(encoded, av);
    raw = encoded;
  }
  const std::uint64_t seq = c.head_seq + c.pending.size();
  switch (info.cls) {
    case CommandClass::Keyed:
      keyed(c, seq, info, av, raw);
      break;
    case CommandClass::Broadcast:
    case CommandClass::Admin: {
      const std::size_t nodes = opts.nodes.size();
      Pending p;
      p.merge = info.merge;
      p.name = command_name(av);
      p.parts.resize(nodes);
      p.remaining = static_cast<int>(nodes);
      c.pending.push_back(std::move(p));
      st.fragments.add(nodes);
      for (std::size_t n = 0; n < nodes; ++n)
        send_part(c, seq, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n), raw);
      break;
    }
    case CommandClass::Split:
      split_command(c, seq, info, av, raw);
      break;
    case CommandClass::Local:
    case CommandClass::Unsupported:
      return;
  }
  // Whatever the policy, no reply shows a credential: CONFIG GET, ACL, other administrative
  // commands and scripts have their replies redacted (proxy/redact.h).
  const Redact redact = redaction_for(av, info.cls == CommandClass::Admin);
  if (redact != Redact::None && seq >= c.head_seq && seq - c.head_seq < c.pending.size())
    c.pending_at(seq).redact = redact;
}

// A command whose keys must all be on one node: forwarded whole to it.
void Proxy::Impl::keyed(Client& c, std::uint64_t seq, const CommandInfo& info,
                        const std::vector<std::string_view>& av, std::string_view raw) {
  const std::int64_t extra = info.timeout_at != 0 ? blocking_ns(av, info.timeout_at) : 0;
  if (!command_keys(info.keys, av, scr.keys)) {
    single(c, seq, 0, raw, extra);  // a malformed key count: the node says what is wrong
    return;
  }
  if (scr.keys.empty()) {
    refuse(c, "ERR '" + command_name(av) +
                  "' without keys cannot be routed by perflab-proxy: it needs a key to pick a "
                  "node");
    return;
  }
  // Over a cluster the keys must share a slot (the node refuses them otherwise), else a node.
  const bool slots = router.uses_slots();
  const auto where = [&](std::string_view k) {
    return slots ? static_cast<std::size_t>(cluster_key_slot(k)) : router.node(k);
  };
  const std::size_t node = router.node(av[scr.keys[0]]);
  for (std::size_t i = 1; i < scr.keys.size(); ++i)
    if (where(av[scr.keys[i]]) != where(av[scr.keys[0]])) {
      refuse(c, std::string("CROSSSLOT Keys in request don't hash to the same ") +
                    (slots ? "slot (" : "node (") + command_name(av) +
                    "): give them a common hash tag, e.g. " +
                    (router.options().tag.rule == HashTag::Rule::Pair
                         ? std::string{router.options().tag.open} + "user1" +
                               router.options().tag.close + ":a"
                         : std::string("a{user1}")));
      return;
    }
  single(c, seq, node, raw, extra);
}

void Proxy::Impl::split_command(Client& c, std::uint64_t seq, const CommandInfo& info,
                                const std::vector<std::string_view>& av, std::string_view raw) {
  if (start_fanout(c, seq, info, av)) return;
  const auto step = static_cast<std::size_t>(info.keys.step);
  split_into_groups(av, step);
  const auto node_of = [&](std::size_t g) { return group_node(g); };
  const std::size_t nodes = scr.split.by_node.size();
  if (scr.split.used == 1) {  // every key on one node (one slot): the reply is already right
    single(c, seq, node_of(scr.split.last), raw, 0);
    return;
  }
  Pending p;
  p.merge = info.merge;
  p.name = command_name(av);
  p.remaining = static_cast<int>(scr.split.used);
  for (std::size_t n = 0; n < nodes; ++n)
    if (!scr.split.by_node[n].empty()) p.parts.emplace_back();
  if (info.merge == MergeMode::Values) reply_order(scr.split, step, p.order);
  c.pending.push_back(std::move(p));
  st.fragments.add(scr.split.used);
  std::uint32_t part = 0;
  for (std::size_t n = 0; n < nodes; ++n) {
    if (scr.split.by_node[n].empty()) continue;
    scr.text.clear();
    append_node_command(scr.text, av, scr.split.by_node[n], step);
    send_part(c, seq, part++, node_of(n), scr.text);
  }
}

void Proxy::Impl::split_into_groups(const std::vector<std::string_view>& av, std::size_t step) {
  if (router.uses_slots())
    split_by_slot(av, step);
  else
    split_keys(av, step, router, scr.split);
}

// Over a cluster: the keys grouped by slot (a node refuses keys of several slots), groups in
// the order their first key comes; split_node says where each group goes.
void Proxy::Impl::split_by_slot(const std::vector<std::string_view>& av, std::size_t step) {
  for (auto& v : scr.split.by_node) v.clear();
  scr.split.by_node.clear();
  scr.split_node.clear();
  scr.split_group.clear();
  for (std::size_t i = 1; i < av.size(); i += step) {
    const int slot = cluster_key_slot(av[i]);
    auto [it, added] = scr.split_group.try_emplace(slot, scr.split.by_node.size());
    if (added) {
      scr.split.by_node.emplace_back();
      scr.split_node.push_back(static_cast<std::uint32_t>(router.node(av[i])));
    }
    scr.split.by_node[it->second].push_back(static_cast<std::uint32_t>(i));
  }
  scr.split.used = scr.split.by_node.size();
  scr.split.last = scr.split.used == 0 ? 0 : scr.split.used - 1;
}

void Proxy::Impl::single(Client& c, std::uint64_t seq, std::size_t node, std::string_view raw,
                         std::int64_t extra_ns) {
  Pending p;
  p.single = true;
  p.remaining = 1;
  c.pending.push_back(std::move(p));
  send_part(c, seq, 0, static_cast<std::uint32_t>(node), raw, extra_ns);
}

void Proxy::Impl::fail_part(Client& c, std::uint64_t seq, std::uint32_t part,
                            const std::string& reply) {
  Pending& p = c.pending_at(seq);
  if (!store_reply(c, p, part, reply)) return;
  st.forward_error.add();
  if (p.batched) merge_batches(c, p);
}

// Keeps a part's reply until its request's turn; false when the part already has one.
bool Proxy::Impl::store_reply(Client& c, Pending& p, std::uint32_t part, std::string_view reply) {
  std::string* to = &p.reply;
  if (p.single) {
    if (p.remaining == 0) return false;
  } else {
    Part& pt = p.parts[part];
    if (pt.done) return false;
    pt.done = true;
    to = &pt.reply;
  }
  to->assign(reply);
  c.stored_bytes += reply.size();
  p.remaining--;
  return true;
}

void Proxy::Impl::send_part(Client& c, std::uint64_t seq, std::uint32_t part, std::uint32_t node,
                            std::string_view bytes, std::int64_t extra_ns, int redirects,
                            bool asking) {
  if (!c.dedicated && shared.empty()) shared.resize(opts.nodes.size());
  auto& slot = c.dedicated ? c.backends[node] : shared[node];
  if (!slot) slot = std::make_unique<Backend>(c.dedicated ? &c : nullptr, node);
  Backend& b = *slot;
  if (b.state == Backend::State::Down) {
    if (b.connect_failed &&
        turn_ns - b.last_fail_ns < std::int64_t{opts.reconnect_interval_ms} * 1000000) {
      fail_part(c, seq, part,
                down_reply(node, b.connect_error + " (next try within " +
                                     std::to_string(opts.reconnect_interval_ms) + " ms)"));
      return;
    }
    std::string why;
    if (!connect_backend(b, why)) {
      fail_part(c, seq, part, down_reply(node, why));
      return;
    }
  }
  // While the node is probed after a timeout, requests are held, unsent (recovery.cpp).
  std::string& to = b.probing ? b.held : b.out;
  if (b.probing && b.held.empty()) b.held_since_ns = turn_ns;
  if (asking) {
    append_command(to, {"ASKING"});
    push_entry(b, {0, kInternal, kInternalAsking, 0});
  }
  Entry e{c.id, seq, part, extra_ns};
  if (router.uses_slots()) e.bytes.assign(bytes), e.redirects = redirects;
  push_entry(b, e);
  to.append(bytes);
  c.inflight++;
  ServerCounters& s = *st.servers[node];
  s.requests.add();
  s.request_bytes.add(bytes.size());
  s.in_queue_bytes.add(bytes.size());
  if (b.state == Backend::State::Connected && !b.probing) queue_output(b);
}

}  // namespace perflab::proxy
