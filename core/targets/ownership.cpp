#include "targets/ownership.h"

#include "targets/pg_text.h"
#include "targets/pg_transaction.h"

namespace perflab {

namespace {

const std::string kSchemaComment = std::string(kSchemaMark) +
                                   ": created by Perflab, which drops and recreates it; "
                                   "keep nothing else here";

std::string pg_prefix(PgConnection& c) {
  return "PostgreSQL at " + c.describe() + ": ";
}

[[noreturn]] void refuse_foreign_schema(PgConnection& c, const std::string& schema) {
  throw TargetError(TargetField::PgSchema,
                    pg_prefix(c) + "schema \"" + schema +
                        "\" exists and was not created by Perflab, which never writes into or "
                        "drops a schema it did not create; choose a schema name that does not "
                        "exist yet (--schema NAME)");
}

void create_marked(PgConnection& c, const std::string& schema) {
  const std::string s = pg_quote_ident(schema);
  c.exec("CREATE SCHEMA " + s);
  c.exec("COMMENT ON SCHEMA " + s + " IS '" + kSchemaComment + "'");
}

// Objects outside the schema that depend on something inside it (a user's view over Perflab's
// table, a foreign key referencing it, a column of its row type): DROP SCHEMA ... CASCADE would
// drop them too. Up to three, by their identity ("public.my_view"); empty when there are none.
// Column defaults, rules (a view's query), triggers and policies have no schema of their own:
// they are where their table is, so Perflab's own defaults and views do not count.
std::string foreign_dependents(PgConnection& c, const std::string& schema) {
  PgParams p;
  p.add_text(schema.c_str());
  PgResult r = c.exec_params(
      "SELECT DISTINCT o.type || ' ' || o.identity FROM pg_depend d "
      "CROSS JOIN LATERAL pg_identify_object(d.refclassid, d.refobjid, 0) AS ref "
      "CROSS JOIN LATERAL pg_identify_object(d.classid, d.objid, 0) AS o "
      "CROSS JOIN LATERAL (SELECT CASE d.classid "
      "  WHEN 'pg_attrdef'::regclass THEN (SELECT adrelid FROM pg_attrdef WHERE oid = d.objid) "
      "  WHEN 'pg_rewrite'::regclass THEN (SELECT ev_class FROM pg_rewrite WHERE oid = d.objid) "
      "  WHEN 'pg_trigger'::regclass THEN (SELECT tgrelid FROM pg_trigger WHERE oid = d.objid) "
      "  WHEN 'pg_policy'::regclass THEN (SELECT polrelid FROM pg_policy WHERE oid = d.objid) "
      "  END AS rel) AS owner "
      "WHERE ref.schema = $1 AND d.deptype IN ('n', 'a') AND coalesce(o.schema, "
      "  (SELECT n.nspname FROM pg_class k JOIN pg_namespace n ON n.oid = k.relnamespace "
      "   WHERE k.oid = owner.rel)) IS DISTINCT FROM $1 "
      "ORDER BY 1 LIMIT 3",
      p);
  std::string out;
  for (int i = 0; i < r.rows(); ++i) {
    if (i) out += ", ";
    out += r.value(i, 0);
  }
  return out;
}

bool pg_true(const PgResult& r) {
  return r.rows() == 1 && r.value(0, 0) == "t";
}

}  // namespace

SchemaState pg_schema_state(PgConnection& c, const std::string& schema) {
  PgParams p;
  p.add_text(schema.c_str());
  PgResult r = c.exec_params(
      "SELECT coalesce(obj_description(oid, 'pg_namespace'), '') FROM pg_namespace "
      "WHERE nspname = $1",
      p);
  if (r.rows() == 0) return SchemaState::Absent;
  return r.value(0, 0).starts_with(kSchemaMark) ? SchemaState::Owned : SchemaState::Foreign;
}

void pg_ensure_own_schema(PgConnection& c, const std::string& schema) {
  switch (pg_schema_state(c, schema)) {
    case SchemaState::Owned:
      return;
    case SchemaState::Foreign:
      refuse_foreign_schema(c, schema);
    case SchemaState::Absent:
      break;
  }
  PgTransaction tx(c);  // never a moment where the schema exists without the mark
  create_marked(c, schema);
  tx.commit();
}

void pg_reset_own_schema(PgConnection& c, const std::string& schema) {
  PgTransaction tx(c);
  switch (pg_schema_state(c, schema)) {
    case SchemaState::Foreign:
      refuse_foreign_schema(c, schema);
    case SchemaState::Owned:
      if (const std::string deps = foreign_dependents(c, schema); !deps.empty())
        throw TargetError(TargetField::PgSchema,
                          pg_prefix(c) + "Perflab's schema \"" + schema +
                              "\" cannot be reset: objects outside it depend on it (" + deps +
                              ") and would be dropped with it; drop them or choose another "
                              "schema (--schema NAME)");
      c.exec("DROP SCHEMA " + pg_quote_ident(schema) + " CASCADE");
      break;
    case SchemaState::Absent:
      break;
  }
  create_marked(c, schema);
  tx.commit();
}

void pg_check_own_schema(PgConnection& c, const std::string& schema) {
  PgParams p;
  p.add_text(schema.c_str());
  const std::string who = std::string(c.exec("SELECT current_user").value(0, 0));
  switch (pg_schema_state(c, schema)) {
    case SchemaState::Foreign:
      refuse_foreign_schema(c, schema);
    case SchemaState::Absent:
      if (!pg_true(c.exec("SELECT has_database_privilege(current_database(), 'CREATE')")))
        throw TargetError(TargetField::PgSchema,
                          pg_prefix(c) + "user " + who +
                              " may not create schemas in this database, so Perflab cannot "
                              "create its schema \"" +
                              schema + "\" (GRANT CREATE ON DATABASE, or another database)");
      return;
    case SchemaState::Owned:
      break;
  }
  if (!pg_true(c.exec_params("SELECT pg_has_role(nspowner, 'MEMBER') AND "
                             "has_schema_privilege(oid, 'USAGE, CREATE') "
                             "FROM pg_namespace WHERE nspname = $1",
                             p)))
    throw TargetError(TargetField::PgSchema,
                      pg_prefix(c) + "Perflab's schema \"" + schema +
                          "\" belongs to another role; "
                          "user " +
                          who +
                          " cannot use or reset it (connect as its owner, or "
                          "choose a new schema name with --schema NAME)");
}

std::string redis_glob_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    if (ch == '*' || ch == '?' || ch == '[' || ch == ']' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}

namespace {

std::string redis_where(RedisClient& c) {
  return "Redis at " + c.endpoint().address() + ": ";
}

std::string prefix_mark(const std::string& prefix, std::string_view slot_tag) {
  std::string mark = prefix + std::string(kPrefixMarkKey);
  if (!slot_tag.empty()) mark.append("{").append(slot_tag).append("}");
  return mark;
}

// Whether the prefix's mark must still be set on this node: false when it is there already,
// true when no key lives under the prefix. Writes nothing; throws when a user's key lives there.
bool prefix_needs_mark(RedisClient& c, const std::string& prefix, std::string_view slot_tag) {
  const std::string where = redis_where(c);
  const std::string mark_stem = prefix + std::string(kPrefixMarkKey);
  const std::string mark = prefix_mark(prefix, slot_tag);
  RedisReply has = c.command({"EXISTS", mark});
  if (has.type == RedisReply::Type::Integer && has.integer == 1) return false;
  if (has.type == RedisReply::Type::Error)
    throw TargetError(TargetField::RedisServer, where + "EXISTS failed: " + has.str);
  // Not claimed yet: the prefix must hold no key at all.
  const std::string pattern = redis_glob_escape(prefix) + "*";
  std::string cursor = "0";
  do {
    RedisReply r = c.command({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
    if (r.type == RedisReply::Type::Error)
      throw TargetError(TargetField::RedisServer, where + "SCAN failed: " + r.str);
    if (r.type != RedisReply::Type::Array || r.elements.size() != 2)
      throw TargetError(TargetField::RedisServer, where + "unexpected reply to SCAN");
    cursor = r.elements[0].str;
    for (const auto& k : r.elements[1].elements)
      if (k.str != mark && !(!slot_tag.empty() && k.str.starts_with(mark_stem + "{")))
        throw TargetError(TargetField::RedisPrefix,
                          where + "keys under the prefix '" + prefix + "' exist (e.g. '" + k.str +
                              "') and were not written by Perflab, which never writes or deletes "
                              "keys it does not own; choose a prefix no key uses yet "
                              "(--prefix PREFIX)");
  } while (cursor != "0");
  return true;
}

// Sets the mark; false when this call did not create it (it appeared meanwhile: Perflab's).
bool set_prefix_mark(RedisClient& c, const std::string& prefix, std::string_view slot_tag) {
  RedisReply set =
      c.command({"SET", prefix_mark(prefix, slot_tag),
                 "Perflab's key prefix: Perflab writes and deletes the keys under it", "NX"});
  if (set.type == RedisReply::Type::Error)
    throw TargetError(
        TargetField::RedisPrefix,
        redis_where(c) + "Perflab may not write under the prefix '" + prefix + "': " + set.str);
  return set.type == RedisReply::Type::Status;
}

}  // namespace

void redis_claim_prefix(RedisClient& c, const std::string& prefix, std::string_view slot_tag) {
  const PrefixNode node{&c, std::string(slot_tag)};
  redis_claim_prefix(std::span(&node, 1), prefix);
}

void redis_claim_prefix(std::span<const PrefixNode> nodes, const std::string& prefix) {
  std::vector<const PrefixNode*> unmarked;
  for (const auto& n : nodes)
    if (prefix_needs_mark(*n.client, prefix, n.slot_tag)) unmarked.push_back(&n);
  std::vector<const PrefixNode*> marked;
  try {
    for (const PrefixNode* n : unmarked)
      if (set_prefix_mark(*n->client, prefix, n->slot_tag)) marked.push_back(n);
  } catch (...) {
    for (const PrefixNode* n : marked) {
      try {
        n->client->command({"DEL", prefix_mark(prefix, n->slot_tag)});
      } catch (const RedisError&) {  // the node is gone: the refusal below says what failed
      }
    }
    throw;
  }
}

}  // namespace perflab
