#pragma once
// PostgreSQL connection strings (conninfo) as text: parsed by libpq, redacted, rewritten for a
// child program, a relay or a client library, and checked against Perflab's bounds.
#include <optional>
#include <string>
#include <vector>

struct pg_conn;

namespace perflab {

struct PgLimits;  // targets/postgres.h

// A conninfo (key=value or URI) as libpq parses it (PQconninfoParse): the settings it gives,
// without the password, as key=value (host, hostaddr, port, user, dbname first, the others in
// libpq's keyword order; values quoted where needed), and the password. Throws
// std::invalid_argument with libpq's reason (never the conninfo) when libpq cannot parse it.
struct ParsedConninfo {
  std::string without_password;
  std::optional<std::string> password;
};
ParsedConninfo parse_conninfo(const std::string& conninfo);

// A conninfo for a child program's command line (pgbench, perflab-cli): parse_conninfo()'s
// settings there, and the password, if any, as PGPASSWORD for the child's environment only (any
// user may read a command line in /proc, an environment only its own user and root). Throws
// std::invalid_argument as parse_conninfo.
struct ChildConninfo {
  std::string conninfo;
  std::vector<std::string> environment;  // {"PGPASSWORD=..."}, or empty without a password
};
ChildConninfo conninfo_for_child(const std::string& conninfo);

// conninfo (key=value or URI) with the server's address replaced by a numeric IP and a port,
// everything else (password included) kept; for routing a connection through a relay.
std::string conninfo_with_address(const std::string& conninfo, const std::string& host, int port);

// A key=value conninfo for a client library that takes only a string (libpqxx): Perflab's
// bounds (connect_timeout, keepalives, tcp_user_timeout, and statement_timeout, lock_timeout and
// idle_in_transaction_session_timeout as the session's options) first, then the conninfo's own
// settings, which win where they are given.
std::string pg_bounded_conninfo(const std::string& conninfo, const PgLimits& limits);

// The connect_timeout (s) libpq takes from conninfo (the last one given; at least 2, libpq's
// minimum), or `fallback` when it sets none: the bound of a connection made asynchronously,
// where libpq leaves the timeout to its caller.
int pg_connect_timeout_s(const std::string& conninfo, int fallback);
// The same of a connection libpq has started: its own connect_timeout when it sets one, else
// `fallback`.
int pg_connect_timeout_s(pg_conn* conn, int fallback);

// The longest connect_timeout a conninfo may ask for. Every wait of Perflab's is bounded, and a
// server that has not answered a connection within a minute is not one to measure.
inline constexpr int kPgMaxConnectTimeoutS = 60;

// Why Perflab refuses this conninfo as a target, or "" when it takes it: libpq cannot parse it,
// or its connect_timeout is not a whole number of seconds from 1 to kPgMaxConnectTimeoutS (0 is
// libpq's "wait for ever"). Never shows the password.
std::string pg_conninfo_refusal(const std::string& conninfo);

// conninfo with any password removed, for messages, logs and results: parse_conninfo()'s
// settings, or a placeholder when libpq cannot parse it (nothing of it is shown then).
std::string redact_conninfo(const std::string& conninfo);

}  // namespace perflab
