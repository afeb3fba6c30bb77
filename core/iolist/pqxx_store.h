#pragma once
// The event store's append through libpqxx 6.4, the PostgreSQL C++ library, in its own idioms:
// pqxx::connection, pqxx::work (BEGIN … COMMIT), exec_params and prepared statements with
// pqxx::prepare::make_dynamic_params. The same statements and rows as EventStore (libpq), so
// the two can be measured side by side: libpqxx converts every parameter to a std::string of
// its own (its dynamic parameters are text; a bytea goes as \x hex text), libpq takes the
// builder's pointers as they are (data and metadata in binary).
//
// Bounds: libpqxx waits inside libpq's blocking calls, so the session's statement_timeout,
// keepalives and tcp_user_timeout come with the conninfo (pg_bounded_conninfo) and a
// SocketWatchdog ends an operation that overruns PgLimits::reply_timeout() — or, after a stop,
// kStopGrace — by shutting the socket down: libpqxx then throws broken_connection, reported as a
// PgError that says which. Connecting is asynchronous (pqxx::asyncconnection) and completed under
// the same watchdog: bounded by connect_timeout, ended by a stop within kStopGrace.
#include <map>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "iolist/event_store.h"
#include "targets/postgres.h"

namespace perflab::iolist {

class PqxxEventStore {
 public:
  // The builders this path has: interpolate, iolist and prepared (the ones that bind 8
  // parameters per event).
  static bool supports(Builder b);

  PqxxEventStore(const std::string& conninfo, const PgLimits& limits, std::string schema,
                 EventIdAllocator& ids, std::stop_token stop = {});
  ~PqxxEventStore();

  // As EventStore::append_to_stream with the round-trip transport: expected-version check and
  // multi-row INSERT in one transaction. Throws WrongExpectedVersion, PgError,
  // std::invalid_argument (a builder it does not support, too many events).
  AppendResult append_to_stream(const std::string& stream_uuid, std::int64_t expected_version,
                                const std::vector<EventData>& events, Builder builder);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perflab::iolist
