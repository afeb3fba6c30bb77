#include "targets/postgres.h"

#include <cstdio>
#include <ctime>

#include <libpq-fe.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

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

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

std::string redact_uri(const std::string& s) {
  std::size_t scheme_end = s.find("://");
  std::size_t auth_begin = scheme_end + 3;
  std::size_t auth_end = s.find_first_of("/?", auth_begin);
  if (auth_end == std::string::npos) auth_end = s.size();
  std::string out = s.substr(0, auth_begin);
  std::string authority = s.substr(auth_begin, auth_end - auth_begin);
  std::size_t at = authority.rfind('@');
  if (at != std::string::npos) {
    std::string userinfo = authority.substr(0, at);
    std::size_t colon = userinfo.find(':');
    if (colon != std::string::npos) userinfo.resize(colon);
    authority = userinfo + authority.substr(at);
  }
  out += authority;
  std::size_t q = s.find('?', auth_end);
  out += s.substr(auth_end, (q == std::string::npos ? s.size() : q) - auth_end);
  if (q != std::string::npos) {
    std::string kept;
    std::size_t pos = q + 1;
    while (pos <= s.size()) {
      std::size_t amp = s.find('&', pos);
      if (amp == std::string::npos) amp = s.size();
      std::string param = s.substr(pos, amp - pos);
      std::string key = param.substr(0, param.find('='));
      if (!param.empty() && key != "password") {
        if (!kept.empty()) kept += '&';
        kept += param;
      }
      pos = amp + 1;
    }
    if (!kept.empty()) out += "?" + kept;
  }
  return out;
}

std::string redact_keyvalue(const std::string& s) {
  std::string out;
  std::size_t i = 0, n = s.size();
  while (i < n) {
    std::size_t ws_begin = i;
    while (i < n && is_space(s[i])) ++i;
    if (i >= n) {
      out.append(s, ws_begin, i - ws_begin);
      break;
    }
    std::size_t key_begin = i;
    while (i < n && !is_space(s[i]) && s[i] != '=') ++i;
    std::string key = s.substr(key_begin, i - key_begin);
    while (i < n && is_space(s[i])) ++i;
    if (i < n && s[i] == '=') {
      ++i;
      while (i < n && is_space(s[i])) ++i;
      if (i < n && s[i] == '\'') {
        ++i;
        while (i < n && s[i] != '\'') i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
        if (i < n) ++i;  // closing quote
      } else {
        while (i < n && !is_space(s[i])) i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
      }
    }
    if (key == "password") continue;  // drop the whole token with its leading blanks
    std::size_t keep_from = out.empty() ? key_begin : ws_begin;
    out.append(s, keep_from, i - keep_from);
  }
  return out;
}

}  // namespace

std::string redact_conninfo(const std::string& conninfo) {
  if (conninfo.rfind("postgresql://", 0) == 0 || conninfo.rfind("postgres://", 0) == 0)
    return redact_uri(conninfo);
  return redact_keyvalue(conninfo);
}

