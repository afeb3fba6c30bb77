#include "caching/tiers.h"

#include <charconv>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "common/clock.h"
#include "targets/ownership.h"
#include "targets/pg_text.h"
#include "targets/pg_transaction.h"

namespace perflab::caching {

namespace {

// Binary result fields (network byte order).
std::int64_t be_int(std::string_view v) {
  if (v.size() != 8 && v.size() != 4 && v.size() != 2)
    throw std::runtime_error("unexpected integer width " + std::to_string(v.size()));
  std::uint64_t x = 0;
  for (unsigned char c : v) x = (x << 8) | c;
  if (v.size() == 4) return static_cast<std::int32_t>(static_cast<std::uint32_t>(x));
  if (v.size() == 2) return static_cast<std::int16_t>(static_cast<std::uint16_t>(x));
  return static_cast<std::int64_t>(x);
}

std::string lit(std::string_view s) {
  return std::string(s);
}

const char* kDocCols = "key, title, author, created_at_ms, body";
const char* kCommentCols = "id, group_id, author, created_at_ms, body, score, approved";

[[noreturn]] void no_results(const Tier& t) {
  throw std::logic_error("the " + t.name() + " tier holds no query results");
}

}  // namespace

void Tier::put_result(const QueryResult&) {
  no_results(*this);
}
bool Tier::fetch_result(const std::string&) {
  no_results(*this);
}
std::shared_ptr<const QueryResult> Tier::decode_result() {
  no_results(*this);
}
std::size_t Tier::result_bytes(const std::string&) {
  no_results(*this);
}

// ---------------------------------------------------------------- postgres

PostgresTier::PostgresTier(const PgTarget& target, Codec codec, std::stop_token stop)
    : Tier(codec),
      conn_(target.connect(std::move(stop))),
      schema_q_(pg_quote_ident(target.schema)),
      local_server_(target.managed) {
  const std::string& s = schema_q_;
  if (codec_.encoding == Encoding::Native) {
    conn_.prepare("get_doc",
                  "SELECT " + lit(kDocCols) + " FROM " + s + ".caching_documents WHERE key = $1",
                  1);
    conn_.prepare("get_list",
                  "SELECT " + lit(kCommentCols) + " FROM " + s +
                      ".caching_comments WHERE group_id = $1 ORDER BY id",
                  1);
    conn_.prepare("put_doc",
                  "INSERT INTO " + s + ".caching_documents (" + kDocCols +
                      ") VALUES ($1, $2, $3, $4, $5) ON CONFLICT (key) DO UPDATE SET "
                      "title = EXCLUDED.title, author = EXCLUDED.author, "
                      "created_at_ms = EXCLUDED.created_at_ms, body = EXCLUDED.body",
                  5);
    conn_.prepare("put_comment",
                  "INSERT INTO " + s + ".caching_comments (" + kCommentCols +
                      ") VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (group_id, id) DO UPDATE "
                      "SET author = EXCLUDED.author, created_at_ms = EXCLUDED.created_at_ms, "
                      "body = EXCLUDED.body, score = EXCLUDED.score, approved = EXCLUDED.approved",
                  7);
    conn_.prepare("doc_bytes",
                  "SELECT (pg_column_size(key) + pg_column_size(title) + pg_column_size(author) + "
                  "pg_column_size(created_at_ms) + pg_column_size(body))::bigint FROM " +
                      s + ".caching_documents WHERE key = $1",
                  1);
    conn_.prepare("list_bytes",
                  "SELECT coalesce(sum(pg_column_size(id) + pg_column_size(group_id) + "
                  "pg_column_size(author) + pg_column_size(created_at_ms) + pg_column_size(body) + "
                  "pg_column_size(score) + pg_column_size(approved)), 0)::bigint FROM " +
                      s + ".caching_comments WHERE group_id = $1",
                  1);
  } else {
    conn_.prepare(
        "get_doc",
        "SELECT value FROM " + s + ".caching_documents_encoded WHERE encoding = $1 AND key = $2",
        2);
    conn_.prepare("get_list",
                  "SELECT value FROM " + s +
                      ".caching_comments_encoded WHERE encoding = $1 AND group_id = $2 ORDER BY id",
                  2);
    conn_.prepare("put_doc",
                  "INSERT INTO " + s +
                      ".caching_documents_encoded (encoding, key, value) VALUES ($1, $2, $3) "
                      "ON CONFLICT (encoding, key) DO UPDATE SET value = EXCLUDED.value",
                  3);
    conn_.prepare(
        "put_comment",
        "INSERT INTO " + s +
            ".caching_comments_encoded (encoding, group_id, id, value) VALUES ($1, $2, $3, $4) "
            "ON CONFLICT (encoding, group_id, id) DO UPDATE SET value = EXCLUDED.value",
        4);
    conn_.prepare("doc_bytes",
                  "SELECT pg_column_size(value)::bigint FROM " + s +
                      ".caching_documents_encoded WHERE encoding = $1 AND key = $2",
                  2);
    conn_.prepare("list_bytes",
                  "SELECT coalesce(sum(pg_column_size(value)), 0)::bigint FROM " + s +
                      ".caching_comments_encoded WHERE encoding = $1 AND group_id = $2",
                  2);
  }
}

void PostgresTier::create_tables(PgConnection& c, const std::string& schema) {
  const std::string s = pg_quote_ident(schema);
  pg_ensure_own_schema(c, schema);  // refuses a schema Perflab did not create
  drop_tables(c, schema);
  c.exec("CREATE TABLE " + s +
         ".caching_documents (key text PRIMARY KEY, title text NOT NULL, author text NOT NULL, "
         "created_at_ms bigint NOT NULL, body text NOT NULL)");
  c.exec("CREATE TABLE " + s +
         ".caching_comments (group_id bigint NOT NULL, id bigint NOT NULL, author text NOT NULL, "
         "created_at_ms bigint NOT NULL, body text NOT NULL, score integer NOT NULL, "
         "approved boolean NOT NULL, PRIMARY KEY (group_id, id))");
  c.exec("CREATE TABLE " + s +
         ".caching_documents_encoded (encoding text NOT NULL, key text NOT NULL, "
         "value bytea NOT NULL, PRIMARY KEY (encoding, key))");
  c.exec("CREATE TABLE " + s +
         ".caching_comments_encoded (encoding text NOT NULL, group_id bigint NOT NULL, "
         "id bigint NOT NULL, value bytea NOT NULL, PRIMARY KEY (encoding, group_id, id))");
}

void PostgresTier::drop_tables(PgConnection& c, const std::string& schema) {
  if (pg_schema_state(c, schema) != SchemaState::Owned) return;  // nothing of Perflab's there
  const std::string s = pg_quote_ident(schema);
  // Only this experiment's tables, always schema-qualified; the schema itself stays.
  c.exec("DROP TABLE IF EXISTS " + s + ".caching_documents, " + s + ".caching_comments, " + s +
         ".caching_documents_encoded, " + s + ".caching_comments_encoded");
}

PgResult PostgresTier::query(const std::string& stmt, const PgParams& p) {
  return conn_.exec_prepared(stmt, p, /*binary_results=*/true);
}

void PostgresTier::put_document(const Document& d) {
  PgParams p;
  if (codec_.encoding == Encoding::Native) {
    const std::string ts = std::to_string(d.created_at_ms);
    p.add_text(d.key.c_str());
    p.add_text(d.title.c_str());
    p.add_text(d.author.c_str());
    p.add_text(ts.c_str());
    p.add_text(d.body.c_str());
    conn_.exec_prepared("put_doc", p);
    return;
  }
  const std::string enc = to_string(codec_.encoding);
  const std::string bytes = codec_.encode(d);
  p.add_text(enc.c_str());
  p.add_text(d.key.c_str());
  p.add_binary(bytes.data(), static_cast<int>(bytes.size()));
  conn_.exec_prepared("put_doc", p);
}

void PostgresTier::put_list(const CommentList& l) {
  // Replaces the group's rows: DELETE, then one COPY (fast and bounded for any list size).
  const std::string group = std::to_string(l.group_id);
  const std::string enc = to_string(codec_.encoding);
  const bool native = codec_.encoding == Encoding::Native;
  std::string payload;
  payload.reserve(l.comments.size() * 512);
  for (const auto& c : l.comments) {
    if (native) {
      payload += std::to_string(c.id);
      payload += '\t';
      payload += group;
      payload += '\t';
      pg_append_copy_text(payload, c.author);
      payload += '\t';
      payload += std::to_string(c.created_at_ms);
      payload += '\t';
      pg_append_copy_text(payload, c.body);
      payload += '\t';
      payload += std::to_string(c.score);
      payload += '\t';
      payload += c.approved ? "t" : "f";
    } else {
      payload += enc;  // "protobuf", "protobuf+zlib": nothing to escape
      payload += '\t';
      payload += group;
      payload += '\t';
      payload += std::to_string(c.id);
      payload += '\t';
      pg_append_copy_bytea(payload, codec_.encode(c));
    }
    payload += '\n';
  }
  PgParams p;
  if (!native) p.add_text(enc.c_str());
  p.add_text(group.c_str());
  PgTransaction tx(conn_);
  if (native) {
    conn_.exec_params(
        ("DELETE FROM " + schema_q_ + ".caching_comments WHERE group_id = $1").c_str(), p);
    conn_.copy_in("COPY " + schema_q_ + ".caching_comments (" + kCommentCols + ") FROM STDIN",
                  payload);
  } else {
    conn_.exec_params(("DELETE FROM " + schema_q_ +
                       ".caching_comments_encoded WHERE encoding = $1 AND group_id = $2")
                          .c_str(),
                      p);
    conn_.copy_in("COPY " + schema_q_ +
                      ".caching_comments_encoded (encoding, group_id, id, value) FROM STDIN",
                  payload);
  }
  tx.commit();
}

bool PostgresTier::fetch_document(const std::string& key) {
  PgParams p;
  const char* enc = to_string(codec_.encoding);
  if (codec_.encoding != Encoding::Native) p.add_text(enc);
  p.add_text(key.c_str());
  document_rows_ = query("get_doc", p);
  return document_rows_.rows() > 0;
}

bool PostgresTier::fetch_list(std::int64_t group_id) {
  PgParams p;
  const char* enc = to_string(codec_.encoding);
  const std::string group = std::to_string(group_id);
  if (codec_.encoding != Encoding::Native) p.add_text(enc);
  p.add_text(group.c_str());
  list_rows_ = query("get_list", p);
  list_group_ = group_id;
  return list_rows_.rows() > 0;
}

std::shared_ptr<const Document> PostgresTier::decode_document() {
  const PgResult& r = document_rows_;
  if (r.rows() == 0) return nullptr;
  if (codec_.encoding != Encoding::Native)
    return std::make_shared<const Document>(codec_.decode_document(r.value(0, 0)));
  auto d = std::make_shared<Document>();
  d->key = r.value(0, 0);
  d->title = r.value(0, 1);
  d->author = r.value(0, 2);
  d->created_at_ms = be_int(r.value(0, 3));
  d->body = r.value(0, 4);
  return d;
}

std::shared_ptr<const CommentList> PostgresTier::decode_list() {
  const PgResult& r = list_rows_;
  if (r.rows() == 0) return nullptr;
  auto l = std::make_shared<CommentList>();
  l->group_id = list_group_;
  l->comments.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    if (codec_.encoding != Encoding::Native) {
      l->comments.push_back(codec_.decode_comment(r.value(i, 0)));
      continue;
    }
    Comment c;
    c.id = be_int(r.value(i, 0));
    c.group_id = be_int(r.value(i, 1));
    c.author = r.value(i, 2);
    c.created_at_ms = be_int(r.value(i, 3));
    c.body = r.value(i, 4);
    c.score = static_cast<std::int32_t>(be_int(r.value(i, 5)));
    const std::string_view b = r.value(i, 6);
    c.approved = !b.empty() && b[0] != 0;
    l->comments.push_back(std::move(c));
  }
  return l;
}

