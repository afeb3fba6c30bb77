// A node after a backend timeout: what timed out may still run there (a slow script keeps Redis
// answering BUSY to everybody until it ends), so requests are held, unsent, until it answers.
#include <string>

#include "proxy/proxy_impl.h"

namespace perflab::proxy {
namespace {

// Redis's "not now": a script or function past busy-reply-threshold, or a dataset still
// loading. Such a command was not executed, so asking again is safe.
bool not_now(std::string_view reply) {
  return reply.starts_with("-BUSY ") || reply.starts_with("-LOADING ");
}

// How long a node that answers BUSY may hold a request, in backend timeouts: long enough for a
// script that outlives the timeout a few times over, not for ever (a script that never ends
// waits for SCRIPT KILL).
constexpr std::int64_t kBusyHoldTimeouts = 10;

}  // namespace

// Called once a backend connection was reset by the timeout: its next connection probes first.
void Proxy::Impl::start_recovery(Backend& b) {
  if (b.recovering) return;
  b.recovering = true;
  b.recovering_since_ns = turn_ns;
  b.busy_answers = 0;
  log(LogLevel::Info, "node " + node_addrs.names[b.node] +
                          ": what timed out may still run there; requests to it wait, unsent, "
                          "until it answers " +
                          (opts.db != 0 ? "SELECT" : "PING") + " with anything but BUSY");
}

// Sends the probe ahead of the held requests: after what the connection has sent (AUTH) and
// before any client's request. A SELECT when the connection needs one (the node refuses it as
// BUSY too), else a PING.
void Proxy::Impl::send_probe(Backend& b) {
  b.probing = true;
  b.probe_due = false;
  const std::size_t before = b.out.size();
  if (opts.db != 0)
    append_command(b.out, {"SELECT", std::to_string(opts.db)});
  else
    append_command(b.out, {"PING"});
  auto at = b.fifo.begin();  // past AUTH: what is held (ASKING included) comes after
  while (at != b.fifo.end() && at->seq == kInternal && at->part < kInternalAsking) ++at;
  b.progress_ns = turn_ns;  // the node's silence counts from the question
  b.fifo.insert(at, Entry{0, kInternal, kInternalProbe, 0});
  ServerCounters& s = *st.servers[b.node];
  s.out_queue.add();
  s.in_queue_bytes.add(b.out.size() - before);
  if (b.state == Backend::State::Connected) queue_output(b);
}

// The probe's reply. BUSY or LOADING: the node lives but cannot serve yet; asked again at the
// next sweep (the backend timeout counts from this reply). Anything else: the node serves
// again, the held requests go out in one write.
void Proxy::Impl::on_probe_reply(Backend& b, std::string_view reply) {
  const std::string what = std::string(reply.substr(0, reply.find('\r')));
  if (not_now(reply)) {
    b.probe_due = true;
    if (b.busy_answers++ == 0)
      log(LogLevel::Info,
          "node " + node_addrs.names[b.node] + " answers " + what + ": requests to it stay held");
    return;
  }
  if (opts.db != 0 && what != "+OK")
    log(LogLevel::Error, "node " + node_addrs.names[b.node] + ": SELECT failed: " + what);
  std::size_t held = 0;
  for (const Entry& e : b.fifo) held += e.seq != kInternal;
  log(LogLevel::Info, "node " + node_addrs.names[b.node] + " answers again after " +
                          std::to_string((turn_ns - b.recovering_since_ns) / 1000000) +
                          " ms of recovery (" + std::to_string(b.busy_answers) +
                          " BUSY answers): " + std::to_string(held) + " held requests go out");
  b.probing = b.recovering = false;
  b.out.append(b.held);
  std::string().swap(b.held);
  queue_output(b);
}

// A node whose last answer to the probe was BUSY while its oldest held request has waited
// kBusyHoldTimeouts backend timeouts: the held requests fail, unsent. True when so.
bool Proxy::Impl::busy_too_long(Backend& b) {
  const std::int64_t held_ns = turn_ns - b.held_since_ns;
  if (!b.probe_due || b.held.empty() ||
      held_ns <= kBusyHoldTimeouts * std::int64_t{opts.backend_timeout_ms} * 1000000)
    return false;
  backend_failed(b,
                 "busy: it has answered BUSY for the " + std::to_string(held_ns / 1000000) +
                     " ms this request waited (at most " + std::to_string(kBusyHoldTimeouts) +
                     " x --backend-timeout; a request to it timed out before)",
                 false);
  return true;
}

}  // namespace perflab::proxy
