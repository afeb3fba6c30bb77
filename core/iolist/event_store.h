#pragma once
// The event store of docs/iolist.md in Perflab's own PostgreSQL schema: streams + events,
// append_to_stream with the expected-version check in one transaction, read_stream_forward.
#include <array>
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

// How an append's statements travel: one round trip each (BEGIN, the expected-version check,
// the INSERT, COMMIT: four), or all of them in one flight through libpq's pipeline mode
// (PostgreSQL 14+). libpq allows no COPY in a pipeline: copy sends BEGIN and the check in one
// flight, then COPY and COMMIT.
enum class Transport { RoundTrips, Pipeline };
const char* to_string(Transport t);
Transport transport_from_string(const std::string& s);  // throws std::invalid_argument
std::vector<std::string> transport_names();

struct AppendOptions {
  Builder builder = Builder::IoList;
  Transport transport = Transport::RoundTrips;
  // false: SET LOCAL synchronous_commit = off in the append's transaction (COMMIT does not wait
  // for the WAL flush). Only for a server Perflab manages: the experiment never sends it to
  // another (it is a session setting of the transaction only, but it gives up durability).
  bool synchronous_commit = true;
};

// The phases of one append, in the order they run on the round-trip transport. Pipeline: build,
// then Flight (BEGIN … COMMIT in one flight; for copy: BEGIN and the check in one flight, then
// COPY and COMMIT).
enum class Phase { Begin, Check, Build, Insert, Commit, Flight };
inline constexpr std::size_t kPhases = 6;
const char* to_string(Phase p);

// Where one append's time went, measured on the client: wall and thread CPU time per phase (ns).
struct AppendTiming {
  std::array<std::int64_t, kPhases> wall_ns{}, cpu_ns{};
  std::int64_t wall(Phase p) const { return wall_ns[static_cast<std::size_t>(p)]; }
  std::int64_t total_wall() const;
};

struct AppendResult {
  std::int64_t stream_id = 0;
  std::int64_t first_version = 0;  // version of the first appended event
  std::int64_t created_at_us = 0;  // the batch's created_at, µs since the epoch
};

class EventStore;

// The parameters of a stream read (read_stream_forward's statement, EventStore::read_sql): the
// stream, the first version and how many, as text; for whichever driver sends it (EventStore's
// own, waiting; the event-driven client pool, many connections at once).
class StreamRead {
 public:
  StreamRead(const std::string& stream_uuid, std::int64_t start_version, int count);
  StreamRead(const StreamRead&) = delete;  // the parameters point into it
  StreamRead& operator=(const StreamRead&) = delete;
  const PgParams& params() const { return params_; }

 private:
  std::string uuid_, start_, limit_;
  PgParams params_;
};

// The events of a stream read's result, decoded (data and metadata from bytea hex).
std::vector<RecordedEvent> decode_events(const PgResult& r);

// BEGIN of an append's transaction on the round-trip transport ("BEGIN", or with SET LOCAL
// synchronous_commit = off), a simple query.
std::string append_begin_sql(const AppendOptions& options);

// Throws std::invalid_argument when `events` cannot be one append with this builder (none, or
// more bind parameters than one statement takes).
void check_append_size(const std::vector<EventData>& events, Builder builder);

// The expected-version check of an append on the round-trip transport, one statement at a time
// for whichever driver sends them (EventStore's own, waiting for each; the event-driven client
// pool, many connections at once): the same statements and parameters either way. Done, it has
// the stream's id (created for version 0). Keeps references to the store and the uuid.
class VersionCheck {
 public:
  VersionCheck(const EventStore& store, const std::string& stream_uuid,
               std::int64_t expected_version);
  bool done() const { return step_ == Step::Done; }
  // The statement to send next (extended protocol, results as text) and its parameters.
  const char* sql() const { return sql_.c_str(); }
  const PgParams& params() const { return params_; }
  // The statement's result: goes on to the next statement or is done; throws
  // WrongExpectedVersion when the stream is not at the expected version.
  void take(const PgResult& r);
  // The statement failed: throws WrongExpectedVersion for a stream that already exists
  // (expected version 0), else the failure itself.
  [[noreturn]] void fail(const PgError& e) const;
  std::int64_t stream_id() const { return stream_id_; }