std::size_t PostgresTier::document_bytes(const std::string& key) {
  PgParams p;
  const char* enc = to_string(codec_.encoding);
  if (codec_.encoding != Encoding::Native) p.add_text(enc);
  p.add_text(key.c_str());
  PgResult r = query("doc_bytes", p);
  return r.rows() == 0 || r.is_null(0, 0) ? 0 : static_cast<std::size_t>(be_int(r.value(0, 0)));
}

std::size_t PostgresTier::list_bytes(std::int64_t group_id) {
  PgParams p;
  const char* enc = to_string(codec_.encoding);
  const std::string group = std::to_string(group_id);
  if (codec_.encoding != Encoding::Native) p.add_text(enc);
  p.add_text(group.c_str());
  PgResult r = query("list_bytes", p);
  return r.rows() == 0 || r.is_null(0, 0) ? 0 : static_cast<std::size_t>(be_int(r.value(0, 0)));
}

std::optional<std::int64_t> backend_cpu_ns(const PgConnection& c, bool local_server) {
  if (!local_server) return std::nullopt;
  const std::int64_t ns = other_process_cpu_ns(c.backend_pid());
  if (ns < 0) return std::nullopt;
  return ns;
}

std::optional<std::int64_t> PostgresTier::server_cpu_ns() {
  return backend_cpu_ns(conn_, local_server_);
}

