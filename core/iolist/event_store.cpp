#include "iolist/event_store.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "common/clock.h"
#include "common/run.h"
#include "iolist/builders.h"
#include "targets/ownership.h"
#include "targets/pg_text.h"
#include "targets/pg_transaction.h"

namespace perflab::iolist {

const char* to_string(Builder b) {
  switch (b) {
    case Builder::Interpolate:
      return "interpolate";
    case Builder::IoList:
      return "iolist";
    case Builder::Prepared:
      return "prepared";
    case Builder::Unnest:
      return "unnest";
    case Builder::Copy:
      return "copy";
  }
  return "?";
}

std::vector<std::string> builder_names() {
  return {"interpolate", "iolist", "prepared", "unnest", "copy"};
}

Builder builder_from_string(const std::string& s) {
  for (Builder b :
       {Builder::Interpolate, Builder::IoList, Builder::Prepared, Builder::Unnest, Builder::Copy})
    if (s == to_string(b)) return b;
  throw std::invalid_argument("unknown builder '" + s + "'");
}

const char* to_string(Transport t) {
  switch (t) {
    case Transport::RoundTrips:
      return "round_trips";
    case Transport::Pipeline:
      return "pipeline";
  }
  return "?";
}

std::vector<std::string> transport_names() {
  return {"round_trips", "pipeline"};
}

Transport transport_from_string(const std::string& s) {
  for (Transport t : {Transport::RoundTrips, Transport::Pipeline})
    if (s == to_string(t)) return t;
  throw std::invalid_argument("unknown transport '" + s + "'");
}

const char* to_string(Phase p) {
  switch (p) {
    case Phase::Begin:
      return "BEGIN";
    case Phase::Check:
      return "check";
    case Phase::Build:
      return "build";
    case Phase::Insert:
      return "INSERT";
    case Phase::Commit:
      return "COMMIT";
    case Phase::Flight:
      return "one flight";
  }
  return "?";
}

void reset_schema(PgConnection& conn, const std::string& schema) {
  const std::string s = pg_quote_ident(schema);
  pg_reset_own_schema(conn, schema);  // refuses a schema Perflab did not create
  conn.exec("CREATE TABLE " + s +
            ".streams (stream_id bigserial PRIMARY KEY, stream_uuid text NOT NULL UNIQUE, "
            "created_at timestamp NOT NULL DEFAULT (now() at time zone 'utc'))");
  conn.exec("CREATE TABLE " + s +
            ".events (event_id bigint PRIMARY KEY, stream_id bigint NOT NULL REFERENCES " + s +
            ".streams (stream_id), stream_version bigint NOT NULL, event_type text NOT NULL, "
            "correlation_id text, data bytea NOT NULL, metadata bytea, "
            "created_at timestamp NOT NULL DEFAULT (now() at time zone 'utc'))");
  conn.exec("CREATE UNIQUE INDEX ix_events_stream_id_stream_version ON " + s +
            ".events (stream_id, stream_version DESC)");
}

std::int64_t EventIdAllocator::last_used(PgConnection& conn, const std::string& schema) {
  auto r =
      conn.exec("SELECT coalesce(max(event_id), 0) FROM " + pg_quote_ident(schema) + ".events");
  return std::stoll(std::string(r.value(0, 0)));
}

EventStore::EventStore(PgConnection& conn, std::string schema, EventIdAllocator& ids)
    : conn_(conn), schema_(std::move(schema)), ids_(ids) {
  const std::string s = pg_quote_ident(schema_);
  events_table_ = s + ".events";
  streams_table_ = s + ".streams";
  head_ = insert_head(events_table_);
  read_sql_ =
      "SELECT e.event_id, e.stream_id, e.stream_version, e.event_type, e.correlation_id, e.data, "
      "e.metadata, floor(extract(epoch from e.created_at) * 1000000)::bigint FROM " +
      events_table_ + " e JOIN " + streams_table_ +
      " s ON s.stream_id = e.stream_id WHERE s.stream_uuid = $1 AND e.stream_version >= $2 "
      "ORDER BY e.stream_version LIMIT $3";
  conn_.exec("SET bytea_output = 'hex'");
}

namespace {

std::string unnest_sql(const std::string& events_table) {
  return "INSERT INTO " + events_table + " " + std::string(kEventColumns) +
         " SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], "
         "$5::text[], $6::bytea[], $7::bytea[], $8::timestamp[])";
}

// Numbers as NUL-terminated text in one buffer sized up front (stable addresses).
class NumberArena {
 public:
  explicit NumberArena(std::size_t count) : buf_(count * 21) {}
  const char* put(std::int64_t v) {
    char* begin = buf_.data() + used_;
    auto [end, ec] = std::to_chars(begin, buf_.data() + buf_.size() - 1, v);
    (void)ec;
    *end = '\0';
    used_ += static_cast<std::size_t>(end - begin) + 1;
    return begin;
  }
  std::vector<char> release() { return std::move(buf_); }

