// What clients hold in the proxy, bounded together (Redis's maxmemory-clients: the clients
// holding the most are evicted), the client timeout (Redis's `timeout`), and memory given back
// to the system once the proxy is idle.
#include <malloc.h>

#if defined(__SANITIZE_ADDRESS__)
// The sanitizer allocator's own release (sanitizer/allocator_interface.h, not always installed).
extern "C" void __sanitizer_purge_allocator();
#endif

#include <mutex>

#include "proxy/proxy_impl.h"

namespace perflab::proxy {
namespace {

// The largest input buffer kept for lending; a larger one (a large command's) is freed.
constexpr std::size_t kLentInputMax = 64 * 1024;
// Buffers this large (a mapping of their own, see return_large_buffers_when_freed) are freed
// off the loop thread.
constexpr std::size_t kFreeOffLoop = 1 << 20;

// The bytes a closed client's buffers take (their capacity, not what it last held).
std::size_t buffers_of(const Client& c) {
  std::size_t n = c.in.cap + c.out.capacity();
  for (const auto& b : c.backends)
    if (b) n += b->in.cap + b->out.capacity();
  return n;
}

}  // namespace

// glibc would otherwise raise its mmap threshold after the first large free (to 32 MiB at most)
// and keep later large buffers in its heap once freed, above the client memory bound.
void return_large_buffers_when_freed() {
#if !defined(__SANITIZE_ADDRESS__)
  static std::once_flag once;
  std::call_once(once, [] { ::mallopt(M_MMAP_THRESHOLD, 1 << 20); });
#endif
}

// A client's input (bytes written into its buffer: a large buffer's untouched pages cost
// nothing), its output, the replies it waits to send in order, and its own backend connections'
// buffers.
void Proxy::Impl::account(Client& c) {
  if (c.dead) return;  // closing took it out of the total
  std::size_t m = c.in.touched() + c.out.size() + c.stored_bytes;
  for (const auto& b : c.backends)
    if (b) m += b->in.touched() + b->out.size() + b->held.size();
  if (m > c.mem)
    memory.held.add(m - c.mem);
  else
    memory.held.sub(c.mem - m);
  c.mem = m;
}

// Keeps what all clients hold, plus `extra` that `growing` is about to add, within
// max_client_memory: the clients holding the most are disconnected until the rest fit, as
// Redis does. False when `growing` itself was disconnected.
bool Proxy::Impl::bound_client_memory(Client* growing, std::size_t extra) {
  const std::size_t bound = opts.max_client_memory;
  if (bound == 0 || memory.held.get() + extra <= bound) return true;
  for (auto& [p, c] : clients) account(*c);
  bool growing_evicted = false;
  while (memory.held.get() + extra > bound) {
    Client* victim = nullptr;
    std::size_t most = 0;
    for (auto& [p, c] : clients) {
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
                            " clients holding " + std::to_string(memory.held.get() + extra) +
                            " together (max client memory " + std::to_string(bound) + ")");
    if (victim == growing) {
      extra = 0;
      growing_evicted = true;
    }
    close_client(*victim, "evicted: all clients held too much");
  }
  return !growing_evicted;
}

// A client with no half-read command holds no input buffer: it reads into the spare one, which
// it keeps only while a command stays incomplete. Ten thousand idle clients then hold nothing.
void Proxy::Impl::lend_input(Client& c) {
  if (c.in.cap == 0 && memory.spare_in.cap > 0) std::swap(c.in, memory.spare_in);
}

void Proxy::Impl::return_input(Client& c) {
  if (c.in.cap == 0 || !c.in.empty()) return;
  if (c.in.cap <= kLentInputMax && memory.spare_in.cap == 0) {
    c.in.high = 0;
    std::swap(c.in, memory.spare_in);
  } else if (c.in.cap >= kFreeOffLoop) {
    InBuf large;
    std::swap(large, c.in);
    free_off_loop(nullptr, std::move(large));
  } else {
    memory.give_back = memory.give_back || c.in.cap > kLentInputMax;
    c.in.release();
  }
  account(c);
}

// Clients without a reply awaited or still to write that have sent and read nothing for
// client_timeout_ms. A blocking command's reply can come after that, in the very turn that
// looks, before the turn writes it out: its client is not idle.
void Proxy::Impl::check_idle_clients() {
  if (opts.client_timeout_ms <= 0) return;
  const std::int64_t limit = std::int64_t{opts.client_timeout_ms} * 1'000'000;
  std::vector<Client*> idle;
  for (auto& [p, c] : clients)
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

// Called when a loop turn found nothing to do: buffers that only bursts needed go, and the
// allocator returns what is free to the system (glibc keeps freed small blocks otherwise: after
// a storm of connections, tens of megabytes nobody uses).
void Proxy::Impl::give_back_memory() {
  if (!memory.give_back) return;
  memory.give_back = false;
  if (scr.text.capacity() > kLentInputMax) std::string().swap(scr.text);
  for (auto& b : shared)
    if (b && b->in.empty() && b->in.cap > kLentInputMax) b->in.release();
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_purge_allocator();
#else
  ::malloc_trim(0);
#endif
}

// Clients closed during the turn: those with large buffers go to the reaper thread.
void Proxy::Impl::clear_graveyard() {
  for (auto& c : graveyard)
    if (buffers_of(*c) >= kFreeOffLoop) free_off_loop(std::move(c), {});
  graveyard.clear();
}

void Proxy::Impl::free_off_loop(std::unique_ptr<Client> c, InBuf buf) {
  memory.reaper.free(std::move(c), std::move(buf));
  memory.give_back = true;
}

}  // namespace perflab::proxy
