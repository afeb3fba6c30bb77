// The datastore of caching on your query (QueryTier, caching/tiers.h): the user's query run for
// one key at a time on a session whose transactions are read-only, its rows made into a
// QueryResult.
#include <stdexcept>

#include "caching/query_sample.h"
#include "caching/tiers.h"

namespace perflab::caching {

QueryTier::QueryTier(const PgTarget& target, const std::string& query, std::stop_token stop)
    : Tier(Codec{}), conn_(target.connect(std::move(stop))), local_server_(target.managed) {
  set_session_read_only(conn_);
  conn_.prepare(statement_, query, 1);
}

void QueryTier::refuse() {
  throw std::logic_error("the query tier holds only the query's results");
}

bool QueryTier::fetch_result(const std::string& key) {
  key_ = key;
  params_.clear();
  params_.add_text(key_.c_str());
  rows_ = conn_.exec_prepared(statement_, params_);
  return true;
}

std::shared_ptr<const QueryResult> QueryTier::decode_result() {
  return std::make_shared<const QueryResult>(query_result(key_, rows_));
}

std::size_t QueryTier::result_bytes(const std::string& key) {
  fetch_result(key);
  std::size_t n = 0;
  for (int r = 0; r < rows_.rows(); ++r)
    for (int c = 0; c < rows_.columns(); ++c) n += rows_.value(r, c).size();
  return n;
}

std::optional<std::int64_t> QueryTier::server_cpu_ns() {
  return backend_cpu_ns(conn_, local_server_);
}

}  // namespace perflab::caching
