// What a caching run's gets read and how one get is made and checked: the tiers by name, the
// workloads (the generated document and list, or the rows of a user's query per key), their
// records stored and checked byte for byte before any get is timed, and one get in its parts.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "caching/caching_run.h"

namespace perflab::caching {

std::unique_ptr<Tier> make_tier(const std::string& name, const Codec& codec,
                                const CachingServers& servers, std::size_t local_budget,
                                std::stop_token stop) {
  if (name == "postgres" && !servers.user_query.empty())
    return std::make_unique<QueryTier>(servers.pg, servers.user_query, stop);
  if (name == "postgres") return std::make_unique<PostgresTier>(servers.pg, codec, stop);
  if (name == "redis") return std::make_unique<RedisTier>(servers.redis, codec, stop);
  return std::make_unique<LocalTier>(local_budget, codec);
}

namespace {

std::runtime_error not_kept(const std::string& tier_name, const std::string& series,
                            const char* what) {
  return std::runtime_error(
      "the " + tier_name + " tier (" + series + ") did not keep the " + what +
      (tier_name == "local" ? std::string(" (local_budget_mb is smaller than they are)") : ""));
}

std::runtime_error not_same(const std::string& tier_name, const std::string& series,
                            const char* what) {
  return std::runtime_error("the " + tier_name + " tier (" + series + ") returned " + what +
                            " different from those stored");
}

}  // namespace

void store_and_check(Tier& tier, const std::string& tier_name, const std::string& series,
                     const Document& doc, const CommentList& list) {
  Workloads{&doc, &list}.store_and_check(tier, tier_name, series);
}

std::vector<std::string> Workloads::names() const {
  if (results) return {"query"};
  return {"document", "list"};
}

WorkloadGet Workloads::get(Tier& tier, const std::string& workload) const {
  if (results) return WorkloadGet(tier, *results);
  return WorkloadGet(tier, workload, *doc, *list);
}

std::size_t Workloads::bytes(Tier& tier, const std::string& workload) const {
  if (results) {
    if (results->empty()) return 0;
    std::size_t n = 0;
    for (const auto& r : *results) n += tier.result_bytes(r.key);
    return n / results->size();
  }
  return workload == "document" ? tier.document_bytes(doc->key) : tier.list_bytes(list->group_id);
}

void Workloads::store_and_check(Tier& tier, const std::string& tier_name,
                                const std::string& series) const {
  if (results) {
    for (const auto& r : *results) tier.put_result(r);
    for (const auto& r : *results) {
      if (!tier.fetch_result(r.key)) throw not_kept(tier_name, series, "query's rows");
      if (!(*tier.decode_result() == r)) throw not_same(tier_name, series, "rows");
    }
    return;
  }
  tier.put_document(*doc);
  tier.put_list(*list);
  auto d = tier.get_document(doc->key);
  auto l = tier.get_list(list->group_id);
  if (!d || !l) throw not_kept(tier_name, series, "records");
  if (!(*d == *doc) || !(*l == *list)) throw not_same(tier_name, series, "records");
}

const char* to_string(GetPart p) {
  switch (p) {
    case GetPart::Fetch:
      return "fetch";
    case GetPart::Decode:
      return "decode";
    case GetPart::Check:
      return "check";
  }
  return "?";
}

WorkloadGet::WorkloadGet(Tier& tier, const std::string& workload, const Document& doc,
                         const CommentList& list)
    : tier_(tier),
      kind_(workload == "document" ? Kind::Document : Kind::List),
      doc_(&doc),
      list_(&list) {}

WorkloadGet::WorkloadGet(Tier& tier, const std::vector<QueryResult>& results)
    : tier_(tier), kind_(Kind::Query), results_(&results) {}

std::size_t WorkloadGet::keys() const {
  return kind_ == Kind::Query && !results_->empty() ? results_->size() : 1;
}

bool WorkloadGet::fetch() {
  switch (kind_) {
    case Kind::Document:
      return tier_.fetch_document(doc_->key);
    case Kind::List:
      return tier_.fetch_list(list_->group_id);
    case Kind::Query:
      if (results_->empty()) return false;
      fetched_ = next_;
      next_ = (next_ + 1) % results_->size();
      return tier_.fetch_result((*results_)[fetched_].key);
  }
  return false;
}

bool WorkloadGet::decode() {
  switch (kind_) {
    case Kind::Document:
      return (decoded_document_ = tier_.decode_document()) != nullptr;
    case Kind::List:
      return (decoded_list_ = tier_.decode_list()) != nullptr;
    case Kind::Query:
      return (decoded_result_ = tier_.decode_result()) != nullptr;
  }
  return false;
}

bool WorkloadGet::check() const {
  switch (kind_) {
    case Kind::Document:
      return decoded_document_ && decoded_document_->key == doc_->key &&
             decoded_document_->body.size() == doc_->body.size();
    case Kind::List:
      return decoded_list_ && decoded_list_->group_id == list_->group_id &&
             decoded_list_->comments.size() == list_->comments.size() &&
             (list_->comments.empty() ||
              decoded_list_->comments.back().id == list_->comments.back().id);
    case Kind::Query: {
      const QueryResult& want = (*results_)[fetched_];
      return decoded_result_ && decoded_result_->key == want.key &&
             decoded_result_->columns.size() == want.columns.size() &&
             decoded_result_->rows.size() == want.rows.size();
    }
  }
  return false;
}

bool WorkloadGet::get() {
  if (!fetch() || !decode()) return false;
  if (!check())
    throw std::runtime_error("the " + tier_.name() + " tier (" + to_string(tier_.codec().encoding) +
                             ") returned another record than the one asked for");
  return true;
}

}  // namespace perflab::caching
