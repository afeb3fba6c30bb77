// Backend connections: connecting to a node (AUTH, SELECT first), reading and scanning its
// replies back to the clients waiting for them, failures and timeouts.
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>

#include "proxy/proxy_impl.h"

namespace perflab::proxy {

void Proxy::Impl::close_backend_fd(Backend& b) {
  if (b.fd < 0) return;
  poller.close(b);
  st.servers[b.node]->connections.sub();
}

void Proxy::Impl::close_shared() {
  for (auto& b : shared)
    if (b && b->fd >= 0) {
      close_backend_fd(*b);
      b->dead = true;
    }
}

// The one wording of every "this node cannot answer" error.
std::string Proxy::Impl::down_reply(std::uint32_t node, const std::string& why) {
  std::string r;
  append_error(r, "ERR node " + node_addrs.names[node] + " unavailable: " + why);
  return r;
}

bool Proxy::Impl::connect_backend(Backend& b, std::string& why) {
  const auto& ss = node_addrs.addrs[b.node];
  int fd = ::socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    why = "socket: " + errno_text(errno);
    return false;
  }
  set_nodelay(fd, opts.nodelay);
  int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&ss), node_addrs.addr_lens[b.node]);
  if (rc != 0 && errno != EINPROGRESS) {
    why = "connect: " + errno_text(errno);
    ::close(fd);
    b.connect_failed = b.ever_failed = true;
    b.connect_error = why;
    b.last_fail_ns = turn_ns;
    st.backend_failures.add();
    st.servers[b.node]->err.add();
    log(LogLevel::Warn, "node " + node_addrs.names[b.node] + ": " + why);
    return false;
  }
  b.fd = fd;
  b.dead = false;
  b.reset_io();
  b.state = rc == 0 ? Backend::State::Connected : Backend::State::Connecting;
  poller.add(b, b.state == Backend::State::Connecting ? (EPOLLIN | EPOLLOUT) : EPOLLIN);
  st.servers[b.node]->connections.add();
  // Set up before any client's request: AUTH, then SELECT (their replies are consumed here).
  if (!opts.password.empty()) {
    append_command(b.out, {"AUTH", opts.password});
    push_entry(b, {0, kInternal, 0, 0});
  }
  if (b.recovering) {
    st.servers[b.node]->in_queue_bytes.add(b.out.size());
    send_probe(b);  // SELECT, if any, is the probe
  } else {
    if (opts.db != 0) {
      const std::string db = std::to_string(opts.db);
      append_command(b.out, {"SELECT", db});
      push_entry(b, {0, kInternal, 1, 0});
    }
    st.servers[b.node]->in_queue_bytes.add(b.out.size());
  }
  if (b.ever_failed) log(LogLevel::Info, "node " + node_addrs.names[b.node] + ": reconnecting");
  return true;
}

// The connection is gone (or reset): every request waiting on it fails, and only those. A
// connection that was lost is reconnected at the next request; only a failed connect makes
// the node fail fast for reconnect_interval.
void Proxy::Impl::backend_failed(Backend& b, const std::string& why, bool eof) {
  st.backend_failures.add();
  (eof ? st.servers[b.node]->eof : st.servers[b.node]->err).add();
  log(LogLevel::Warn, "node " + node_addrs.names[b.node] +
                          (b.owner ? " (client " + b.owner->peer + ")" : std::string()) + ": " +
                          why);
  if (b.state == Backend::State::Connecting) {
    b.connect_failed = true;
    b.connect_error = why;
    b.last_fail_ns = turn_ns;
  }
  close_backend_fd(b);
  b.events = 0;
  b.state = Backend::State::Down;
  b.ever_failed = true;
  st.servers[b.node]->in_queue_bytes.sub(b.pending_out() + b.held.size());
  b.reset_io();
  std::string().swap(b.held);  // held requests were never sent: they fail unexecuted
  b.probing = b.probe_due = false;
  std::string reply = down_reply(b.node, why);
  auto fifo = std::move(b.fifo);
  b.fifo.clear();
  st.servers[b.node]->out_queue.sub(fifo.size());
  for (const Entry& e : fifo) {
    if (e.seq == kInternal) continue;
    Client* c = client_of(b, e.client);
    if (!c) continue;
    c->inflight--;
    fail_part(*c, e.seq, e.part, reply);
    touch(*c);
  }
  drain_touched();
}

