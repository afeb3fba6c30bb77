#pragma once
// A PostgreSQL connection and its results: a thin RAII wrapper over libpq.
//
// Why libpq and not libpqxx for the measured path: the statement builders hand over text and
// parameter pointers that they already own; libpq's PQexecParams takes them as they are, while
// libpqxx 6.4's dynamic parameters copy every value first. The copy would be measured as if it
// were the builder's.
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

struct pg_conn;
struct pg_result;

namespace perflab {

// Any PostgreSQL failure; the message names the target (password removed) and the reason.
class PgError : public std::runtime_error {
 public:
  PgError(const std::string& msg, std::string sqlstate = {})
      : std::runtime_error(msg), sqlstate_(std::move(sqlstate)) {}
  const std::string& sqlstate() const { return sqlstate_; }

 private:
  std::string sqlstate_;
};

// Deleters of libpq's handles, for std::unique_ptr: PQclear and PQfinish.
struct PgResultClear {
  void operator()(pg_result* r) const;
};
struct PgConnFinish {
  void operator()(pg_conn* c) const;
};

// A result set; rows and columns as text (or binary where requested). Movable; a moved-from
// result is empty.
class PgResult {
 public:
  PgResult() = default;
  explicit PgResult(pg_result* r);

  int rows() const;
  int columns() const;
  bool is_null(int row, int col) const;
  std::string_view value(int row, int col) const;  // text (or raw bytes for binary results)
  std::string_view column_name(int col) const;
  std::int64_t affected() const;  // PQcmdTuples as a number, 0 if none

 private:
  std::unique_ptr<pg_result, PgResultClear> r_;
};

// Parameters for exec_params: pointers to values the caller keeps alive during the call.
struct PgParams {
  std::vector<const char*> values;  // nullptr = SQL NULL
  std::vector<int> lengths;         // used for binary params
  std::vector<int> formats;         // 0 text, 1 binary
  void add_text(const char* v) { values.push_back(v), lengths.push_back(0), formats.push_back(0); }
  void add_binary(const char* v, int len) {
    values.push_back(v), lengths.push_back(len), formats.push_back(1);
  }
  void clear() { values.clear(), lengths.clear(), formats.clear(); }
};

// One statement of a pipeline: text with parameters, or a prepared statement's name.
struct PgStatement {
  const char* sql = nullptr;              // when not prepared
  const std::string* prepared = nullptr;  // the name of a statement prepare() made
  const PgParams* params = nullptr;       // may be null: no parameters
};

class IoDeadline;  // targets/io_wait.h

// The client waits this much longer than the statement timeout before it gives up on a server.
inline constexpr std::chrono::milliseconds kPgReplySlack{5000};

// How Perflab bounds every PostgreSQL operation (docs/safety.md). The connection string's own
// connect_timeout (at most kPgMaxConnectTimeoutS, targets/pg_conninfo.h), keepalives* and
// tcp_user_timeout win over the ones added here.
struct PgLimits {
  int connect_timeout_s = 5;
  // SET statement_timeout (and idle_in_transaction_session_timeout) for Perflab's sessions;
  // lock_timeout is the smaller of this and 10 s. The client waits at most statement_timeout +
  // kPgReplySlack for an answer (a frozen server or a network partition sends nothing, and the
  // kernel still acknowledges), then cancels what is in flight and closes the connection.
  std::chrono::milliseconds statement_timeout{30000};
  std::chrono::milliseconds reply_timeout() const { return statement_timeout + kPgReplySlack; }
};

// A connection that answers within PgLimits, or throws PgError and is closed. A stop request
// (the stop token given at construction) is seen within kStopSlice: the server is asked to
// cancel what is in flight (PQcancel, from a thread of its own, since a frozen server never
// answers it), which gets kStopGrace to end; then the connection is closed. Movable; a moved-from
// connection is closed.
class PgConnection {
 public:
  // Connects within connect_timeout_s (libpq's own reason on failure: refused, unknown host,
  // auth failed), with the default limits otherwise.
  explicit PgConnection(const std::string& conninfo, int connect_timeout_s = 5);
  // Connects within limits.connect_timeout_s (or the conninfo's own connect_timeout) and sets
  // the session's timeouts; throws PgError naming the target and the reason.
  PgConnection(const std::string& conninfo, const PgLimits& limits, std::stop_token stop = {});

  // Simple query protocol (may hold several statements). Throws PgError.
  PgResult exec(const std::string& sql);
  // Extended protocol with parameters (text or binary), results in text. Throws PgError.
  PgResult exec_params(const char* sql, const PgParams& params);
  // Prepares a named statement once; then exec_prepared runs it.
  void prepare(const std::string& name, const std::string& sql, int n_params);
  // binary_results: every column in PostgreSQL's binary form (e.g. 8-byte big-endian bigint).
  PgResult exec_prepared(const std::string& name, const PgParams& params,
                         bool binary_results = false);
  // COPY ... FROM STDIN: sends the whole text-format payload, then ends the copy. Throws PgError.
  std::int64_t copy_in(const std::string& copy_sql, std::string_view payload);
  // Sends every statement in one flight (libpq's pipeline mode, extended protocol) followed by
  // a sync, then reads every result, within one reply timeout. After a statement fails the
  // server skips the rest up to the sync; throws the first failure's PgError (with SQLSTATE).
  // An explicit transaction a failed pipeline leaves open is the caller's to roll back
  // (in_transaction()).
  std::vector<PgResult> pipeline(const std::vector<PgStatement>& statements);
  // Inside a transaction block (open or failed).
  bool in_transaction() const;

  int server_version() const;           // e.g. 150018
  std::string server_version_string();  // SHOW server_version
  int backend_pid() const;
  // The SCRAM-SHA-256 verifier of user's password (PQencryptPasswordConn), for CREATE or ALTER
  // ROLE ... PASSWORD: the server never sees the password itself. Throws PgError.
  std::string encrypt_password(const std::string& password, const std::string& user);
  // The server's host (name, address, or a Unix socket's folder) and port as connected.
  std::string host() const;
  int port() const;
  std::string describe() const;  // host:port/db user=... (no password)
  const PgLimits& limits() const { return limits_; }

  // For a driver that sends on this connection itself with libpq's asynchronous API (the
  // IO-list's event-driven client pool): libpq's handle (null once closed); the PgError a result
  // reports, or (null) the connection's own failure, worded as this connection's others; and
  // giving up on what is in flight: a cancel request goes out and the connection is closed.
  pg_conn* native_handle() const { return conn_.get(); }
  PgError error(const pg_result* r = nullptr) const;
  void abandon();

 private:
  IoDeadline begin() const;
  [[noreturn]] void fail_connection();
  [[noreturn]] void give_up(const IoDeadline& io);
  void request_cancel();
  void wait(IoDeadline& io, short events);
  void flush(IoDeadline& io);
  pg_result* next_result(IoDeadline& io);
  pg_result* await(IoDeadline& io, int sent);
  PgResult finish(IoDeadline& io, int sent);

  std::unique_ptr<pg_conn, PgConnFinish> conn_;  // null once closed (also when moved from)
  std::string target_;                           // redacted conninfo, for messages
  PgLimits limits_;
  std::stop_token stop_;
};

}  // namespace perflab
