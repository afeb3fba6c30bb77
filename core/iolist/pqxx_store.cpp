#include "iolist/pqxx_store.h"

#include <algorithm>
#include <chrono>

#include <pqxx/pqxx>

#include "common/run.h"
#include "iolist/builders.h"
#include "targets/pg_conninfo.h"
#include "targets/pg_text.h"
#include "targets/socket_watchdog.h"

namespace perflab::iolist {

struct PqxxEventStore::Impl {
  Impl(const std::string& conninfo, const PgLimits& l, std::string s, EventIdAllocator& i,
       std::stop_token stop)
      : limits(l),
        target(redact_conninfo(conninfo)),
        conn(pg_bounded_conninfo(conninfo, l)),  // starts connecting, does not wait
        watchdog(std::move(stop)),
        schema(std::move(s)),
        ids(i) {
    const std::string q = pg_quote_ident(schema);
    events_table = q + ".events";
    streams_table = q + ".streams";
    head = insert_head(events_table);
    // Completes the connection under the watchdog: a stop ends it within kStopGrace, the
    // connect_timeout bounds it (libpq leaves that bound to the caller of an asynchronous
    // connect). libpqxx completes a connection on its first use (activate() is deprecated in
    // 6.4): a statement of no consequence here, so that no append pays for the connect.
    const std::chrono::seconds connect_limit(
        pg_connect_timeout_s(pg_bounded_conninfo(conninfo, l), std::max(1, l.connect_timeout_s)));
    guarded([&] { pqxx::nontransaction(conn).exec1("SELECT 1"); }, connect_limit, "connecting");
  }

  // Runs f (libpqxx calls) within `limit` (by default the reply timeout); a broken connection
  // the watchdog caused becomes a PgError that says so (stopped while `doing`, or timed out).
  template <class F>
  auto guarded(F&& f, std::chrono::milliseconds limit = {},
               const char* doing = "waiting for the server") -> decltype(f()) {
    if (limit <= std::chrono::milliseconds::zero()) limit = limits.reply_timeout();
    try {
      SocketWatchdog::Guard g(watchdog, conn.sock(), limit);
      return f();
    } catch (const pqxx::broken_connection& e) {
      switch (watchdog.tripped()) {
        case SocketWatchdog::Trip::Stopped:
          throw PgError("PostgreSQL at " + target + " (libpqxx): stopped while " + doing);
        case SocketWatchdog::Trip::TimedOut:
          throw PgError("PostgreSQL at " + target + " (libpqxx): no answer within " +
                        std::to_string(limit.count() / 1000) +
                        " s (timeout: the server is frozen, overloaded or unreachable); the "
                        "connection was closed");
        case SocketWatchdog::Trip::None:
          break;
      }
      throw PgError("PostgreSQL at " + target + " (libpqxx): " + e.what());
    } catch (const pqxx::sql_error& e) {
      throw PgError("PostgreSQL at " + target + " (libpqxx): " + e.what(), e.sqlstate());
    }
  }

