// PostgreSQL's text forms: COPY fields, bytea hex, timestamps, quoted identifiers
// (targets/pg_text.h).
#include "targets/pg_text.h"

#include <cstdio>
#include <ctime>

#include "targets/postgres.h"

namespace perflab {

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

std::string pg_quote_ident(std::string_view ident) {
  std::string out = "\"";
  for (char c : ident) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace perflab
