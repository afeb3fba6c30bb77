#pragma once
// The event store of EXPERIMENTS.md §1 in Perflab's own PostgreSQL schema: streams + events,
// append_to_stream with the expected-version check in one transaction, read_stream_forward.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "iolist/events.h"
#include "targets/postgres.h"

namespace perflab::iolist {

enum class Builder { Interpolate, IoList, Prepared, Unnest, Copy };
const char* to_string(Builder b);
Builder builder_from_string(const std::string& s);  // throws std::invalid_argument
std::vector<std::string> builder_names();

// The expected version did not match the stream's (optimistic concurrency).
class WrongExpectedVersion : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Drops Perflab's schema (only when it carries Perflab's mark: targets/ownership.h) and creates
// it anew with the 2016 tables; throws TargetError for a schema Perflab did not create.
void reset_schema(PgConnection& conn, const std::string& schema);

// Event ids are assigned by the writer, as the original EventStore's single writer did; one
// allocator is shared by every connection of a run (initialised from the table's maximum).
class EventIdAllocator {
 public:
  explicit EventIdAllocator(std::int64_t last_used = 0) : next_(last_used + 1) {}
  std::int64_t take(std::int64_t count) { return next_.fetch_add(count); }
  static std::int64_t last_used(PgConnection& conn, const std::string& schema);

 private:
  std::atomic<std::int64_t> next_;
};

struct AppendResult {
  std::int64_t stream_id = 0;
  std::int64_t first_version = 0;  // version of the first appended event
  std::int64_t created_at_us = 0;  // the batch's created_at, µs since the epoch
};

// One connection's view of the store. Not thread-safe: one per writer/reader.
class EventStore {
 public:
  EventStore(PgConnection& conn, std::string schema, EventIdAllocator& ids);

  // Appends `events` to the stream in one transaction, checking the expected version (0 for a
  // new stream). The INSERT is built and sent the way `builder` says. Throws
  // WrongExpectedVersion, PgError, or std::invalid_argument (too many events for one statement).
  AppendResult append_to_stream(const std::string& stream_uuid, std::int64_t expected_version,
                                const std::vector<EventData>& events, Builder builder);

  // Up to `count` events of the stream from start_version (1-based) on, in version order.
  std::vector<RecordedEvent> read_stream_forward(const std::string& stream_uuid,
                                                 std::int64_t start_version, int count);

  // The statement text a builder sends for n events (empty for COPY).
  std::string statement_text(Builder builder, std::size_t n) const;

 private:
  // Inside the append's transaction: the stream's id (created for version 0) after checking
  // its version; throws WrongExpectedVersion.
  std::int64_t check_expected_version(const std::string& stream_uuid,
                                      std::int64_t expected_version);
  // The rows of one append, inserted the way the builder says.
  struct NewRows {
    std::int64_t stream_id, first_version, first_event_id;
    const std::string& created_at;
    const std::vector<EventData>& events;
  };
  void insert_rows(Builder builder, const NewRows& rows);
  void insert_copy(const NewRows& rows);
  void insert_unnest(const NewRows& rows);
  void insert_bound(Builder builder, const NewRows& rows);  // interpolate, iolist, prepared

  PgConnection& conn_;
  std::string schema_;
  std::string events_table_, streams_table_;
  std::string head_;  // "INSERT INTO <schema>.events (...) VALUES"
  EventIdAllocator& ids_;
  std::map<std::size_t, std::string> prepared_;  // batch size -> statement name
  std::string read_sql_;
};

}  // namespace perflab::iolist
