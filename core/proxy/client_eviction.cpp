// Clients closed for what they hold together (Redis's maxmemory-clients: those holding the most
// are evicted) and for idling (Redis's `timeout`).
#include "proxy/proxy_impl.h"

namespace perflab::proxy {

// Keeps what all clients hold, plus `extra` that `growing` is about to add, within
// max_client_memory: the clients holding the most are disconnected until the rest fit, as
// Redis does. False when `growing` itself was disconnected.
bool Proxy::Impl::bound_client_memory(Client* growing, std::size_t extra) {
  const std::size_t bound = opts.max_client_memory;
  if (bound == 0 || memory.held() + extra <= bound) return true;
  for (auto& c : clients.all()) memory.account(*c);
  bool growing_evicted = false;
  while (memory.held() + extra > bound) {
    Client* victim = nullptr;
    std::size_t most = 0;
    for (auto& c : clients.all()) {
      const std::size_t held = c->mem + (c.get() == growing ? extra : 0);
      if (!victim || held > most) {
        victim = c.get();
        most = held;
      }
    }
    if (!victim) break;
    st.clients_evicted.add();
    st.client_err.add();
    log(LogLevel::Warn, "client " + victim->peer + " evicted: it held " + std::to_string(most) +
                            " bytes, the most of " + std::to_string(clients.size()) +
                            " clients holding " + std::to_string(memory.held() + extra) +
                            " together (max client memory " + std::to_string(bound) + ")");
    if (victim == growing) {
      extra = 0;
      growing_evicted = true;
    }
    close_client(*victim, "evicted: all clients held too much");
  }
  return !growing_evicted;
}

// Clients without a reply awaited or still to write that have sent and read nothing for
// client_timeout_ms. A blocking command's reply can come after that, in the very turn that
// looks, before the turn writes it out: its client is not idle.
void Proxy::Impl::check_idle_clients() {
  if (opts.client_timeout_ms <= 0) return;
  const std::int64_t limit = std::int64_t{opts.client_timeout_ms} * 1'000'000;
  std::vector<Client*> idle;
  for (auto& c : clients.all())
    if (c->pending.empty() && c->pending_out() == 0 && turn_ns - c->last_io_ns >= limit)
      idle.push_back(c.get());
  for (Client* c : idle) {
    st.client_timeouts.add();
    log(LogLevel::Info, "client " + c->peer + " closed: idle for " +
                            std::to_string((turn_ns - c->last_io_ns) / 1'000'000) +
                            " ms (client timeout " + std::to_string(opts.client_timeout_ms) +
                            " ms" + (c->in.empty() ? "" : ", a command half-sent") + ")");
    close_client(*c, "client timeout");
  }
}

}  // namespace perflab::proxy