// ---------------------------------------------------------------- redis

RedisTier::RedisTier(const RedisTarget& target, Codec codec, std::stop_token stop)
    : Tier(codec),
      client_(target.connect(0, std::move(stop))),
      base_(target.prefix + "caching:" + to_string(codec.encoding) + ":") {}

RedisTier::~RedisTier() {
  try {
    remove_own_keys();
  } catch (...) {
  }
}

std::string RedisTier::document_key(const std::string& key) const {
  return base_ + "doc:" + key;
}
std::string RedisTier::list_key(std::int64_t group_id) const {
  return base_ + "list:" + std::to_string(group_id);
}

std::string RedisTier::result_key(const std::string& key) const {
  return base_ + "query:" + key;
}

void RedisTier::set(const std::string& key, const std::string& value) {
  written_.insert(key);
  RedisReply r = client_.command({"SET", key, value});
  if (r.type == RedisReply::Type::Error)
    throw RedisError("Redis at " + client_.endpoint().address() + ": SET failed: " + r.str);
}

bool RedisTier::fetch_into(const std::string& key, std::string& value) {
  auto v = get(key);
  if (!v) return false;
  value = std::move(*v);
  return true;
}

std::optional<std::string> RedisTier::get(const std::string& key) {
  RedisReply r = client_.command({"GET", key});
  if (r.type == RedisReply::Type::Nil) return std::nullopt;
  if (r.type != RedisReply::Type::String)
    throw RedisError("Redis at " + client_.endpoint().address() + ": GET failed: " + r.str);
  return std::move(r.str);
}

