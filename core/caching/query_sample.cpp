// The keys of caching on your query and the query's first run for each, read-only and rolled
// back (caching/query_sample.h).
#include "caching/query_sample.h"

#include <algorithm>
#include <cctype>
#include <fstream>

#include "targets/pg_transaction.h"

namespace perflab::caching {

namespace {

constexpr const char* kStatement = "perflab_user_query_check";

std::string trimmed(std::string s) {
  const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  while (!s.empty() && (space(s.back()) || s.back() == ';')) s.pop_back();
  s.erase(s.begin(), std::find_if_not(s.begin(), s.end(), space));
  return s;
}

std::vector<std::string> keys_from_file(const std::string& path, std::size_t max_keys) {
  std::ifstream in(path);
  if (!in) throw QueryRefused("keys: cannot read the file '" + path + "'");
  std::vector<std::string> keys;
  for (std::string line; keys.size() < max_keys && std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) keys.push_back(std::move(line));
  }
  if (keys.empty()) throw QueryRefused("keys: the file '" + path + "' holds no key");
  return keys;
}

// The keys' SELECT as a subquery with a LIMIT: one statement that can only read (a statement
// that writes cannot stand in FROM), and never more than max_keys rows.
std::vector<std::string> keys_from_sql(PgConnection& c, const std::string& sql,
                                       std::size_t max_keys) {
  PgResult r;
  try {
    r = c.exec_params(
        ("SELECT * FROM (" + trimmed(sql) + ") AS perflab_keys LIMIT " + std::to_string(max_keys))
            .c_str(),
        PgParams{});
  } catch (const PgError& e) {
    throw QueryRefused(std::string("keys: the SELECT failed: ") + e.what());
  }
  std::vector<std::string> keys;
  for (int i = 0; i < r.rows(); ++i)
    if (!r.is_null(i, 0)) keys.emplace_back(r.value(i, 0));
  if (keys.empty()) throw QueryRefused("keys: the SELECT returned no key");
  return keys;
}

// Why PostgreSQL refused the query, in the user's terms.
std::string refusal(const PgError& e) {
  if (e.sqlstate() == "25006")
    return std::string("the query writes (PostgreSQL refused it in a read-only transaction: ") +
           e.what() + ")";
  if (e.sqlstate() == "57014") return std::string("the query timed out: ") + e.what();
  if (e.sqlstate() == "42P18" || e.sqlstate() == "42P02" || e.sqlstate() == "08P01")
    return std::string("the query must take the key as $1 and no other parameter: ") + e.what();
  if (e.sqlstate() == "42601" &&
      std::string(e.what()).find("multiple commands") != std::string::npos)
    return std::string("the query must be one statement: ") + e.what();
  return std::string("the query failed: ") + e.what();
}

}  // namespace

std::size_t QuerySample::footprint() const {
  std::size_t n = 0;
  for (const auto& r : results) n += caching::footprint(r);
  return n;
}

void set_session_read_only(PgConnection& c) {
  c.exec("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY");
}

bool keys_are_sql(const std::string& keys) {
  std::string head = trimmed(keys).substr(0, 7);
  std::transform(head.begin(), head.end(), head.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  for (const char* word : {"SELECT", "WITH", "VALUES", "TABLE"}) {
    const std::string w = word;
    if (head.rfind(w, 0) == 0 &&
        (head.size() == w.size() || !std::isalnum(static_cast<unsigned char>(head[w.size()]))))
      return true;
  }
  return false;
}

QueryResult query_result(const std::string& key, const PgResult& rows) {
  QueryResult r;
  r.key = key;
  r.columns.reserve(static_cast<std::size_t>(rows.columns()));
  for (int c = 0; c < rows.columns(); ++c) r.columns.emplace_back(rows.column_name(c));
  r.rows.reserve(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i) {
    auto& row = r.rows.emplace_back();
    row.reserve(r.columns.size());
    for (int c = 0; c < rows.columns(); ++c) {
      if (rows.is_null(i, c)) {
        row.emplace_back();
      } else {
        row.emplace_back(std::string(rows.value(i, c)));
      }
    }
  }
  return r;
}

QuerySample sample_query(PgConnection& c, const std::string& query, const std::string& keys,
                         std::size_t max_keys, const std::function<void()>& check_stop) {
  if (trimmed(query).empty()) throw QueryRefused("query: give the SELECT to measure ($1 the key)");
  if (trimmed(keys).empty())
    throw QueryRefused("keys: give a file of keys (one per line) or a SELECT of them");
  QuerySample s;
  s.keys_from_sql = keys_are_sql(keys);
  // Read before the transaction: a file needs no server.
  std::vector<std::string> key_list;
  if (!s.keys_from_sql) key_list = keys_from_file(keys, max_keys);
  // Everything below in one read-only transaction, rolled back however it ends, on a session
  // whose default is read-only as the measurement's is.
  set_session_read_only(c);
  PgTransaction tx(c, "BEGIN TRANSACTION READ ONLY");
  if (s.keys_from_sql) key_list = keys_from_sql(c, keys, max_keys);
  s.keys_read = key_list.size();
  try {
    c.prepare(kStatement, query, 1);
  } catch (const PgError& e) {
    throw QueryRefused(refusal(e));
  }
  PgParams params;
  for (const std::string& key : key_list) {
    check_stop();
    params.clear();
    params.add_text(key.c_str());
    PgResult rows;
    try {
      rows = c.exec_prepared(kStatement, params);
    } catch (const PgError& e) {
      throw QueryRefused(refusal(e) + " (key '" + key + "')");
    }
    if (rows.columns() == 0) throw QueryRefused("the query returns no rows: it is not a SELECT");
    // The measurement's session relies on its read-only default: a query that turns it off
    // (set_config) could write in the next transaction.
    if (c.exec("SHOW default_transaction_read_only").value(0, 0) != "on")
      throw QueryRefused(
          "the query changes the session's read-only default (default_transaction_read_only), "
          "so that a later run of it could write");
    if (rows.rows() == 0) {
      ++s.keys_without_rows;
      continue;
    }
    s.results.push_back(query_result(key, rows));
  }
  if (s.results.empty())
    throw QueryRefused("the query returned nothing for any of the " + std::to_string(s.keys_read) +
                       " keys");
  return s;
}

}  // namespace perflab::caching
