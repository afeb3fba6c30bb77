#pragma once
// A connection's read buffer in the proxy: what a client or a node has sent and the parsers have
// not consumed yet.
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>

namespace perflab::proxy {

// A read buffer: bytes [start, end) are unread; compacting moves them to the front, which keeps
// offsets relative to the unread start valid (the parsers rely on that). Storage is neither
// zeroed nor copied to grow: realloc remaps a large buffer's pages, whose untouched ones cost
// nothing, so touched() is what it costs.
struct InBuf {
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> mem;
  std::size_t cap = 0, start = 0, end = 0;
  std::size_t high = 0;  // the most bytes written since it was allocated
  // Whether space(min) would need a larger allocation.
  bool must_grow(std::size_t min) const { return cap - (end - start) < min; }
  char* space(std::size_t min) {
    if (cap - end < min) {
      if (start > 0) {
        std::memmove(mem.get(), mem.get() + start, end - start);
        end -= start;
        start = 0;
      }
      if (cap - end < min) {
        const std::size_t n = end + std::max(min, cap);
        char* m = static_cast<char*>(std::realloc(mem.get(), n));
        if (!m) throw std::bad_alloc();
        (void)mem.release();
        mem.reset(m);
        cap = n;
      }
    }
    return mem.get() + end;
  }
  std::size_t room() const { return cap - end; }
  void wrote(std::size_t n) {
    end += n;
    high = std::max(high, end);
  }
  std::size_t touched() const { return high; }
  std::string_view data() const { return {mem.get() + start, end - start}; }
  bool empty() const { return start == end; }
  void consume(std::size_t n) {
    start += n;
    if (start == end) start = end = 0;
  }
  void clear() { start = end = 0; }
  void release() {
    mem.reset();
    cap = start = end = high = 0;
  }
};

}  // namespace perflab::proxy
