#pragma once
// PostgreSQL's text forms: COPY text-format fields, bytea as hex, timestamps and quoted
// identifiers, shared by everything that sends COPY data, bytea values or SQL as text.
#include <cstdint>
#include <string>
#include <string_view>

namespace perflab {

// Appends bytes as lowercase hex digits.
void pg_append_hex(std::string& out, std::string_view bytes);
// Appends a COPY text-format field: backslash, tab, newline and carriage return escaped.
void pg_append_copy_text(std::string& out, std::string_view v);
// Appends a bytea as a COPY text-format field: \\x<hex>, its backslash escaped as COPY requires.
void pg_append_copy_bytea(std::string& out, std::string_view bytes);
// Decodes a bytea in hex text output form (\x0a0b...); throws PgError on another form.
std::string pg_decode_bytea_hex(std::string_view text);

// A timestamp (microseconds since the Unix epoch, UTC) as PostgreSQL's text input:
// "YYYY-MM-DD HH:MM:SS.ffffff".
std::string pg_timestamp_text(std::int64_t unix_us);

// Quotes an identifier for SQL ("my""schema").
std::string pg_quote_ident(std::string_view ident);

}  // namespace perflab
