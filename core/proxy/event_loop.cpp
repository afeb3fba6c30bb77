// The proxy's event loop: one epoll instance on one thread, a turn per wake-up; each turn ends
// with one send per socket that has output (the coalesced write strategy).
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>

#include "proxy/proxy_impl.h"

namespace perflab::proxy {

void Proxy::Impl::update_events(Conn& c) {
  if (c.fd < 0) return;
  std::uint32_t ev = 0;
  if (c.kind == Kind::Client) {
    auto& cl = static_cast<Client&>(c);
    if (!cl.paused && !cl.closing && !cl.resting && !cl.fanout) ev |= EPOLLIN;
  } else if (c.kind == Kind::Backend) {
    auto& b = static_cast<Backend&>(c);
    ev |= EPOLLIN;
    if (b.state == Backend::State::Connecting) ev |= EPOLLOUT;
  } else if (c.kind != Kind::Stats) {
    ev |= EPOLLIN;
  }
  if (c.want_write) ev |= EPOLLOUT;
  poller.set(c, ev);
}

void Proxy::Impl::loop() {
  log_start();
  epoll_event events[256];
  while (!stop_flag.load(std::memory_order_relaxed)) {
    int n = wait(events, 256);
    if (n < 0) {
      if (errno == EINTR) continue;
      log(LogLevel::Error, "epoll_wait: " + errno_text(errno));
      break;
    }
    turn_ns = wall_ns();
    if (n == 0 && rests.none() && !turn.anyone_holding()) give_back_memory();  // a quiet moment
    if (rests.any_resting() && turn_ns >= rests.streamers_resume_ns()) resume_streamers();
    for (int i = 0; i < n; ++i) {
      Conn* c = static_cast<Conn*>(events[i].data.ptr);
      std::uint32_t ev = events[i].events;
      if (c->dead) continue;
      switch (c->kind) {
        case Kind::Listener:
          accept_clients();
          break;
        case Kind::StatsListener:
          accept_stats();
          break;
        case Kind::Wake: {
          poller.drain_wake();
          logger.carry_out_requests();
          break;
        }
        case Kind::Client: {
          auto& cl = static_cast<Client&>(*c);
          const bool hung_up = ev & (EPOLLHUP | EPOLLERR);
          if (!cl.streaming() || (ev & EPOLLOUT) || (cl.resting && hung_up))
            on_client_event(cl, ev);
          else if (turn_ns < rests.streamers_resume_ns() && !hung_up && cl.huge())
            rest_streamer(cl);  // it streams a huge command while the others rest
          else if (!cl.resting)
            rests.stream(&cl, ev);
          break;
        }
        case Kind::Backend:
          on_backend_event(static_cast<Backend&>(*c), ev);
          break;
        case Kind::Stats:
          flush(*c);
          break;
      }
    }
    if (rests.any_streaming()) serve_streamers();
    if (rests.any_fanning()) serve_fanouts();
    if (turn_ns - last_sweep_ns >= 100'000'000) {
      last_sweep_ns = turn_ns;
      check_timeouts();
      check_stalled_clients();
      check_idle_clients();
      listener.log_refusals_due(turn_ns);
    }
    end_of_turn();
  }
  log(LogLevel::Info, "shutting down: closing " + std::to_string(clients.size()) + " clients");
  for (auto& c : clients.all()) close_fds(*c);
  clients.clear();
  close_shared();
  memory.stop();
}

// Called when a loop turn found nothing to do: buffers that only bursts needed go, and the
// allocator returns what is free to the system (glibc keeps freed small blocks otherwise: after
// a storm of connections, tens of megabytes nobody uses).
void Proxy::Impl::give_back_memory() {
  if (!memory.take_freed()) return;
  if (scr.text.capacity() > ClientMemory::kLentInputMax) std::string().swap(scr.text);
  for (auto& b : shared)
    if (b && b->in.empty() && b->in.cap > ClientMemory::kLentInputMax) b->in.release();
  ClientMemory::return_to_system();
}

// Clients streaming large commands, after every other event of the turn: what those produced
// (replies, requests forwarded to the nodes) is sent first, then the streamers read a budget
// together, so that a small request never waits behind many large reads. Then those streaming
// a huge command (past Client::kRestFrom) that read more of it rest kStreamersRestPerBusy times
// as long as the turn took (copying, page faults, evictions, and any time the loop was
// preempted meanwhile): the loop sleeps in epoll_wait in between, woken at once by anyone
// else's request. A large command of ordinary size is read on, unrested: only what streams
// without end is slowed. One that sent nothing new waits for epoll, not a rest.
void Proxy::Impl::serve_streamers() {
  flush_dirty();
  auto list = rests.take_streamers();
  const std::int64_t start = wall_ns();
  const std::size_t each = std::max<std::size_t>(64 * 1024, kStreamingPerTurn / list.size());
  bool rest = false;
  for (auto& [c, ev] : list) {
    if (c->dead) continue;
    const std::size_t before = c->in.end - c->in.start;
    on_client_event(*c, ev, each);
    // Marks the huge ones that read more (ev is no longer needed).
    ev = !c->dead && !c->fanout && c->huge() && c->in.end - c->in.start > before;
    rest = rest || ev;
  }
  if (!rest) return;
  const std::int64_t end = wall_ns();
  rests.rest_streamers_until(end + (end - start) * kStreamersRestPerBusy);
  for (auto [c, read_more] : list)
    if (read_more && !c->dead) rest_streamer(*c);
}

void Proxy::Impl::rest_streamer(Client& c) {
  if (c.resting) return;
  if (!c.ever_rested) st.clients_rested.add();
  c.ever_rested = true;
  c.resting = true;
  rests.rest(&c);
  update_events(c);
}

// The streamers' rest is over: they are read in this turn, as if epoll had reported them.
void Proxy::Impl::resume_streamers() {
  auto list = rests.take_resting();
  for (Client* c : list) {
    if (c->dead) continue;
    c->resting = false;
    update_events(*c);
    if (c->streaming()) rests.stream(c, EPOLLIN);
  }
}

// Whether a client's ready replies wait (it is, or begins, holding them): while more of its
// requests are at the nodes, for at most kHoldNs, and only a few kilobytes of them.
bool Proxy::Impl::hold(Client& c) {
  if (c.hold_until > 0) return true;
  if (c.hold_until < 0) {  // its hold has just ended: the replies go now
    c.hold_until = 0;
    return false;
  }
  if (!poller.can_wait_ns() || c.inflight == 0 || c.closing || c.want_write ||
      c.pending_out() > 16 * 1024)
    return false;
  turn.hold(c, turn_ns + kHoldNs);
  st.replies_held.add();
  return true;
}

// One wait for events: for as long as wait_ms says, or until the first hold ends (to the
// nanosecond: a hold is a fraction of a millisecond).
int Proxy::Impl::wait(epoll_event* events, int max) {
  if (!turn.anyone_holding()) return poller.wait(events, max, wait_ms());
  const std::int64_t left =
      std::min(turn.first_hold_ends() - wall_ns(), std::int64_t{wait_ms()} * 1'000'000);
  return poller.wait_ns(events, max, std::max<std::int64_t>(0, left));
}

// How long epoll_wait may sleep: until the resting streamers resume (rounded up to the
// millisecond), else until the next sweep of timeouts.
int Proxy::Impl::wait_ms() const {
  const int sweep = opts.backend_timeout_ms > 0 || opts.client_timeout_ms > 0 ? 100 : 1000;
  if (rests.none()) return sweep;
  std::int64_t resume = kForever;
  if (rests.any_resting()) resume = rests.streamers_resume_ns();
  if (rests.any_fanning()) resume = std::min(resume, rests.fanouts_resume_ns());
  const std::int64_t left = resume - wall_ns();
  return left <= 0 ? 0
                   : static_cast<int>(std::min<std::int64_t>(sweep, (left + 999'999) / 1'000'000));
}

void Proxy::Impl::end_of_turn() {
  flush_dirty();
  if (opts.max_client_memory > 0 && memory.held() > opts.max_client_memory)
    bound_client_memory(nullptr, 0);  // replies that grew during the turn
  memory.clear_graveyard();
  stats.forget_closed();
}

void Proxy::Impl::flush_dirty() {
  fail_broken();  // send failures seen during the turn
  turn.release_holds(turn_ns);
  // Coalesced writes: one send per socket per turn.
  turn.each_dirty([&](Conn& c) {
    if (!c.dead && !(c.kind == Kind::Client && hold(static_cast<Client&>(c)))) flush(c);
  });
  while (turn.any_broken()) {
    fail_broken();
    turn.each_dirty([&](Conn& c) {
      if (!c.dead) flush(c);
    });
  }
}

void Proxy::Impl::fail_broken() {
  while (turn.any_broken())
    for (Backend* b : turn.take_broken())
      if (!b->dead && (!b->owner || !b->owner->dead)) backend_failed(*b, "send failed", false);
}

void Proxy::Impl::flush(Conn& c) {
  if (c.fd < 0 || c.dead) return;
  if (c.kind == Kind::Backend && static_cast<Backend&>(c).state != Backend::State::Connected)
    return;
  while (c.out_off < c.out.size()) {
    ssize_t n = ::send(c.fd, c.out.data() + c.out_off, c.out.size() - c.out_off, MSG_NOSIGNAL);
    if (n > 0) {
      c.out_off += static_cast<std::size_t>(n);
      if (c.kind == Kind::Client) {
        auto& cl = static_cast<Client&>(c);
        cl.out_progress_ns = cl.last_io_ns = turn_ns;
      }
      if (c.kind == Kind::Backend)
        st.servers[static_cast<Backend&>(c).node]->in_queue_bytes.sub(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // What was sent goes: a slow reader's buffer holds only what it has not read.
      if (c.out_off >= 64 * 1024 && c.out_off * 2 >= c.out.size()) {
        c.out.erase(0, c.out_off);
        c.out_off = 0;
      }
      if (!c.want_write) {
        c.want_write = true;
        update_events(c);
      }
      return;
    }
    // A hard error.
    if (c.kind == Kind::Client) {
      st.client_err.add();
      close_client(static_cast<Client&>(c), "send: " + errno_text(errno));
    } else if (c.kind == Kind::Stats) {
      poller.close(c);
      c.dead = true;
    } else {
      auto& b = static_cast<Backend&>(c);
      st.servers[b.node]->in_queue_bytes.sub(c.pending_out());
      c.out.clear();
      c.out_off = 0;
      turn.broken(b);
    }
    return;
  }
  c.out.clear();
  c.out_off = 0;
  if (c.out.capacity() > 1024 * 1024) {  // a burst's memory goes
    std::string().swap(c.out);
    memory.freed();
  }
  if (c.want_write) {
    c.want_write = false;
    update_events(c);
  }
  if (c.kind == Kind::Client) {
    memory.account(static_cast<Client&>(c));
    after_output(static_cast<Client&>(c));
  }
  if (c.kind == Kind::Stats) {
    poller.close(c);
    c.dead = true;
  }
}

}  // namespace perflab::proxy
