// What the proxy's clients hold in memory, together; large buffers returned to the system.
#include <malloc.h>

#if defined(__SANITIZE_ADDRESS__)
// The sanitizer allocator's own release (sanitizer/allocator_interface.h, not always installed).
extern "C" void __sanitizer_purge_allocator();
#endif

#include <mutex>
#include <utility>

#include "proxy/client_memory.h"

namespace perflab::proxy {
namespace {

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

void ClientMemory::account(Client& c) {
  if (c.dead) return;  // closing took it out of the total
  const std::size_t m = c.holds();
  if (m > c.mem)
    held_.add(m - c.mem);
  else
    held_.sub(c.mem - m);
  c.mem = m;
}

void ClientMemory::closed(Client& c) {
  held_.sub(c.mem);
  c.mem = 0;
  give_back_ = true;
}

void ClientMemory::clear_graveyard() {
  for (auto& c : graveyard_)
    if (buffers_of(*c) >= kFreeOffLoop) free_off_loop(std::move(c), {});
  graveyard_.clear();
}

void ClientMemory::lend_input(Client& c) {
  if (c.in.cap == 0 && spare_in_.cap > 0) std::swap(c.in, spare_in_);
}

void ClientMemory::return_input(Client& c) {
  if (c.in.cap == 0 || !c.in.empty()) return;
  if (c.in.cap <= kLentInputMax && spare_in_.cap == 0) {
    c.in.high = 0;
    std::swap(c.in, spare_in_);
  } else if (c.in.cap >= kFreeOffLoop) {
    InBuf large;
    std::swap(large, c.in);
    free_off_loop(nullptr, std::move(large));
  } else {
    give_back_ = give_back_ || c.in.cap > kLentInputMax;
    c.in.release();
  }
  account(c);
}

bool ClientMemory::take_freed() {
  return std::exchange(give_back_, false);
}

void ClientMemory::return_to_system() {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_purge_allocator();
#else
  ::malloc_trim(0);
#endif
}

void ClientMemory::stop() {
  graveyard_.clear();
  reaper_.stop();
}

void ClientMemory::free_off_loop(std::unique_ptr<Client> c, InBuf buf) {
  reaper_.free(std::move(c), std::move(buf));
  give_back_ = true;
}

}  // namespace perflab::proxy