void RedisTier::put_document(const Document& d) {
  set(document_key(d.key), codec_.encode(d));
}
void RedisTier::put_list(const CommentList& l) {
  set(list_key(l.group_id), codec_.encode(l));
}

bool RedisTier::fetch_document(const std::string& key) {
  return fetch_into(document_key(key), document_value_);
}

bool RedisTier::fetch_list(std::int64_t group_id) {
  return fetch_into(list_key(group_id), list_value_);
}

std::shared_ptr<const Document> RedisTier::decode_document() {
  return std::make_shared<const Document>(codec_.decode_document(document_value_));
}

std::shared_ptr<const CommentList> RedisTier::decode_list() {
  return std::make_shared<const CommentList>(codec_.decode_list(list_value_));
}

void RedisTier::put_result(const QueryResult& r) {
  set(result_key(r.key), codec_.encode(r));
}

bool RedisTier::fetch_result(const std::string& key) {
  return fetch_into(result_key(key), result_value_);
}

std::shared_ptr<const QueryResult> RedisTier::decode_result() {
  return std::make_shared<const QueryResult>(codec_.decode_result(result_value_));
}

std::size_t RedisTier::result_bytes(const std::string& key) {
  RedisReply r = client_.command({"STRLEN", result_key(key)});
  return r.type == RedisReply::Type::Integer ? static_cast<std::size_t>(r.integer) : 0;
}

std::optional<std::string> RedisTier::get_document_bytes(const std::string& key) {
  return get(document_key(key));
}

void RedisTier::put_document_bytes(const std::string& key, const std::string& bytes) {
  set(document_key(key), bytes);
}

std::size_t RedisTier::document_bytes(const std::string& key) {
  RedisReply r = client_.command({"STRLEN", document_key(key)});
  return r.type == RedisReply::Type::Integer ? static_cast<std::size_t>(r.integer) : 0;
}

std::size_t RedisTier::list_bytes(std::int64_t group_id) {
  RedisReply r = client_.command({"STRLEN", list_key(group_id)});
  return r.type == RedisReply::Type::Integer ? static_cast<std::size_t>(r.integer) : 0;
}

