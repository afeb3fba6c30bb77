#pragma once
// Where a decode benchmark places the bytes it decodes: each round 48 bytes further into a room
// 4 KiB larger than them. A value fetched lands wherever the client's allocator puts it, and a
// copy out of it can cost twenty times as much at one distance from its destination as at
// another (glibc 2.36's memcpy on AMD Zen: `rep movsb` with the destination 1 to 31 bytes past
// the source modulo 4 KiB, 22-36 µs instead of 1.5 µs for 60 KB); from one placement alone a
// document's decode time was that of its body's copy, and which encoding it hit was luck. Over
// the rounds a placement that hits it is an outlier, not the median.
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace perflab::caching {

class RotatingPlacement {
 public:
  static constexpr std::size_t kStep = 48, kRoom = 4096;

  // A copy of `bytes` where round `round` places them; valid until the next call.
  std::string_view place(std::string_view bytes, int round) {
    if (room_.size() < bytes.size() + kRoom) room_.resize(bytes.size() + kRoom);
    const std::size_t at = static_cast<std::size_t>(round) * kStep % kRoom;
    std::memcpy(room_.data() + at, bytes.data(), bytes.size());
    return {room_.data() + at, bytes.size()};
  }

 private:
  std::string room_;
};

}  // namespace perflab::caching
