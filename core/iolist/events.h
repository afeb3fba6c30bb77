#pragma once
// Events of the event store (docs/iolist.md): what is appended and what is read back.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace perflab::iolist {

// An event as the application hands it to append_to_stream.
struct EventData {
  std::string event_type;
  std::optional<std::string> correlation_id;  // NULL when absent
  std::string data;                           // bytea
  std::string metadata;                       // bytea
};

// An event as stored, read back by read_stream_forward.
struct RecordedEvent {
  std::int64_t event_id = 0;
  std::int64_t stream_id = 0;
  std::int64_t stream_version = 0;
  std::string event_type;
  std::optional<std::string> correlation_id;
  std::string data;
  std::string metadata;
  std::int64_t created_at_us = 0;  // microseconds since the Unix epoch (UTC)
};

// `count` events generated from a seed: the same seed gives the same events. Payloads are
// about 100 bytes of JSON, like the events the original benchmark's factory made; every
// seventh event has no correlation id (exercises NULL).
// With data_bytes > 0 every event's data is exactly that long (its note padded; at least the
// JSON's fixed part, about 40 bytes): the payload sweep's events.
std::vector<EventData> make_events(std::size_t count, std::uint64_t seed,
                                   std::size_t data_bytes = 0);

// A random version-4 UUID text from the given generator state.
std::string make_uuid(std::uint64_t& state);

}  // namespace perflab::iolist
