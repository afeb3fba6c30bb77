// A client's connection: reading and parsing its requests, its FIFO of pending replies (sent in
// request order), flow control, and the commands the proxy answers itself (AUTH, QUIT, PROXY).
#include <sys/epoll.h>
#include <sys/socket.h>

#include <cerrno>

#include "common/text.h"
#include "proxy/proxy_impl.h"

namespace perflab::proxy {
namespace {

// Compares without stopping at the first difference: the time taken does not tell how much of
// a guessed password was right.
bool same_secret(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

}  // namespace

// The clients the listener takes this turn, each with its state and its events registered.
void Proxy::Impl::accept_clients() {
  std::vector<Accepted> accepted;
  listener.accept(clients.size(), turn_ns, accepted);
  for (Accepted& a : accepted) {
    set_nodelay(a.fd, opts.nodelay);
    auto c = std::make_unique<Client>(opts.limits);
    c->fd = a.fd;
    c->peer = std::move(a.peer);
    c->backends.resize(opts.nodes.size());
    c->last_io_ns = turn_ns;
    c->dedicated = !opts.shared_backends;
    c->authenticated = opts.requirepass.empty();
    c->parser.set_unauthenticated(!c->authenticated);
    c->reply_estimate = static_cast<double>(opts.max_client_pending_bytes) / 16;
    Client& added = clients.add(std::move(c));
    poller.add(added, EPOLLIN);
    log(LogLevel::Debug, "client " + added.peer + " connected");
    st.clients_accepted.add();
    st.clients_connected.add();
  }
}

void Proxy::Impl::close_fds(Client& c) {
  for (auto& b : c.backends)
    if (b && b->fd >= 0) {
      close_backend_fd(*b);
      b->dead = true;
    }
  poller.close(c);
  c.dead = true;
}

void Proxy::Impl::close_client(Client& c, const std::string& why) {
  if (c.dead) return;
  log(LogLevel::Debug, "client " + c.peer + " closed: " + why);
  close_fds(c);
  st.clients_connected.sub();
  memory.closed(c);
  if (c.resting || c.fanout) rests.forget(&c);
  turn.unhold(c);
  if (auto owned = clients.remove(c)) memory.bury(std::move(owned));
}

// Stops reading a client that holds, or will soon hold, too much; disconnects one that holds
// far more than its bound (its replies were larger than expected) and does not read them.
void Proxy::Impl::check_pause(Client& c) {
  const std::size_t held = c.pending_out() + c.stored_bytes;
  if (held > hard_limit && c.pending_out() > 0 && turn_ns - c.out_progress_ns >= kStallNs) {
    st.client_limit_closes.add();
    st.client_err.add();
    log(LogLevel::Warn, "client " + c.peer + " disconnected: " + std::to_string(held) +
                            " bytes of replies it does not read (limit " +
                            std::to_string(hard_limit) + ")");
    close_client(c, "output limit");
    return;
  }
  const double expected =
      static_cast<double>(held) + static_cast<double>(c.inflight) * c.reply_estimate;
  const auto bound = static_cast<double>(opts.max_client_pending_bytes);
  bool over = expected >= bound || c.pending.size() >= opts.max_client_pending_requests;
  bool under = expected <= bound / 2 && c.pending.size() <= opts.max_client_pending_requests / 2;
  if (!c.paused && over) {
    c.paused = true;
    update_events(c);
  } else if (c.paused && under) {
    c.paused = false;
    update_events(c);
    process_input(c);  // requests already read may be waiting
  }
}

void Proxy::Impl::on_client_event(Client& c, std::uint32_t ev, std::size_t max_read) {
  if (ev & EPOLLOUT) {
    flush(c);
    if (c.dead) return;
    check_pause(c);
    if (c.dead) return;
  }
  if (!(ev & (EPOLLIN | EPOLLHUP | EPOLLERR))) return;
  if (c.paused || c.closing || c.fanout) {  // a fan-out's command stays in the input as it is
    if (ev & (EPOLLHUP | EPOLLERR)) {
      st.client_eof.add();
      close_client(c, "hung up");
    }
    return;
  }
  memory.lend_input(c);
  // A larger buffer may take a copy of the half-read command first: room for it, under the
  // bound.
  if (c.in.must_grow(16 * 1024) && !bound_client_memory(&c, c.in.end - c.in.start)) return;
  char* p = c.in.space(16 * 1024);
  ssize_t n = ::recv(c.fd, p, std::min(c.in.room(), max_read), 0);
  if (n == 0) {
    st.client_eof.add();
    close_client(c, "end of stream");
    return;
  }
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
      memory.return_input(c);
      return;
    }
    st.client_err.add();
    close_client(c, "recv: " + errno_text(errno));
    return;
  }
  c.in.wrote(static_cast<std::size_t>(n));
  c.last_io_ns = turn_ns;
  memory.account(c);
  if (!bound_client_memory(&c, 0)) return;
  process_input(c);
}

