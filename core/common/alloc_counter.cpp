#include "common/alloc_counter.h"

#include <cstdlib>
#include <new>

namespace perflab {
namespace {
// Trivially destructible, so it is usable during thread start and teardown.
thread_local AllocCount t_count;

void* counted_alloc(std::size_t n) {
  ++t_count.allocations;
  t_count.bytes += n;
  if (n == 0) n = 1;
  return std::malloc(n);
}

void* counted_aligned_alloc(std::size_t n, std::size_t align) {
  ++t_count.allocations;
  t_count.bytes += n;
  if (align < sizeof(void*)) align = sizeof(void*);
  void* p = nullptr;
  if (posix_memalign(&p, align, n == 0 ? 1 : n) != 0) return nullptr;
  return p;
}
}  // namespace

AllocCount thread_allocations() {
  return t_count;
}

}  // namespace perflab

// Global replacements: every operator new of the program counts on its thread.
void* operator new(std::size_t n) {
  if (void* p = perflab::counted_alloc(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  if (void* p = perflab::counted_alloc(n)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return perflab::counted_alloc(n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return perflab::counted_alloc(n);
}
void* operator new(std::size_t n, std::align_val_t a) {
  if (void* p = perflab::counted_aligned_alloc(n, static_cast<std::size_t>(a))) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t a) {
  if (void* p = perflab::counted_aligned_alloc(n, static_cast<std::size_t>(a))) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
