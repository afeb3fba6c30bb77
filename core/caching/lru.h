#pragma once
// The local tier's store: an in-process LRU cache with a byte budget, like an App Engine
// instance's memory (50 MB by default). Values are whatever the caller keeps (ready objects
// behind shared_ptr, or encoded bytes); each entry is charged the bytes the caller states.
// Not thread-safe: one cache per thread, as an instance's memory is per instance.
#include <cstddef>
#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>

namespace perflab::caching {

struct LruStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t evictions = 0;  // entries removed to make room
  std::uint64_t rejected = 0;   // entries larger than the whole budget, not stored
  std::size_t bytes = 0;        // bytes charged now
  std::size_t entries = 0;
};

template <class V>
class LruCache {
 public:
  explicit LruCache(std::size_t budget_bytes) : budget_(budget_bytes) {}

  // The value for key (and marks it most recently used), or nullptr; counts a hit or a miss.
  const V* get(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) {
      ++stats_.misses;
      return nullptr;
    }
    ++stats_.hits;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->value;
  }

  // Stores (or replaces) key, evicting least recently used entries until it fits. A value
  // larger than the whole budget is not stored (and any old value for key is dropped).
  // Returns whether it was stored.
  bool put(const std::string& key, V value, std::size_t bytes) {
    erase(key);
    if (bytes > budget_) {
      ++stats_.rejected;
      return false;
    }
    while (stats_.bytes + bytes > budget_ && !order_.empty()) {
      Entry& victim = order_.back();
      stats_.bytes -= victim.bytes;
      index_.erase(victim.key);
      order_.pop_back();
      ++stats_.evictions;
    }
    order_.push_front(Entry{key, std::move(value), bytes});
    index_.emplace(key, order_.begin());
    stats_.bytes += bytes;
    stats_.entries = order_.size();
    return true;
  }

  // Removes key if present (not counted as an eviction).
  bool erase(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    stats_.bytes -= it->second->bytes;
    order_.erase(it->second);
    index_.erase(it);
    stats_.entries = order_.size();
    return true;
  }

  bool contains(const std::string& key) const { return index_.count(key) != 0; }
  // Bytes charged for key, 0 when absent (does not touch the order or the counters).
  std::size_t bytes_of(const std::string& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? 0 : it->second->bytes;
  }
  void clear() {
    order_.clear();
    index_.clear();
    stats_.bytes = 0;
    stats_.entries = 0;
  }
  void reset_counters() { stats_.hits = stats_.misses = stats_.evictions = stats_.rejected = 0; }
  LruStats stats() const {
    LruStats s = stats_;
    s.entries = order_.size();
    return s;
  }
  std::size_t budget() const { return budget_; }

 private:
  struct Entry {
    std::string key;
    V value;
    std::size_t bytes;
  };
  std::size_t budget_;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<std::string, typename std::list<Entry>::iterator> index_;
  LruStats stats_;
};

}  // namespace perflab::caching