void Proxy::Impl::process_input(Client& c) {
  while (!c.dead && !c.closing && !c.paused && !c.switch_wait && !c.fanout &&
         c.in.end > c.in.start) {
    std::string_view data = c.in.data();
    ParseResult r = c.parser.parse(data, scr.argv);
    if (r.status == ParseStatus::Incomplete) break;
    if (r.status == ParseStatus::Error) {
      st.protocol_errors.add();
      st.client_err.add();
      log(LogLevel::Info, "client " + c.peer + ": " + r.error);
      Pending p;
      append_error(p.reply, "ERR " + r.error);
      p.close_after = true;
      c.pending.push_back(std::move(p));
      c.closing = true;
      c.in.clear();
      update_events(c);
      break;
    }
    const CommandInfo info = classify(scr.argv);
    if (!scr.argv.empty() && c.authenticated && !c.dedicated && needs_dedicated(info)) {
      if (!c.pending.empty()) {  // earlier requests still on shared connections: wait
        c.switch_wait = true;
        c.parser.reset();
        break;
      }
      c.dedicated = true;
    }
    if (!scr.argv.empty()) {
      st.requests.add();
      dispatch(c, scr.argv, data.substr(0, r.consumed), info);
      if (c.fanout) {  // sent in batches: the command is consumed after the last one
        c.fanout->consumed = r.consumed;
        c.fanout->argv.swap(scr.argv);
        break;
      }
    }
    c.in.consume(r.consumed);
    if (c.dead) return;
    check_pause(c);
  }
  if (c.dead) return;
  memory.return_input(c);
  drain(c);
}

void Proxy::Impl::immediate(Client& c, std::string_view reply, bool close_after) {
  Pending p;
  p.reply.assign(reply);
  p.close_after = close_after;
  c.pending.push_back(std::move(p));
}

void Proxy::Impl::immediate_error(Client& c, const std::string& msg) {
  std::string r;
  append_error(r, msg);
  immediate(c, r);
}

void Proxy::Impl::refuse(Client& c, const std::string& msg) {
  st.refused_commands.add();
  immediate_error(c, msg);
}

// AUTH password, or AUTH default password: answered here, never forwarded.
void Proxy::Impl::auth(Client& c, const std::vector<std::string_view>& av) {
  if (av.size() > 3) {
    immediate_error(c, "ERR syntax error");
    return;
  }
  if (opts.requirepass.empty()) {
    immediate_error(c,
                    "ERR AUTH <password> called without any password configured for the "
                    "default user. Are you sure your configuration is correct?");
    return;
  }
  const bool user_ok = av.size() == 2 || av[1] == "default";
  if (user_ok && same_secret(av.back(), opts.requirepass)) {
    c.authenticated = true;
    c.parser.set_unauthenticated(false);
    immediate(c, "+OK\r\n");
    return;
  }
  st.auth_failures.add();
  log(LogLevel::Warn, "client " + c.peer + ": wrong password");
  immediate_error(c, "WRONGPASS invalid username-password pair or user is disabled.");
}

void Proxy::Impl::local(Client& c, const std::vector<std::string_view>& av) {
  const std::string name = to_upper(av[0]);
  if (name == "QUIT") {
    immediate(c, "+OK\r\n", true);
    c.closing = true;
    update_events(c);
  } else if (name == "AUTH") {
    auth(c, av);
  } else if (to_upper(av[1]) == "STATS" && av.size() == 2) {
    std::string r;
    append_bulk(r, stats_info(snapshot()));
    immediate(c, r);
  } else {
    immediate_error(
        c, "ERR unknown subcommand '" + std::string(av[1]) + "' of PROXY: try PROXY STATS");
  }
}

void Proxy::Impl::drain_touched() {
  auto list = turn.take_touched();
  for (Client* c : list) {
    c->touched = false;
    if (!c->dead) drain(*c);
  }
}

// Clients past the hard limit: check_pause disconnects those that stopped reading.
void Proxy::Impl::check_stalled_clients() {
  std::vector<Client*> over;
  for (auto& c : clients.all())
    if (!c->dead && c->pending_out() + c->stored_bytes > hard_limit) over.push_back(c.get());
  for (Client* c : over) check_pause(*c);
}

// Sends every reply at the head of the FIFO that is complete.
void Proxy::Impl::drain(Client& c) {
  while (!c.dead && !c.pending.empty() && c.pending.front().remaining == 0) {
    Pending p = std::move(c.pending.front());
    c.pending.pop_front();
    c.head_seq++;
    if (p.batched) batched_reply(c, p, scr.text);
    for (auto& pt : p.parts) c.stored_bytes -= pt.reply.size();
    if (p.single) c.stored_bytes -= p.reply.size();
    if (p.parts.empty() && (!p.single || p.redact == Redact::None)) {
      append_reply(c, p.reply);  // known at once, or a single node's that needs no redaction
    } else {
      if (p.single)
        scr.text.assign(p.reply);
      else if (!p.batched)
        merge(p, scr.text);
      redact_reply(p.redact, scr.text, secrets);
      append_reply(c, scr.text);
    }
    if (c.dead) return;
    if (p.close_after) {
      c.closing = true;
      c.pending.clear();
      update_events(c);
      if (c.pending_out() == 0) after_output(c);
      return;
    }
  }
  if (c.dead) return;
  memory.account(c);
  if (c.switch_wait && c.pending.empty()) {
    c.switch_wait = false;
    c.dedicated = true;
    process_input(c);
    return;
  }
  check_pause(c);
}

void Proxy::Impl::merge(const Pending& p, std::string& out) {
  scr.reply_views.clear();
  for (const auto& pt : p.parts) scr.reply_views.push_back(pt.reply);
  merge_replies(p.merge, p.name, scr.reply_views, p.order, out);
}

}  // namespace perflab::proxy
