// PostgreSQL connection strings as text, read and written through libpq's own parser
// (targets/pg_conninfo.h).
#include "targets/pg_conninfo.h"

#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "targets/postgres.h"

namespace perflab {
namespace {

// A value as a conninfo writes it: bare when it can be, else quoted with \' and \\ escaped.
std::string conninfo_value(const char* v) {
  const std::string_view text(v);
  const bool bare = !text.empty() && text.find_first_of(" \t\n\r\f\v'\\") == std::string::npos;
  if (bare) return std::string(text);
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// The connect_timeout among libpq's options (freed here) when they set one, else `fallback`.
int connect_timeout_of(PQconninfoOption* opts, int fallback) {
  int out = fallback;
  if (opts) {
    for (PQconninfoOption* o = opts; o->keyword; ++o)
      if (std::strcmp(o->keyword, "connect_timeout") == 0 && o->val) {
        const int v = std::atoi(o->val);
        if (v > 0) out = std::max(2, v);  // libpq's own minimum
      }
    PQconninfoFree(opts);
  }
  return out;
}

}  // namespace

ParsedConninfo parse_conninfo(const std::string& conninfo) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(conninfo.c_str(), &err);
  if (!opts) {
    std::string why = err ? err : "out of memory";
    if (err) PQfreemem(err);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    throw std::invalid_argument("cannot parse the PostgreSQL connection string: " + why);
  }
  ParsedConninfo out;
  std::vector<std::pair<std::string, std::string>> settings;  // keyword, value as written
  for (PQconninfoOption* o = opts; o->keyword; ++o) {
    if (!o->val) continue;  // not given
    if (std::strcmp(o->keyword, "password") == 0)
      out.password = o->val;
    else
      settings.emplace_back(o->keyword, conninfo_value(o->val));
  }
  PQconninfoFree(opts);
  // Where the server is and who connects first, as people write them; the rest in libpq's order.
  auto rank = [](const std::string& k) {
    static const char* const first[] = {"host", "hostaddr", "port", "user", "dbname"};
    for (std::size_t i = 0; i < std::size(first); ++i)
      if (k == first[i]) return i;
    return std::size(first);
  };
  std::stable_sort(settings.begin(), settings.end(),
                   [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
  for (const auto& [keyword, value] : settings) {
    if (!out.without_password.empty()) out.without_password += ' ';
    out.without_password += keyword + "=" + value;
  }
  return out;
}

ChildConninfo conninfo_for_child(const std::string& conninfo) {
  ParsedConninfo parsed = parse_conninfo(conninfo);
  ChildConninfo out{std::move(parsed.without_password), {}};
  if (parsed.password) out.environment.push_back("PGPASSWORD=" + *parsed.password);
  return out;
}

std::string conninfo_with_address(const std::string& conninfo, const std::string& host, int port) {
  const ParsedConninfo parsed = parse_conninfo(conninfo);
  // Later settings win in a conninfo: the address goes last.
  std::string out = parsed.without_password;
  if (parsed.password) out += " password=" + conninfo_value(parsed.password->c_str());
  out += " host=" + conninfo_value(host.c_str()) + " hostaddr=" + conninfo_value(host.c_str()) +
         " port=" + std::to_string(port);
  return out;
}

std::string pg_bounded_conninfo(const std::string& conninfo, const PgLimits& limits) {
  const ParsedConninfo parsed = parse_conninfo(conninfo);
  const std::string st = std::to_string(limits.statement_timeout.count());
  const std::string lock =
      std::to_string(std::min<std::int64_t>(limits.statement_timeout.count(), 10000));
  std::string out = "connect_timeout=" + std::to_string(std::max(1, limits.connect_timeout_s)) +
                    " keepalives=1 keepalives_idle=10 keepalives_interval=5 keepalives_count=3"
                    " tcp_user_timeout=" +
                    std::to_string(limits.reply_timeout().count()) +
                    " options='-c statement_timeout=" + st + " -c lock_timeout=" + lock +
                    " -c idle_in_transaction_session_timeout=" + st + "' ";
  out += parsed.without_password;
  if (parsed.password) out += " password=" + conninfo_value(parsed.password->c_str());
  return out;
}

std::string redact_conninfo(const std::string& conninfo) {
  try {
    return parse_conninfo(conninfo).without_password;
  } catch (const std::invalid_argument&) {
    return "(a connection string libpq cannot parse)";
  }
}

int pg_connect_timeout_s(const std::string& conninfo, int fallback) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(conninfo.c_str(), &err);
  if (err) PQfreemem(err);
  return connect_timeout_of(opts, fallback);
}

int pg_connect_timeout_s(pg_conn* conn, int fallback) {
  return connect_timeout_of(PQconninfo(conn), fallback);
}

std::string pg_conninfo_refusal(const std::string& conninfo) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(conninfo.c_str(), &err);
  if (!opts) {
    if (err) PQfreemem(err);
    try {
      parse_conninfo(conninfo);  // throws with libpq's reason
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "cannot parse the PostgreSQL connection string";
  }
  std::string why;
  for (PQconninfoOption* o = opts; o->keyword; ++o) {
    if (std::strcmp(o->keyword, "connect_timeout") != 0 || !o->val) continue;
    const std::string v = o->val;
    int seconds = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), seconds);
    if (ec != std::errc() || end != v.data() + v.size() || seconds < 1 ||
        seconds > kPgMaxConnectTimeoutS)
      why = "connect_timeout=" + v + " in the PostgreSQL connection string: give 1 to " +
            std::to_string(kPgMaxConnectTimeoutS) +
            " seconds (Perflab bounds every wait; 0 would wait for ever)";
  }
  PQconninfoFree(opts);
  return why;
}

}  // namespace perflab
