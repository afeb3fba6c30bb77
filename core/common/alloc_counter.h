#pragma once
// Per-thread allocation counting. Linking this translation unit replaces the global
// operator new/delete with versions that count, per thread, how many allocations were made
// and how many bytes they asked for. Counting is always on and costs two thread-local adds.
#include <cstdint>

namespace perflab {

struct AllocCount {
  std::uint64_t allocations = 0;
  std::uint64_t bytes = 0;
};

// Totals for the calling thread since it started.
AllocCount thread_allocations();

// Counts the allocations of the calling thread between construction and delta().
class AllocScope {
 public:
  AllocScope() : start_(thread_allocations()) {}
  AllocCount delta() const {
    AllocCount now = thread_allocations();
    return {now.allocations - start_.allocations, now.bytes - start_.bytes};
  }

 private:
  AllocCount start_;
};

}  // namespace perflab