std::string pg_quote_ident(std::string_view ident) {
  std::string out = "\"";
  for (char c : ident) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

// ---- PgResult ----

PgResult::PgResult(pg_result* r) : r_(r) {}
PgResult::PgResult(PgResult&& o) noexcept : r_(std::exchange(o.r_, nullptr)) {}
PgResult& PgResult::operator=(PgResult&& o) noexcept {
  if (this != &o) {
    if (r_) PQclear(r_);
    r_ = std::exchange(o.r_, nullptr);
  }
  return *this;
}
PgResult::~PgResult() {
  if (r_) PQclear(r_);
}
int PgResult::rows() const {
  return r_ ? PQntuples(r_) : 0;
}
int PgResult::columns() const {
  return r_ ? PQnfields(r_) : 0;
}
bool PgResult::is_null(int row, int col) const {
  return !r_ || PQgetisnull(r_, row, col);
}
std::string_view PgResult::value(int row, int col) const {
  if (!r_ || row < 0 || col < 0 || row >= rows() || col >= columns()) return {};
  return {PQgetvalue(r_, row, col), static_cast<std::size_t>(PQgetlength(r_, row, col))};
}
std::int64_t PgResult::affected() const {
  if (!r_) return 0;
  const char* t = PQcmdTuples(r_);
  return (t && *t) ? std::strtoll(t, nullptr, 10) : 0;
}

// ---- PgConnection ----

namespace {

std::string target_name(const std::string& redacted) {
  return redacted.empty() ? std::string("(libpq defaults)") : redacted;
}

}  // namespace

PgConnection::PgConnection(const std::string& conninfo, int connect_timeout_s)
    : target_(target_name(redact_conninfo(conninfo))) {
  // Array entries before an expanded dbname are overridden by the connection string's own
  // fields, so connect_timeout applies only when the conninfo (key=value or URI) has none.
  std::string timeout = std::to_string(std::max(1, connect_timeout_s));
  const char* keys[] = {"connect_timeout", "dbname", nullptr};
  const char* values[] = {timeout.c_str(), conninfo.c_str(), nullptr};
  conn_ = PQconnectdbParams(keys, values, 1);
  if (!conn_) throw PgError("PostgreSQL at " + target_ + ": out of memory");
  if (PQstatus(conn_) != CONNECTION_OK) {
    std::string why = one_line(PQerrorMessage(conn_));
    PQfinish(conn_);
    conn_ = nullptr;
    throw PgError("PostgreSQL at " + target_ + ": " + why);
  }
  PQsetNoticeProcessor(conn_, drop_notice, nullptr);
}

PgConnection::PgConnection(PgConnection&& o) noexcept
    : conn_(std::exchange(o.conn_, nullptr)), target_(std::move(o.target_)) {}

PgConnection& PgConnection::operator=(PgConnection&& o) noexcept {
  if (this != &o) {
    if (conn_) PQfinish(conn_);
    conn_ = std::exchange(o.conn_, nullptr);
    target_ = std::move(o.target_);
  }
  return *this;
}

PgConnection::~PgConnection() {
  if (conn_) PQfinish(conn_);
}

namespace {

[[noreturn]] void throw_connection_error(pg_conn* c, const std::string& target) {
  throw PgError("PostgreSQL at " + target + ": " +
                (c ? one_line(PQerrorMessage(c)) : std::string("not connected")));
}

// Takes ownership of r; throws PgError (with SQLSTATE) unless it is a success.
PgResult checked(pg_conn* c, pg_result* r, const std::string& target) {
  if (!r) throw_connection_error(c, target);
  PgResult res(r);
  ExecStatusType st = PQresultStatus(r);
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK || st == PGRES_EMPTY_QUERY) return res;
  const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
  const char* msg = PQresultErrorMessage(r);
  std::string why = (msg && *msg) ? one_line(msg) : std::string(PQresStatus(st));
  throw PgError("PostgreSQL at " + target + ": " + why, state ? state : "");
}

}  // namespace

PgResult PgConnection::exec(const std::string& sql) {
  if (!conn_) throw_connection_error(conn_, target_);
  return checked(conn_, PQexec(conn_, sql.c_str()), target_);
}

PgResult PgConnection::exec_params(const char* sql, const PgParams& params) {
  if (!conn_) throw_connection_error(conn_, target_);
  int n = static_cast<int>(params.values.size());
  return checked(conn_,
                 PQexecParams(conn_, sql, n, nullptr, params.values.data(), params.lengths.data(),
                              params.formats.data(), 0),
                 target_);
}

void PgConnection::prepare(const std::string& name, const std::string& sql, int n_params) {
  if (!conn_) throw_connection_error(conn_, target_);
  checked(conn_, PQprepare(conn_, name.c_str(), sql.c_str(), n_params, nullptr), target_);
}

PgResult PgConnection::exec_prepared(const std::string& name, const PgParams& params) {
  if (!conn_) throw_connection_error(conn_, target_);
  int n = static_cast<int>(params.values.size());
  return checked(conn_,
                 PQexecPrepared(conn_, name.c_str(), n, params.values.data(), params.lengths.data(),
                                params.formats.data(), 0),
                 target_);
}