  PgLimits limits;
  std::string target;
  // libpqxx 6.4's asynchronous connection: it starts connecting on construction and completes
  // on first use, so that completion can be bounded and stopped like every other wait.
  pqxx::asyncconnection conn;
  SocketWatchdog watchdog;
  std::string schema, events_table, streams_table, head;
  EventIdAllocator& ids;
  std::map<std::size_t, std::string> prepared;  // batch size -> statement name
};

bool PqxxEventStore::supports(Builder b) {
  return b == Builder::Interpolate || b == Builder::IoList || b == Builder::Prepared;
}

PqxxEventStore::PqxxEventStore(const std::string& conninfo, const PgLimits& limits,
                               std::string schema, EventIdAllocator& ids, std::stop_token stop) {
  try {
    impl_ = std::make_unique<Impl>(conninfo, limits, std::move(schema), ids, std::move(stop));
  } catch (const pqxx::failure& e) {
    throw PgError("PostgreSQL at " + redact_conninfo(conninfo) + " (libpqxx): " + e.what());
  }
}

PqxxEventStore::~PqxxEventStore() = default;

AppendResult PqxxEventStore::append_to_stream(const std::string& stream_uuid,
                                              std::int64_t expected_version,
                                              const std::vector<EventData>& events,
                                              Builder builder) {
  if (!supports(builder))
    throw std::invalid_argument(std::string("append_to_stream (libpqxx): builder ") +
                                to_string(builder) + " is not available through libpqxx");
  if (events.empty() || events.size() > kMaxEventsPerStatement)
    throw std::invalid_argument("append_to_stream (libpqxx): 1 to " +
                                std::to_string(kMaxEventsPerStatement) + " events per statement");
  Impl& m = *impl_;
  return m.guarded([&] {
    AppendResult res;
    res.created_at_us = unix_us_now();
    const std::string created_at = pg_timestamp_text(res.created_at_us);
    pqxx::work tx(m.conn);  // BEGIN
    // The expected-version check, as EventStore does it.
    if (expected_version == 0) {
      try {
        res.stream_id = tx.exec_params1("INSERT INTO " + m.streams_table +
                                            " (stream_uuid) VALUES ($1) RETURNING stream_id",
                                        stream_uuid)[0]
                            .as<std::int64_t>();
      } catch (const pqxx::unique_violation&) {
        throw WrongExpectedVersion("stream " + stream_uuid +
                                   " already exists (expected version 0)");
      }
    } else {
      const pqxx::result r = tx.exec_params(
          "SELECT stream_id FROM " + m.streams_table + " WHERE stream_uuid = $1 FOR UPDATE",
          stream_uuid);
      if (r.empty())
        throw WrongExpectedVersion("stream " + stream_uuid + " does not exist (expected version " +
                                   std::to_string(expected_version) + ")");
      res.stream_id = r[0][0].as<std::int64_t>();
      const auto current = tx.exec_params1("SELECT coalesce(max(stream_version), 0) FROM " +
                                               m.events_table + " WHERE stream_id = $1",
                                           res.stream_id)[0]
                               .as<std::int64_t>();
      if (current != expected_version)
        throw WrongExpectedVersion("stream " + stream_uuid + " is at version " +
                                   std::to_string(current) + ", expected " +
                                   std::to_string(expected_version));
    }
    res.first_version = expected_version + 1;
    // The rows as libpqxx takes them: text values (nullptr is NULL), bytea as \x hex text.
    const std::size_t n = events.size();
    const std::int64_t first_id = m.ids.take(static_cast<std::int64_t>(n));
    std::vector<std::string> texts;  // numbers and hex, owned here
    texts.reserve(n * 4 + 1);
    std::vector<const char*> values;
    values.reserve(n * kParamsPerEvent);
    texts.push_back(std::to_string(res.stream_id));
    const char* sid = texts.back().c_str();
    auto hex = [&](const std::string& bytes) {
      std::string h = "\\x";
      pg_append_hex(h, bytes);
      texts.push_back(std::move(h));
      return texts.back().c_str();
    };
    for (std::size_t i = 0; i < n; ++i) {
      const auto& e = events[i];
      texts.push_back(std::to_string(first_id + static_cast<std::int64_t>(i)));
      values.push_back(texts.back().c_str());
      values.push_back(sid);
      texts.push_back(std::to_string(res.first_version + static_cast<std::int64_t>(i)));
      values.push_back(texts.back().c_str());
      values.push_back(e.correlation_id ? e.correlation_id->c_str() : nullptr);
      values.push_back(e.event_type.c_str());
      values.push_back(hex(e.data));
      values.push_back(hex(e.metadata));
      values.push_back(created_at.c_str());
    }
    const auto params = pqxx::prepare::make_dynamic_params(values);
    if (builder == Builder::Prepared) {
      auto it = m.prepared.find(n);
      if (it == m.prepared.end()) {
        const std::string name = "perflab_append_" + std::to_string(n);
        m.conn.prepare(name, build_iolist(m.head, n).flatten());
        it = m.prepared.emplace(n, name).first;
      }
      tx.exec_prepared(it->second, params);
    } else {
      const std::string sql = builder == Builder::Interpolate ? build_interpolate(m.head, n)
                                                              : build_iolist(m.head, n).flatten();
      tx.exec_params(sql, params);
    }
    tx.commit();
    return res;
  });
}

}  // namespace perflab::iolist