 private:
  std::vector<char> buf_;
  std::size_t used_ = 0;
};

// An element of a PostgreSQL array literal, double-quoted.
void append_array_text(std::string& out, std::string_view v) {
  out.push_back('"');
  for (char c : v) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
}

std::int64_t to_i64(std::string_view s) {
  std::int64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

}  // namespace

std::string EventStore::statement_text(Builder builder, std::size_t n) const {
  switch (builder) {
    case Builder::Interpolate:
      return build_interpolate(head_, n);
    case Builder::IoList:
    case Builder::Prepared:
      return build_iolist(head_, n).flatten();
    case Builder::Unnest:
      return unnest_sql(events_table_);
    case Builder::Copy:
      return {};
  }
  return {};
}

VersionCheck::VersionCheck(const EventStore& store, const std::string& stream_uuid,
                           std::int64_t expected_version)
    : store_(store), uuid_(stream_uuid), expected_(expected_version) {
  params_.add_text(uuid_.c_str());
  if (expected_ == 0) {
    // A new stream: the unique stream_uuid makes a concurrent creator fail.
    step_ = Step::Create;
    sql_ =
        "INSERT INTO " + store_.streams_table() + " (stream_uuid) VALUES ($1) RETURNING stream_id";
  } else {
    step_ = Step::Lock;
    sql_ = "SELECT stream_id FROM " + store_.streams_table() + " WHERE stream_uuid = $1 FOR UPDATE";
  }
}

void VersionCheck::take(const PgResult& r) {
  switch (step_) {
    case Step::Create:
      stream_id_ = to_i64(r.value(0, 0));
      step_ = Step::Done;
      return;
    case Step::Lock:
      if (r.rows() == 0)
        throw WrongExpectedVersion("stream " + uuid_ + " does not exist (expected version " +
                                   std::to_string(expected_) + ")");
      stream_id_ = to_i64(r.value(0, 0));
      sid_ = std::to_string(stream_id_);
      params_.clear();
      params_.add_text(sid_.c_str());
      sql_ = "SELECT coalesce(max(stream_version), 0) FROM " + store_.events_table() +
             " WHERE stream_id = $1";
      step_ = Step::Version;
      return;
    case Step::Version: {
      const std::int64_t current = to_i64(r.value(0, 0));
      if (current != expected_)
        throw WrongExpectedVersion("stream " + uuid_ + " is at version " + std::to_string(current) +
                                   ", expected " + std::to_string(expected_));
      step_ = Step::Done;
      return;
    }
    case Step::Done:
      break;
  }
  throw std::logic_error("VersionCheck::take after the check was done");
}

void VersionCheck::fail(const PgError& e) const {
  if (step_ == Step::Create && e.sqlstate() == "23505")
    throw WrongExpectedVersion("stream " + uuid_ + " already exists (expected version 0)");
  throw e;
}

// One strategy per builder; the switch has a case for every Builder and no default, so a
// builder added without its strategy does not compile (-Wswitch), and a value outside the enum
// is an error, never an append that inserts nothing.
EventStore::BuiltInsert EventStore::build_insert(Builder builder, const NewRows& rows) {
  BuiltInsert out;
  out.builder = builder;
  switch (builder) {
    case Builder::Copy:
      build_copy(out, rows);
      return out;
    case Builder::Unnest:
      build_unnest(out, rows);
      return out;
    case Builder::Interpolate:
    case Builder::IoList:
    case Builder::Prepared:
      build_bound(out, rows);
      return out;
  }
  throw std::invalid_argument("append_to_stream: unknown statement builder " +
                              std::to_string(static_cast<int>(builder)));
}

// COPY ... FROM STDIN with the rows in COPY's text format.
void EventStore::build_copy(BuiltInsert& out, const NewRows& rows) {
  out.sql = "COPY " + events_table_ + " " + std::string(kEventColumns) + " FROM STDIN";
  std::string& payload = out.copy_payload;
  payload.reserve(rows.events.size() * 256);
  for (std::size_t i = 0; i < rows.events.size(); ++i) {
    const auto& e = rows.events[i];
    payload += std::to_string(rows.first_event_id + static_cast<std::int64_t>(i));
    payload += '\t';
    payload += std::to_string(rows.stream_id);
    payload += '\t';
    payload += std::to_string(rows.first_version + static_cast<std::int64_t>(i));
    payload += '\t';
    if (e.correlation_id)
      pg_append_copy_text(payload, *e.correlation_id);
    else
      payload += "\\N";
    payload += '\t';
    pg_append_copy_text(payload, e.event_type);
    payload += '\t';
    pg_append_copy_bytea(payload, e.data);
    payload += '\t';
    pg_append_copy_bytea(payload, e.metadata);
    payload += '\t';
    payload += rows.created_at;
    payload += '\n';
  }
}

// INSERT ... SELECT * FROM unnest($1..$8): one array literal per column.
void EventStore::build_unnest(BuiltInsert& out, const NewRows& rows) {
  out.sql = unnest_sql(events_table_);
  out.arrays.assign(kParamsPerEvent, "{");
  std::vector<std::string>& a = out.arrays;
  std::string &ids = a[0], &sids = a[1], &versions = a[2], &corr = a[3], &types = a[4],
              &data = a[5], &meta = a[6], &times = a[7];
  for (std::size_t i = 0; i < rows.events.size(); ++i) {
    const auto& e = rows.events[i];
    const char* sep = i ? "," : "";
    ids += sep;
    ids += std::to_string(rows.first_event_id + static_cast<std::int64_t>(i));
    sids += sep;
    sids += std::to_string(rows.stream_id);
    versions += sep;
    versions += std::to_string(rows.first_version + static_cast<std::int64_t>(i));
    corr += sep;
    if (e.correlation_id)
      append_array_text(corr, *e.correlation_id);
    else
      corr += "NULL";
    types += sep;
    append_array_text(types, e.event_type);
    data += sep;
    data += "\"\\\\x";
    pg_append_hex(data, e.data);
    data += '"';
    meta += sep;
    meta += "\"\\\\x";
    pg_append_hex(meta, e.metadata);
    meta += '"';
    times += sep;
    append_array_text(times, rows.created_at);
  }
  for (auto& a : out.arrays) {
    a += '}';
    out.params.add_text(a.c_str());
  }
}

// interpolate, iolist, prepared: the same 8 parameters per event; only the statement text (and
// for prepared, the protocol) differs.
void EventStore::build_bound(BuiltInsert& out, const NewRows& rows) {
  const std::size_t n = rows.events.size();
  NumberArena numbers(3 * n);  // the parameters point into it
  PgParams& p = out.params;
  p.values.reserve(n * kParamsPerEvent);
  p.lengths.reserve(n * kParamsPerEvent);
  p.formats.reserve(n * kParamsPerEvent);
  const char* sid = numbers.put(rows.stream_id);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& e = rows.events[i];
    p.add_text(numbers.put(rows.first_event_id + static_cast<std::int64_t>(i)));
    p.add_text(sid);
    p.add_text(numbers.put(rows.first_version + static_cast<std::int64_t>(i)));
    p.add_text(e.correlation_id ? e.correlation_id->c_str() : nullptr);
    p.add_text(e.event_type.c_str());
    p.add_binary(e.data.data(), static_cast<int>(e.data.size()));
    p.add_binary(e.metadata.data(), static_cast<int>(e.metadata.size()));
    p.add_text(rows.created_at.c_str());
  }
  out.numbers = numbers.release();
  if (out.builder == Builder::Prepared) {
    auto it = prepared_.find(n);
    if (it == prepared_.end()) {  // once per batch size and connection
      const std::string name = "perflab_append_" + std::to_string(n);
      conn_.prepare(name, build_iolist(head_, n).flatten(), static_cast<int>(n * kParamsPerEvent));
      it = prepared_.emplace(n, name).first;
    }
    out.prepared = &it->second;
    return;
  }
  out.sql = statement_text(out.builder, n);
}

void EventStore::send_insert(const BuiltInsert& ins) {
  if (ins.builder == Builder::Copy) {
    conn_.copy_in(ins.sql, ins.copy_payload);
  } else if (ins.prepared) {
    conn_.exec_prepared(*ins.prepared, ins.params);
  } else {
    conn_.exec_params(ins.sql.c_str(), ins.params);
  }
}

namespace {

// Times the phases of one append into an AppendTiming (nothing when it is null).
class PhaseClock {
 public:
  explicit PhaseClock(AppendTiming* t) : t_(t) {
    if (t_) *t_ = {};
  }
  void lap(Phase p) {
    if (!t_) return;
    const auto i = static_cast<std::size_t>(p);
    t_->wall_ns[i] += sw_.wall_elapsed_ns();
    t_->cpu_ns[i] += sw_.cpu_elapsed_ns();
    sw_.restart();
  }

