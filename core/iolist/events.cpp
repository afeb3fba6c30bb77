#include "iolist/events.h"

#include <cstdio>
#include <random>

namespace perflab::iolist {

std::string make_uuid(std::uint64_t& state) {
  std::mt19937_64 rng(state);
  state = rng();
  const std::uint64_t a = rng(), b = rng();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0x0fff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::vector<EventData> make_events(std::size_t count, std::uint64_t seed, std::size_t data_bytes) {
  static constexpr char kAlphabet[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::mt19937_64 rng(seed);
  std::vector<EventData> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    EventData e;
    e.event_type = (i % 2 == 0) ? "PerflabOrderPlaced" : "PerflabOrderShipped";
    if (i % 7 != 6) {
      std::uint64_t st = rng();
      e.correlation_id = make_uuid(st);
    }
    auto note = [&](std::size_t n) {
      std::string text(n, ' ');
      for (auto& c : text) c = kAlphabet[rng() % (sizeof kAlphabet - 1)];
      return text;
    };
    if (data_bytes == 0) {
      const std::string payload = note(64);
      e.data = "{\"n\":" + std::to_string(i) + ",\"amount\":" + std::to_string(rng() % 100000) +
               ",\"note\":\"" + payload + "\"}";
    } else {  // the note fills what the fixed part leaves of data_bytes
      e.data = "{\"n\":" + std::to_string(i) + ",\"amount\":" + std::to_string(rng() % 100000) +
               ",\"note\":\"";
      const std::size_t fixed = e.data.size() + 2;  // and the closing "}
      e.data += note(data_bytes > fixed ? data_bytes - fixed : 0);
      e.data += "\"}";
    }
    // A byte outside ASCII and a NUL make sure bytea round-trips are exact.
    e.metadata = std::string("{\"user\":\"u") + std::to_string(rng() % 1000) + "\"}";
    e.metadata.push_back('\0');
    e.metadata.push_back(static_cast<char>(0xff));
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace perflab::iolist
