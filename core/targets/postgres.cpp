// A PostgreSQL connection and its results over libpq, every wait bounded and every stop heard
// (targets/postgres.h).
#include "targets/postgres.h"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <type_traits>
#include <utility>

#include "targets/io_wait.h"
#include "targets/pg_conninfo.h"
#include "targets/worker_thread.h"

namespace perflab {
namespace {

// libpq messages end in newlines and continue on tab-indented lines; one line reads better.
std::string one_line(const char* msg) {
  std::string out;
  bool space = false;
  for (const char* p = msg ? msg : ""; *p; ++p) {
    char ch = *p;
    if (ch == '\n' || ch == '\t' || ch == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += ch;
  }
  return out.empty() ? std::string("unknown error") : out;
}

// Notices (e.g. "schema already exists, skipping") are expected; they must not spam stderr.
void drop_notice(void*, const char*) {}

}  // namespace

// ---- PgResult ----

// Moved as their handles are: the moved-from one is empty (a result) or closed (a connection).
static_assert(std::is_nothrow_move_constructible_v<PgResult> &&
              std::is_nothrow_move_assignable_v<PgResult>);
static_assert(std::is_nothrow_move_constructible_v<PgConnection> &&
              std::is_nothrow_move_assignable_v<PgConnection>);

void PgResultClear::operator()(pg_result* r) const {
  PQclear(r);
}

PgResult::PgResult(pg_result* r) : r_(r) {}
int PgResult::rows() const {
  return r_ ? PQntuples(r_.get()) : 0;
}
int PgResult::columns() const {
  return r_ ? PQnfields(r_.get()) : 0;
}
bool PgResult::is_null(int row, int col) const {
  return !r_ || PQgetisnull(r_.get(), row, col);
}
std::string_view PgResult::value(int row, int col) const {
  if (!r_ || row < 0 || col < 0 || row >= rows() || col >= columns()) return {};
  return {PQgetvalue(r_.get(), row, col),
          static_cast<std::size_t>(PQgetlength(r_.get(), row, col))};
}
std::string_view PgResult::column_name(int col) const {
  if (!r_ || col < 0 || col >= columns()) return {};
  return PQfname(r_.get(), col);
}
std::int64_t PgResult::affected() const {
  if (!r_) return 0;
  const char* t = PQcmdTuples(r_.get());
  return (t && *t) ? std::strtoll(t, nullptr, 10) : 0;
}

// ---- PgConnection ----

void PgConnFinish::operator()(pg_conn* c) const {
  PQfinish(c);
}

namespace {

std::string target_name(const std::string& redacted) {
  return redacted.empty() ? std::string("(libpq defaults)") : redacted;
}

std::string seconds_text(std::chrono::milliseconds ms) {
  const auto c = ms.count();
  return c % 1000 == 0 ? std::to_string(c / 1000) + " s" : std::to_string(c) + " ms";
}

// Cancel requests go out from one long-lived thread: PQcancel waits for the server to close the
// cancel connection, which a frozen server never does, and the thread that asked must not wait.
// Requests queue up behind a blocked one; they are few and small (one per connection and stop).
void send_cancel(PGcancel* cancel) {
  static WorkerThread& canceller = WorkerThread::start();
  canceller.post([cancel] {
    char err[256];
    PQcancel(cancel, err, sizeof err);  // best effort: the connection is closed anyway
    PQfreeCancel(cancel);
  });
}

}  // namespace

PgConnection::PgConnection(const std::string& conninfo, int connect_timeout_s)
    : PgConnection(conninfo, PgLimits{connect_timeout_s}) {}

PgConnection::PgConnection(const std::string& conninfo, const PgLimits& limits,
                           std::stop_token stop)
    : target_(target_name(redact_conninfo(conninfo))), limits_(limits), stop_(std::move(stop)) {
  if (limits_.statement_timeout < std::chrono::seconds(1))
    throw std::invalid_argument("the PostgreSQL statement timeout must be at least 1 s");
  // Array entries before an expanded dbname are overridden by the connection string's own
  // fields, so these apply only when the conninfo (key=value or URI) has none. Keepalives and
  // tcp_user_timeout notice a peer that vanished; a frozen one only the client's waits notice.
  const std::string timeout = std::to_string(std::max(1, limits_.connect_timeout_s));
  const std::string user_timeout = std::to_string(limits_.reply_timeout().count());
  const char* keys[] = {
      "connect_timeout",  "keepalives",       "keepalives_idle", "keepalives_interval",
      "keepalives_count", "tcp_user_timeout", "dbname",          nullptr};
  const char* values[] = {timeout.c_str(),  "1",    "10", "5", "3", user_timeout.c_str(),
                          conninfo.c_str(), nullptr};
  conn_.reset(PQconnectStartParams(keys, values, 1));
  if (!conn_) throw PgError("PostgreSQL at " + target_ + ": out of memory");
  const int limit_s = pg_connect_timeout_s(conn_.get(), std::max(1, limits_.connect_timeout_s));
  IoDeadline io(std::chrono::seconds(limit_s), stop_);
  PostgresPollingStatusType st =
      PQstatus(conn_.get()) == CONNECTION_BAD ? PGRES_POLLING_FAILED : PGRES_POLLING_WRITING;
  while (st != PGRES_POLLING_OK) {
    if (st == PGRES_POLLING_FAILED) {
      throw PgError("PostgreSQL at " + target_ + ": " + one_line(PQerrorMessage(conn_.get())));
    }
    if (io.wait(PQsocket(conn_.get()), st == PGRES_POLLING_READING ? POLLIN : POLLOUT) == 0)
      throw PgError("PostgreSQL at " + target_ + ": " +
                    (io.stopped()
                         ? std::string("stopped while connecting")
                         : "no connection within " + std::to_string(limit_s) + " s (timeout)"));
    st = PQconnectPoll(conn_.get());
  }
  PQsetNoticeProcessor(conn_.get(), drop_notice, nullptr);
  if (PQsetnonblocking(conn_.get(), 1) != 0) fail_connection();
  const std::string st_ms = std::to_string(limits_.statement_timeout.count());
  const std::string lock_ms =
      std::to_string(std::min<std::int64_t>(limits_.statement_timeout.count(), 10000));
  exec("SET statement_timeout = " + st_ms + "; SET lock_timeout = " + lock_ms +
       "; SET idle_in_transaction_session_timeout = " + st_ms);
}

namespace {

bool succeeded(pg_result* r) {
  const ExecStatusType st = PQresultStatus(r);
  return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK || st == PGRES_EMPTY_QUERY;
}

// The failure a result reports, with its SQLSTATE.
PgError result_error(const pg_result* r, const std::string& target) {
  const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
  const char* msg = PQresultErrorMessage(r);
  std::string why = (msg && *msg) ? one_line(msg) : std::string(PQresStatus(PQresultStatus(r)));
  return PgError("PostgreSQL at " + target + ": " + why, state ? state : "");
}

// Takes ownership of r; throws PgError (with SQLSTATE) unless it is a success.
PgResult checked(pg_result* r, const std::string& target) {
  PgResult res(r);
  if (succeeded(r)) return res;
  throw result_error(r, target);
}

}  // namespace

IoDeadline PgConnection::begin() const {
  return IoDeadline(limits_.reply_timeout(), stop_);
}

void PgConnection::fail_connection() {
  std::string why = conn_ ? one_line(PQerrorMessage(conn_.get())) : std::string("not connected");
  if (conn_ && PQstatus(conn_.get()) == CONNECTION_BAD) conn_.reset();
  throw PgError("PostgreSQL at " + target_ + ": " + why);
}

void PgConnection::request_cancel() {
  if (!conn_) return;
  if (PGcancel* c = PQgetCancel(conn_.get())) send_cancel(c);
}

PgError PgConnection::error(const pg_result* r) const {
  if (r) return result_error(r, target_);
  return PgError("PostgreSQL at " + target_ + ": " +
                 (conn_ ? one_line(PQerrorMessage(conn_.get())) : std::string("not connected")));
}

void PgConnection::abandon() {
  request_cancel();
  conn_.reset();
}

void PgConnection::give_up(const IoDeadline& io) {
  if (!io.interrupted()) request_cancel();  // else it was sent when the stop came
  conn_.reset();
  throw PgError("PostgreSQL at " + target_ + ": " +
                (io.stopped() ? std::string("stopped while waiting for the server")
                              : "no answer within " + seconds_text(io.limit()) +
                                    " (timeout: the server is frozen, overloaded or "
                                    "unreachable); the connection was closed"));
}

void PgConnection::wait(IoDeadline& io, short events) {
  if (io.wait(PQsocket(conn_.get()), events) == 0) give_up(io);
}

void PgConnection::flush(IoDeadline& io) {
  for (;;) {
    const int r = PQflush(conn_.get());
    if (r == 0) return;
    if (r < 0) fail_connection();
    wait(io, POLLIN | POLLOUT);
    if (!PQconsumeInput(conn_.get())) fail_connection();  // reading while writing avoids a deadlock
  }
}

pg_result* PgConnection::next_result(IoDeadline& io) {
  while (PQisBusy(conn_.get())) {
    wait(io, POLLIN);
    if (!PQconsumeInput(conn_.get())) fail_connection();
  }
  return PQgetResult(conn_.get());
}

// After a PQsend*: the query's result (the first error, else the last result), or the
// COPY IN result when the server asks for data.
pg_result* PgConnection::await(IoDeadline& io, int sent) {
  if (!sent) fail_connection();
  io.on_stop = [this] { request_cancel(); };
  flush(io);
  std::unique_ptr<pg_result, PgResultClear> keep;
  while (pg_result* r = next_result(io)) {
    const ExecStatusType st = PQresultStatus(r);
    if (st == PGRES_COPY_IN || st == PGRES_COPY_OUT || st == PGRES_COPY_BOTH) return r;
    if (keep && PQresultStatus(keep.get()) == PGRES_FATAL_ERROR)
      PQclear(r);
    else
      keep.reset(r);
  }
  // A cancel request sent for this operation may still reach the server during the next one:
  // the connection is not used again (the result stays valid without it).
  if (io.interrupted()) conn_.reset();
  if (!keep) fail_connection();
  return keep.release();
}

PgResult PgConnection::finish(IoDeadline& io, int sent) {
  return checked(await(io, sent), target_);
}

PgResult PgConnection::exec(const std::string& sql) {
  if (!conn_) fail_connection();
  IoDeadline io = begin();
  return finish(io, PQsendQuery(conn_.get(), sql.c_str()));
}

PgResult PgConnection::exec_params(const char* sql, const PgParams& params) {
  if (!conn_) fail_connection();
  IoDeadline io = begin();
  int n = static_cast<int>(params.values.size());
  return finish(io, PQsendQueryParams(conn_.get(), sql, n, nullptr, params.values.data(),
                                      params.lengths.data(), params.formats.data(), 0));
}

void PgConnection::prepare(const std::string& name, const std::string& sql, int n_params) {
  if (!conn_) fail_connection();
  IoDeadline io = begin();
  finish(io, PQsendPrepare(conn_.get(), name.c_str(), sql.c_str(), n_params, nullptr));
}

PgResult PgConnection::exec_prepared(const std::string& name, const PgParams& params,
                                     bool binary_results) {
  if (!conn_) fail_connection();
  IoDeadline io = begin();
  int n = static_cast<int>(params.values.size());
  return finish(io, PQsendQueryPrepared(conn_.get(), name.c_str(), n, params.values.data(),
                                        params.lengths.data(), params.formats.data(),
                                        binary_results ? 1 : 0));
}

std::int64_t PgConnection::copy_in(const std::string& copy_sql, std::string_view payload) {
  if (!conn_) fail_connection();
  IoDeadline io = begin();
  pg_result* start = await(io, PQsendQuery(conn_.get(), copy_sql.c_str()));
  if (PQresultStatus(start) != PGRES_COPY_IN) {
    PgResult res = checked(start, target_);  // throws for errors
    throw PgError("PostgreSQL at " + target_ +
                  ": not a COPY ... FROM STDIN statement: " + copy_sql.substr(0, 80));
  }
  PQclear(start);

  std::string client_error;
  constexpr std::size_t kChunk = 1 << 20;
  for (std::size_t off = 0; off < payload.size() && client_error.empty();) {
    const std::size_t len = std::min(kChunk, payload.size() - off);
    const int r = PQputCopyData(conn_.get(), payload.data() + off, static_cast<int>(len));
    if (r == 1) {
      off += len;
    } else if (r == 0) {  // the output buffer is full: send some, then try again
      flush(io);
    } else {
      client_error = one_line(PQerrorMessage(conn_.get()));
    }
  }
  for (;;) {
    const int r =
        PQputCopyEnd(conn_.get(), client_error.empty() ? nullptr : "client failed sending data");
    if (r == 1) break;
    if (r < 0) {
      if (client_error.empty()) client_error = one_line(PQerrorMessage(conn_.get()));
      break;
    }
    flush(io);
  }
  if (!conn_ || PQstatus(conn_.get()) == CONNECTION_BAD) fail_connection();
  flush(io);

  // Drain every result so the connection is usable afterwards, keeping the first error.
  std::int64_t rows = 0;
  std::string server_error, sqlstate;
  while (pg_result* r = next_result(io)) {
    ExecStatusType st = PQresultStatus(r);
    if (st == PGRES_COMMAND_OK) {
      const char* t = PQcmdTuples(r);
      if (t && *t) rows = std::strtoll(t, nullptr, 10);
    } else if (server_error.empty()) {
      server_error = one_line(PQresultErrorMessage(r));
      const char* s = PQresultErrorField(r, PG_DIAG_SQLSTATE);
      sqlstate = s ? s : "";
    }
    PQclear(r);
    if (st == PGRES_COPY_IN) {  // should not happen after PQputCopyEnd; avoid looping forever
      PQputCopyEnd(conn_.get(), "unexpected copy state");
      flush(io);
    }
  }
  if (io.interrupted()) conn_.reset();  // as in await()
  if (!client_error.empty())
    throw PgError("PostgreSQL at " + target_ + ": COPY failed: " + client_error, sqlstate);
  if (!server_error.empty())
    throw PgError("PostgreSQL at " + target_ + ": " + server_error, sqlstate);
  return rows;
}

std::vector<PgResult> PgConnection::pipeline(const std::vector<PgStatement>& statements) {
  if (!conn_) fail_connection();
  IoDeadline io = begin();
  io.on_stop = [this] { request_cancel(); };
  if (!PQenterPipelineMode(conn_.get())) fail_connection();
  for (const PgStatement& st : statements) {
    const int n = st.params ? static_cast<int>(st.params->values.size()) : 0;
    const char* const* values = st.params ? st.params->values.data() : nullptr;
    const int* lengths = st.params ? st.params->lengths.data() : nullptr;
    const int* formats = st.params ? st.params->formats.data() : nullptr;
    const int sent =
        st.prepared
            ? PQsendQueryPrepared(conn_.get(), st.prepared->c_str(), n, values, lengths, formats, 0)
            : PQsendQueryParams(conn_.get(), st.sql, n, nullptr, values, lengths, formats, 0);
    if (!sent) fail_connection();
  }
  if (!PQpipelineSync(conn_.get())) fail_connection();
  flush(io);
  std::vector<PgResult> out;
  out.reserve(statements.size());
  std::optional<PgError> first_error;
  for (std::size_t i = 0; i < statements.size(); ++i) {
    PgResult holder;  // the statement's last result (owned, also when a wait throws)
    pg_result* last = nullptr;
    while (pg_result* r = next_result(io)) holder = PgResult(last = r);
    if (!last) fail_connection();
    // After a failure the rest come back PGRES_PIPELINE_ABORTED: the first failure is the news.
    if (!succeeded(last) && !first_error) first_error = result_error(last, target_);
    out.push_back(std::move(holder));
  }
  for (int nulls = 0;;) {  // the sync's result ends the pipeline
    pg_result* r = next_result(io);
    if (!r) {
      if (++nulls > 2) fail_connection();  // libpq lost track of the pipeline
      continue;
    }
    const bool sync = PQresultStatus(r) == PGRES_PIPELINE_SYNC;
    PQclear(r);
    if (sync) break;
  }
  if (!PQexitPipelineMode(conn_.get())) fail_connection();
  if (io.interrupted()) conn_.reset();  // as in await()
  if (first_error) throw *first_error;
  return out;
}

bool PgConnection::in_transaction() const {
  if (!conn_) return false;
  const PGTransactionStatusType t = PQtransactionStatus(conn_.get());
  return t == PQTRANS_INTRANS || t == PQTRANS_INERROR;
}

int PgConnection::server_version() const {
  return conn_ ? PQserverVersion(conn_.get()) : 0;
}

std::string PgConnection::server_version_string() {
  PgResult r = exec("SHOW server_version");
  return r.rows() > 0 ? std::string(r.value(0, 0)) : std::string();
}

std::string PgConnection::encrypt_password(const std::string& password, const std::string& user) {
  // The algorithm named: libpq would otherwise ask the server (a blocking query, unbounded).
  char* v =
      conn_ ? PQencryptPasswordConn(conn_.get(), password.c_str(), user.c_str(), "scram-sha-256")
            : nullptr;
  if (!v)
    throw PgError("PostgreSQL at " + target_ + ": cannot encrypt a password: " +
                  (conn_ ? one_line(PQerrorMessage(conn_.get())) : std::string("not connected")));
  std::string out(v);
  PQfreemem(v);
  return out;
}

int PgConnection::backend_pid() const {
  return conn_ ? PQbackendPID(conn_.get()) : 0;
}

std::string PgConnection::host() const {
  const char* h = conn_ ? PQhost(conn_.get()) : nullptr;
  return h ? h : "";
}

int PgConnection::port() const {
  const char* p = conn_ ? PQport(conn_.get()) : nullptr;
  return p ? std::atoi(p) : 0;
}

std::string PgConnection::describe() const {
  if (!conn_) return target_ + " (closed)";
  auto s = [](const char* p) { return std::string(p ? p : ""); };
  std::string host = s(PQhost(conn_.get()));
  if (host.find(':') != std::string::npos && host.front() != '/') host = "[" + host + "]";
  return host + ":" + s(PQport(conn_.get())) + "/" + s(PQdb(conn_.get())) +
         " user=" + s(PQuser(conn_.get()));
}

}  // namespace perflab