std::int64_t PgConnection::copy_in(const std::string& copy_sql, std::string_view payload) {
  if (!conn_) throw_connection_error(conn_, target_);
  pg_result* start = PQexec(conn_, copy_sql.c_str());
  if (!start) throw_connection_error(conn_, target_);
  if (PQresultStatus(start) != PGRES_COPY_IN) {
    PgResult res = checked(conn_, start, target_);  // throws for errors
    throw PgError("PostgreSQL at " + target_ +
                  ": not a COPY ... FROM STDIN statement: " + copy_sql.substr(0, 80));
  }
  PQclear(start);

  std::string client_error;
  constexpr std::size_t kChunk = 1 << 20;
  for (std::size_t off = 0; off < payload.size(); off += kChunk) {
    std::size_t len = std::min(kChunk, payload.size() - off);
    if (PQputCopyData(conn_, payload.data() + off, static_cast<int>(len)) != 1) {
      client_error = one_line(PQerrorMessage(conn_));
      break;
    }
  }
  if (PQputCopyEnd(conn_, client_error.empty() ? nullptr : "client failed sending data") != 1 &&
      client_error.empty())
    client_error = one_line(PQerrorMessage(conn_));

  // Drain every result so the connection is usable afterwards, keeping the first error.
  std::int64_t rows = 0;
  std::string server_error, sqlstate;
  while (pg_result* r = PQgetResult(conn_)) {
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
      PQputCopyEnd(conn_, "unexpected copy state");
    }
  }
  if (!client_error.empty())
    throw PgError("PostgreSQL at " + target_ + ": COPY failed: " + client_error, sqlstate);
  if (!server_error.empty())
    throw PgError("PostgreSQL at " + target_ + ": " + server_error, sqlstate);
  return rows;
}

int PgConnection::server_version() const {
  return conn_ ? PQserverVersion(conn_) : 0;
}

std::string PgConnection::server_version_string() {
  PgResult r = exec("SHOW server_version");
  return r.rows() > 0 ? std::string(r.value(0, 0)) : std::string();
}

int PgConnection::backend_pid() const {
  return conn_ ? PQbackendPID(conn_) : 0;
}

std::string PgConnection::describe() const {
  if (!conn_) return target_ + " (closed)";
  auto s = [](const char* p) { return std::string(p ? p : ""); };
  std::string host = s(PQhost(conn_));
  if (host.find(':') != std::string::npos && host.front() != '/') host = "[" + host + "]";
  return host + ":" + s(PQport(conn_)) + "/" + s(PQdb(conn_)) + " user=" + s(PQuser(conn_));
}

void pg_append_hex(std::string& out, std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
}

void pg_append_copy_text(std::string& out, std::string_view v) {
  for (char c : v) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out.push_back(c);
    }
  }
}

void pg_append_copy_bytea(std::string& out, std::string_view bytes) {
  out += "\\\\x";
  pg_append_hex(out, bytes);
}

std::string pg_decode_bytea_hex(std::string_view text) {
  if (text.size() < 2 || text[0] != '\\' || text[1] != 'x' || text.size() % 2 != 0)
    throw PgError("unexpected bytea text format (bytea_output must be hex)");
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw PgError("invalid hex digit in bytea");
  };
  std::string out;
  out.reserve((text.size() - 2) / 2);
  for (std::size_t i = 2; i + 1 < text.size(); i += 2)
    out.push_back(static_cast<char>(nib(text[i]) << 4 | nib(text[i + 1])));
  return out;
}

std::string pg_timestamp_text(std::int64_t unix_us) {
  const std::time_t secs = static_cast<std::time_t>(unix_us / 1'000'000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[48];
  const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%06lld", static_cast<long long>(unix_us % 1'000'000));
  return buf;
}

PgTransaction::PgTransaction(PgConnection& conn) : conn_(conn) {
  conn_.exec("BEGIN");
}

PgTransaction::~PgTransaction() {
  if (!open_) return;
  try {
    conn_.exec("ROLLBACK");
  } catch (...) {  // a dead connection has nothing left to roll back
  }
}

void PgTransaction::commit() {
  open_ = false;  // a failed COMMIT ends the transaction too
  conn_.exec("COMMIT");
}

}  // namespace perflab