 private:
  AppendTiming* t_;
  Stopwatch sw_;
};

}  // namespace

std::string append_begin_sql(const AppendOptions& o) {
  return o.synchronous_commit ? "BEGIN" : "BEGIN; SET LOCAL synchronous_commit = off";
}

void check_append_size(const std::vector<EventData>& events, Builder builder) {
  if (events.empty()) throw std::invalid_argument("append_to_stream: no events");
  if (events.size() > kMaxEventsPerStatement && builder != Builder::Copy &&
      builder != Builder::Unnest)
    throw std::invalid_argument("append_to_stream: " + std::to_string(events.size()) +
                                " events need more than 65,535 bind parameters (at most " +
                                std::to_string(kMaxEventsPerStatement) + " per statement)");
}

EventStore::BuiltInsert EventStore::build_append_insert(std::int64_t stream_id,
                                                        std::int64_t first_version,
                                                        const std::string& created_at,
                                                        const std::vector<EventData>& events,
                                                        Builder builder) {
  const std::int64_t first_id = ids_.take(static_cast<std::int64_t>(events.size()));
  return build_insert(builder, {stream_id, first_version, first_id, created_at, events});
}

std::int64_t AppendTiming::total_wall() const {
  std::int64_t sum = 0;
  for (auto w : wall_ns) sum += w;
  return sum;
}

AppendResult EventStore::append_to_stream(const std::string& stream_uuid,
                                          std::int64_t expected_version,
                                          const std::vector<EventData>& events, Builder builder) {
  return append_to_stream(stream_uuid, expected_version, events, AppendOptions{builder});
}

AppendResult EventStore::append_to_stream(const std::string& stream_uuid,
                                          std::int64_t expected_version,
                                          const std::vector<EventData>& events,
                                          const AppendOptions& options, AppendTiming* timing) {
  check_append_size(events, options.builder);
  if (options.transport == Transport::Pipeline)
    return append_pipelined(stream_uuid, expected_version, events, options, timing);
  PhaseClock clock(timing);
  AppendResult res;
  res.created_at_us = unix_us_now();
  const std::string created_at = pg_timestamp_text(res.created_at_us);
  PgTransaction tx(conn_, append_begin_sql(options));
  clock.lap(Phase::Begin);
  VersionCheck check(*this, stream_uuid, expected_version);
  while (!check.done()) {
    try {
      check.take(conn_.exec_params(check.sql(), check.params()));
    } catch (const PgError& e) {
      check.fail(e);
    }
  }
  res.stream_id = check.stream_id();
  res.first_version = expected_version + 1;
  clock.lap(Phase::Check);
  const BuiltInsert ins =
      build_append_insert(res.stream_id, res.first_version, created_at, events, options.builder);
  clock.lap(Phase::Build);
  send_insert(ins);
  clock.lap(Phase::Insert);
  tx.commit();
  clock.lap(Phase::Commit);
  return res;
}

void EventStore::reserve_stream_ids(std::size_t count) {
  if (stream_ids_.size() >= count) return;
  const std::string want = std::to_string(count - stream_ids_.size());
  const std::string seq = pg_quote_ident(schema_) + ".streams_stream_id_seq";
  PgParams p;
  p.add_text(seq.c_str());
  p.add_text(want.c_str());
  auto r = conn_.exec_params("SELECT nextval($1::regclass) FROM generate_series(1, $2::int)", p);
  std::vector<std::int64_t> got;
  for (int i = 0; i < r.rows(); ++i) got.push_back(to_i64(r.value(i, 0)));
  // Used from the back: keep the ones taken first for first use.
  stream_ids_.insert(stream_ids_.begin(), got.rbegin(), got.rend());
}

std::int64_t EventStore::take_stream_id() {
  if (stream_ids_.empty()) reserve_stream_ids(64);
  const std::int64_t id = stream_ids_.back();
  stream_ids_.pop_back();
  return id;
}

// BEGIN, the expected-version check and the INSERT and COMMIT in one flight. The check cannot
// return the stream's id to the client in the middle of a flight, so the id is known before:
// a new stream takes one reserved from the sequence; an existing one is looked up first (one
// round trip more: the benchmark appends to new streams only). A wrong version must fail on the
// server, inside the flight, so that COMMIT (skipped after an error) writes nothing: the check
// divides by zero when the stream's version is not the expected one.
AppendResult EventStore::append_pipelined(const std::string& stream_uuid,
                                          std::int64_t expected_version,
                                          const std::vector<EventData>& events,
                                          const AppendOptions& options, AppendTiming* timing) {
  PhaseClock clock(timing);
  AppendResult res;
  res.first_version = expected_version + 1;
  PgParams check;
  std::string sid_text, version_text;
  std::string check_sql;
  if (expected_version == 0) {
    res.stream_id = take_stream_id();
    check_sql = "INSERT INTO " + streams_table_ + " (stream_id, stream_uuid) VALUES ($1, $2)";
  } else {
    PgParams q;
    q.add_text(stream_uuid.c_str());
    auto r = conn_.exec_params(
        ("SELECT stream_id FROM " + streams_table_ + " WHERE stream_uuid = $1").c_str(), q);
    if (r.rows() == 0)
      throw WrongExpectedVersion("stream " + stream_uuid + " does not exist (expected version " +
                                 std::to_string(expected_version) + ")");
    res.stream_id = to_i64(r.value(0, 0));
    check_sql = "SELECT 1 / (CASE WHEN (SELECT coalesce(max(stream_version), 0) FROM " +
                events_table_ + " WHERE stream_id = $1) = $2 THEN 1 ELSE 0 END) FROM " +
                streams_table_ + " WHERE stream_id = $1 FOR UPDATE";
  }
  clock.lap(Phase::Check);  // the lookup of an existing stream, when there is one
  res.created_at_us = unix_us_now();
  const std::string created_at = pg_timestamp_text(res.created_at_us);
  sid_text = std::to_string(res.stream_id);
  check.add_text(sid_text.c_str());
  if (expected_version == 0) {
    check.add_text(stream_uuid.c_str());
  } else {
    version_text = std::to_string(expected_version);
    check.add_text(version_text.c_str());
  }
  const std::int64_t first_id = ids_.take(static_cast<std::int64_t>(events.size()));
  const BuiltInsert ins = build_insert(
      options.builder, {res.stream_id, res.first_version, first_id, created_at, events});
  clock.lap(Phase::Build);
  std::vector<PgStatement> flight{{"BEGIN"}};
  if (!options.synchronous_commit) flight.push_back({"SET LOCAL synchronous_commit = off"});
  flight.push_back({check_sql.c_str(), nullptr, &check});
  const bool copy = ins.builder == Builder::Copy;  // libpq allows no COPY in a pipeline
  if (!copy) {
    flight.push_back({ins.prepared ? nullptr : ins.sql.c_str(), ins.prepared, &ins.params});
    flight.push_back({"COMMIT"});
  }
  try {
    conn_.pipeline(flight);
    if (copy) {
      conn_.copy_in(ins.sql, ins.copy_payload);
      conn_.exec("COMMIT");
    }
  } catch (const PgError& e) {
    if (conn_.in_transaction()) {
      try {
        conn_.exec("ROLLBACK");
      } catch (...) {  // a dead connection has nothing left to roll back
      }
    }
    if (e.sqlstate() == "23505" && expected_version == 0)
      throw WrongExpectedVersion("stream " + stream_uuid + " already exists (expected version 0)");
    if (e.sqlstate() == "22012")
      throw WrongExpectedVersion("stream " + stream_uuid + " is not at version " +
                                 std::to_string(expected_version));
    throw;
  }
  clock.lap(Phase::Flight);
  return res;
}

StreamRead::StreamRead(const std::string& stream_uuid, std::int64_t start_version, int count)
    : uuid_(stream_uuid), start_(std::to_string(start_version)), limit_(std::to_string(count)) {
  params_.add_text(uuid_.c_str());
  params_.add_text(start_.c_str());
  params_.add_text(limit_.c_str());
}

std::vector<RecordedEvent> decode_events(const PgResult& r) {
  std::vector<RecordedEvent> out;
  out.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    RecordedEvent e;
    e.event_id = to_i64(r.value(i, 0));
    e.stream_id = to_i64(r.value(i, 1));
    e.stream_version = to_i64(r.value(i, 2));
    e.event_type = std::string(r.value(i, 3));
    if (!r.is_null(i, 4)) e.correlation_id = std::string(r.value(i, 4));
    e.data = pg_decode_bytea_hex(r.value(i, 5));
    if (!r.is_null(i, 6)) e.metadata = pg_decode_bytea_hex(r.value(i, 6));
    e.created_at_us = to_i64(r.value(i, 7));
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<RecordedEvent> EventStore::read_stream_forward(const std::string& stream_uuid,
                                                           std::int64_t start_version, int count) {
  const StreamRead read(stream_uuid, start_version, count);
  return decode_events(conn_.exec_params(read_sql(), read.params()));
}

}  // namespace perflab::iolist