// Resets backend connections whose oldest request has waited too long for its reply; the node
// is then probed before requests go to it again (recovery.cpp). Probes a node that said BUSY
// again, or gives up on it.
void Proxy::Impl::check_timeouts() {
  if (opts.backend_timeout_ms <= 0) return;
  const std::int64_t limit = std::int64_t{opts.backend_timeout_ms} * 1000000;
  auto check = [&](Backend* b) {
    if (!b || b->fd < 0 || b->dead || b->fifo.empty()) return;
    if (b->probing && busy_too_long(*b)) return;
    if (b->probe_due && b->state == Backend::State::Connected) send_probe(*b);
    const std::int64_t extra = b->fifo.front().extra_ns;
    if (extra >= kForever || turn_ns - b->progress_ns <= limit + extra) return;
    st.backend_timeouts.add();
    st.servers[b->node]->timedout.add();
    backend_failed(*b,
                   "timed out: no reply within " + std::to_string(opts.backend_timeout_ms) +
                       " ms (--backend-timeout)",
                   false);
    start_recovery(*b);
  };
  for (auto& b : shared) check(b.get());
  std::vector<Client*> dedicated;
  for (auto& c : clients.all())
    if (c->dedicated && !c->dead) dedicated.push_back(c.get());
  for (Client* c : dedicated)
    for (auto& b : c->backends)
      if (!c->dead) check(b.get());
}

void Proxy::Impl::on_backend_event(Backend& b, std::uint32_t ev) {
  if (b.state == Backend::State::Connecting) {
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(b.fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      backend_failed(b, "connect: " + errno_text(err), false);
      return;
    }
    if (!(ev & (EPOLLOUT | EPOLLIN | EPOLLHUP | EPOLLERR))) return;
    if (ev & (EPOLLHUP | EPOLLERR)) {
      backend_failed(b, "connect failed", false);
      return;
    }
    b.state = Backend::State::Connected;
    b.connect_failed = false;
    update_events(b);
    queue_output(b);
    if (!(ev & EPOLLIN)) return;
  } else if (ev & EPOLLOUT) {
    flush(b);
    if (b.dead || b.state != Backend::State::Connected) return;
  }
  if (!(ev & (EPOLLIN | EPOLLHUP | EPOLLERR))) return;
  // Up to 256 KiB per event: large replies leave the kernel quickly, for every client's sake.
  for (int reads = 0; reads < 16; ++reads) {
    char* p = b.in.space(16 * 1024);
    const std::size_t room = b.in.room();
    ssize_t n = ::recv(b.fd, p, room, 0);
    if (n == 0) {
      backend_failed(b, "connection closed by the server", true);
      return;
    }
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) break;
      backend_failed(b, "recv: " + errno_text(errno), false);
      return;
    }
    b.in.wrote(static_cast<std::size_t>(n));
    b.progress_ns = turn_ns;  // a large reply still arriving is not a frozen node
    if (!scan_replies(b)) return;
    if (static_cast<std::size_t>(n) < room) break;
  }
  drain_touched();
}

// Hands every complete reply in b.in to its client. False when the backend was failed.
bool Proxy::Impl::scan_replies(Backend& b) {
  for (;;) {
    std::string_view data = b.in.data();
    if (data.empty()) return true;
    ParseResult r = b.scanner.scan(data);
    if (r.status == ParseStatus::Incomplete) return true;
    if (r.status == ParseStatus::Error) {
      drain_touched();
      backend_failed(b, r.error, false);
      return false;
    }
    bool ok = on_backend_reply(b, data.substr(0, r.consumed));
    if (!ok || b.dead) return false;
    b.in.consume(r.consumed);
  }
}

// One complete reply from a backend. False when the backend was failed.
bool Proxy::Impl::on_backend_reply(Backend& b, std::string_view reply) {
  if (b.fifo.empty()) {
    backend_failed(b, "unexpected reply", false);
    return false;
  }
  const Entry e = std::move(b.fifo.front());
  b.fifo.pop_front();
  b.progress_ns = turn_ns;
  ServerCounters& s = *st.servers[b.node];
  s.out_queue.sub();
  s.responses.add();
  s.response_bytes.add(reply.size());
  const std::uint64_t seq = e.seq;
  const std::uint32_t part = e.part;
  if (seq == kInternal) {
    if (part == kInternalProbe) {
      on_probe_reply(b, reply);
      return !b.dead;
    }
    if (reply.empty() || reply[0] != '+')
      log(LogLevel::Error, "node " + node_addrs.names[b.node] + ": " +
                               (part == 0   ? "AUTH"
                                : part == 1 ? "SELECT"
                                            : "ASKING") +
                               " failed: " + std::string(reply.substr(0, reply.find('\r'))));
    return true;
  }
  Client* cp = client_of(b, e.client);
  if (!cp) return true;  // the client has gone: the reply is dropped
  Client& c = *cp;
  if (router.uses_slots() && reply.size() > 4 && reply[0] == '-' && follow_redirect(c, e, reply))
    return true;
  c.inflight--;
  const auto size = static_cast<double>(reply.size());
  c.reply_estimate = std::max(size, c.reply_estimate - (c.reply_estimate - size) / 8);
  Pending& p = c.pending_at(seq);
  // Fast path: the oldest request, answered by one node, goes straight out.
  if (seq == c.head_seq && p.single && p.redact == Redact::None) {
    c.pending.pop_front();
    c.head_seq++;
    append_reply(c, reply);
    if (!c.dead) touch(c);
    return true;
  }
  store_reply(c, p, part, reply);
  if (p.batched) merge_batches(c, p);
  touch(c);
  return true;
}

}  // namespace perflab::proxy
