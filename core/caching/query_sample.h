#pragma once
// Caching on your query: the keys it reads (a file, or a SELECT whose first column gives them),
// and the query run once for each inside one read-only transaction that is rolled back, before
// anything is measured: a query that writes, fails or returns nothing is refused here.
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "caching/records.h"
#include "targets/postgres.h"

namespace perflab::caching {

// Why a query or its keys cannot be measured; nothing was changed.
class QueryRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the query returned for its keys.
struct QuerySample {
  std::vector<QueryResult> results;   // the keys it returned rows for, in the keys' order
  std::size_t keys_read = 0;          // from the file or the keys' SELECT
  std::size_t keys_without_rows = 0;  // left out: the query returned no row for them
  bool keys_from_sql = false;
  std::size_t footprint() const;  // in this process, all results as ready objects
};

// Whether `keys` is SQL (it begins with SELECT, WITH, VALUES or TABLE) rather than a file name.
bool keys_are_sql(const std::string& keys);

// Reads at most `max_keys` keys, then runs `query` ($1 the key) for each, all in one read-only
// transaction that is rolled back, with the connection's statement timeout. `check_stop` is
// called between keys. Throws QueryRefused with the reason: no keys, a keys file that cannot be
// read, a query that is not one statement, does not take $1, writes, fails, times out, or
// returns no row for any key, or changes the session's read-only default (the session the
// measurement runs it on relies on that default).
QuerySample sample_query(PgConnection& c, const std::string& query, const std::string& keys,
                         std::size_t max_keys, const std::function<void()>& check_stop);

// Makes every later transaction of the session read-only (default_transaction_read_only).
void set_session_read_only(PgConnection& c);

// A result's rows as a QueryResult of `key` (text form; SQL NULL as nullopt).
QueryResult query_result(const std::string& key, const PgResult& rows);

}  // namespace perflab::caching