std::optional<std::int64_t> RedisTier::server_cpu_ns() {
  RedisReply r = client_.command({"INFO", "cpu"});
  if (r.type != RedisReply::Type::String) return std::nullopt;
  double total = 0;
  int found = 0;
  for (const char* field : {"used_cpu_sys:", "used_cpu_user:"}) {
    auto pos = r.str.find(field);
    if (pos == std::string::npos) continue;
    pos += std::strlen(field);
    auto end = r.str.find_first_of("\r\n", pos);
    try {
      total += std::stod(r.str.substr(pos, end - pos));
      ++found;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  if (found != 2) return std::nullopt;
  return static_cast<std::int64_t>(total * 1e9);
}

std::int64_t RedisTier::remove_own_keys() {
  std::int64_t removed = 0;
  std::vector<std::string_view> argv{"DEL"};
  auto flush = [&] {
    if (argv.size() == 1) return;
    RedisReply r = client_.command(argv);
    if (r.type == RedisReply::Type::Integer) removed += r.integer;
    argv.resize(1);
  };
  for (const auto& k : written_) {
    argv.push_back(k);
    if (argv.size() > 500) flush();
  }
  flush();
  written_.clear();
  return removed;
}

// ---------------------------------------------------------------- local

namespace {
std::string local_doc_key(const std::string& key) {
  return "doc:" + key;
}
std::string local_list_key(std::int64_t g) {
  return "list:" + std::to_string(g);
}
std::string local_result_key(const std::string& key) {
  return "query:" + key;
}
}  // namespace

LocalTier::LocalTier(std::size_t budget_bytes, Codec codec) : Tier(codec), cache_(budget_bytes) {}

template <class T>
void LocalTier::put_entry(const std::string& key, std::shared_ptr<const T> obj) {
  if (codec_.encoding == Encoding::Native) {
    const std::size_t bytes = footprint(*obj);
    cache_.put(key, Value(std::move(obj)), bytes);
    return;
  }
  auto s = std::make_shared<const std::string>(codec_.encode(*obj));
  const std::size_t bytes = sizeof(std::string) + s->size();
  cache_.put(key, Value(std::move(s)), bytes);
}

bool LocalTier::fetch_entry(const std::string& key, Value& into) {
  const Value* v = cache_.get(key);
  if (!v) return false;
  into = *v;
  return true;
}

template <class T, class Decode>
std::shared_ptr<const T> LocalTier::decode_entry(const Value& entry, Decode decode) const {
  if (auto* obj = std::get_if<std::shared_ptr<const T>>(&entry)) return *obj;
  if (auto* s = std::get_if<std::shared_ptr<const std::string>>(&entry))
    return *s ? std::make_shared<const T>(decode(**s)) : nullptr;
  return nullptr;
}

void LocalTier::put_document(const Document& d) {
  put_document(std::make_shared<const Document>(d));
}

void LocalTier::put_document(std::shared_ptr<const Document> d) {
  const std::string key = local_doc_key(d->key);
  put_entry(key, std::move(d));
}

void LocalTier::put_document_bytes(const std::string& key, std::string bytes) {
  if (codec_.encoding == Encoding::Native) {
    put_document(std::make_shared<const Document>(codec_.decode_document(bytes)));
    return;
  }
  const std::size_t n = sizeof(std::string) + bytes.size();
  cache_.put(local_doc_key(key), Value(std::make_shared<const std::string>(std::move(bytes))), n);
}

void LocalTier::put_list(const CommentList& l) {
  put_entry(local_list_key(l.group_id), std::make_shared<const CommentList>(l));
}

void LocalTier::put_result(const QueryResult& r) {
  put_entry(local_result_key(r.key), std::make_shared<const QueryResult>(r));
}

bool LocalTier::fetch_document(const std::string& key) {
  return fetch_entry(local_doc_key(key), document_entry_);
}
bool LocalTier::fetch_list(std::int64_t group_id) {
  return fetch_entry(local_list_key(group_id), list_entry_);
}
bool LocalTier::fetch_result(const std::string& key) {
  return fetch_entry(local_result_key(key), result_entry_);
}

std::shared_ptr<const Document> LocalTier::decode_document() {
  return decode_entry<Document>(document_entry_,
                                [this](std::string_view b) { return codec_.decode_document(b); });
}
std::shared_ptr<const CommentList> LocalTier::decode_list() {
  return decode_entry<CommentList>(list_entry_,
                                   [this](std::string_view b) { return codec_.decode_list(b); });
}
std::shared_ptr<const QueryResult> LocalTier::decode_result() {
  return decode_entry<QueryResult>(result_entry_,
                                   [this](std::string_view b) { return codec_.decode_result(b); });
}

std::size_t LocalTier::document_bytes(const std::string& key) {
  return cache_.bytes_of(local_doc_key(key));
}
std::size_t LocalTier::list_bytes(std::int64_t group_id) {
  return cache_.bytes_of(local_list_key(group_id));
}
std::size_t LocalTier::result_bytes(const std::string& key) {
  return cache_.bytes_of(local_result_key(key));
}

}  // namespace perflab::caching
