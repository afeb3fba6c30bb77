#pragma once
// The bound on all clients' memory, as the event loop keeps it (client_memory.cpp): what they
// hold together, the input buffer lent to each client while it reads, whether memory was freed
// since the allocator last gave it back, and the thread that frees large buffers off the loop.
// Internal to perflab_proxy.
#include "proxy/counters.h"
#include "proxy/in_buf.h"
#include "proxy/reaper.h"

namespace perflab::proxy {

struct ClientMemoryState {
  Counter held;            // what all clients hold together
  InBuf spare_in;          // lent to a client while it has a half-read command
  bool give_back = false;  // memory was freed since the allocator last gave it back
  Reaper reaper;           // frees large buffers off the loop
};

}  // namespace perflab::proxy