 private:
  enum class Step { Create, Lock, Version, Done };
  const EventStore& store_;
  const std::string& uuid_;
  std::int64_t expected_;
  Step step_;
  std::string sql_, sid_;
  PgParams params_;
  std::int64_t stream_id_ = 0;
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
  // The same, sent the way `options` say; `timing` (may be null) receives the phases' times.
  AppendResult append_to_stream(const std::string& stream_uuid, std::int64_t expected_version,
                                const std::vector<EventData>& events, const AppendOptions& options,
                                AppendTiming* timing = nullptr);

  // Takes `count` stream ids from the streams' sequence ahead of time, in one round trip: the
  // pipeline transport creates a stream with its id known before the flight, and a benchmark
  // reserves them before measuring (else a refill is one more round trip inside an append).
  void reserve_stream_ids(std::size_t count);

  // Up to `count` events of the stream from start_version (1-based) on, in version order.
  std::vector<RecordedEvent> read_stream_forward(const std::string& stream_uuid,
                                                 std::int64_t start_version, int count);
  // Its statement (extended protocol, results as text), with a StreamRead's parameters.
  const char* read_sql() const { return read_sql_.c_str(); }

  // The statement text a builder sends for n events (empty for COPY).
  std::string statement_text(Builder builder, std::size_t n) const;

  const std::string& events_table() const { return events_table_; }
  const std::string& streams_table() const { return streams_table_; }

  // The INSERT of one append as the builder makes it: the statement (text or prepared name) and
  // its parameters, or COPY's payload. Building it is the append's Build phase.
  struct BuiltInsert {
    Builder builder = Builder::IoList;
    std::string sql;                        // text (interpolate, iolist, unnest, COPY's command)
    const std::string* prepared = nullptr;  // the prepared statement's name (prepared)
    std::vector<char> numbers;              // numbers as text, the parameters point into it
    std::vector<std::string> arrays;        // unnest's array literals
    std::string copy_payload;               // copy: the rows in COPY's text format
    PgParams params;
  };
  // The INSERT of an append of `events` to stream_id after the check, from first_version on,
  // with ids taken from the run's allocator: what append_to_stream sends, for a driver that
  // sends it itself. The prepared builder prepares its statement on this connection the first
  // time (a round trip of its own).
  BuiltInsert build_append_insert(std::int64_t stream_id, std::int64_t first_version,
                                  const std::string& created_at,
                                  const std::vector<EventData>& events, Builder builder);

 private:
  // The rows of one append.
  struct NewRows {
    std::int64_t stream_id, first_version, first_event_id;
    const std::string& created_at;
    const std::vector<EventData>& events;
  };
  BuiltInsert build_insert(Builder builder, const NewRows& rows);
  void build_bound(BuiltInsert& out, const NewRows& rows);  // interpolate, iolist, prepared
  void build_unnest(BuiltInsert& out, const NewRows& rows);
  void build_copy(BuiltInsert& out, const NewRows& rows);
  void send_insert(const BuiltInsert& ins);  // one round trip (copy: two)
  AppendResult append_pipelined(const std::string& stream_uuid, std::int64_t expected_version,
                                const std::vector<EventData>& events, const AppendOptions& options,
                                AppendTiming* timing);
  std::int64_t take_stream_id();

  PgConnection& conn_;
  std::string schema_;
  std::string events_table_, streams_table_;
  std::string head_;  // "INSERT INTO <schema>.events (...) VALUES"
  EventIdAllocator& ids_;
  std::map<std::size_t, std::string> prepared_;  // batch size -> statement name
  std::string read_sql_;
  std::vector<std::int64_t> stream_ids_;  // reserved for new streams (pipeline), used from the back
};

}  // namespace perflab::iolist
