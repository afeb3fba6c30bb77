#pragma once
// What Perflab owns on a server: its PostgreSQL schema and its Redis key prefix, each carrying
// Perflab's mark from the moment Perflab creates (or claims) it. A schema that exists without
// the mark, or a prefix under which keys live without it, holds someone else's data: Perflab
// refuses it, with one line, before it writes anything, and never drops, truncates or deletes
// what it does not own.
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "targets/postgres.h"
#include "targets/redis.h"

namespace perflab {

// The part of the target configuration a refusal is about (the window shows it there).
enum class TargetField { PgServer, PgSchema, RedisServer, RedisPrefix, PgStandby };

// A target that cannot be used: unreachable, or a schema or prefix Perflab does not own. The
// message is one line naming the server and what to change.
class TargetError : public std::runtime_error {
 public:
  TargetError(TargetField field, const std::string& msg) : std::runtime_error(msg), field_(field) {}
  TargetField field() const { return field_; }

 private:
  TargetField field_;
};

// ---- PostgreSQL: COMMENT ON SCHEMA <schema> IS '<kSchemaMark>: ...'

inline constexpr std::string_view kSchemaMark = "perflab-owned-schema";

enum class SchemaState { Absent, Owned, Foreign };
SchemaState pg_schema_state(PgConnection& c, const std::string& schema);

// Creates the schema, marked, when it is absent; throws TargetError when it exists unmarked.
void pg_ensure_own_schema(PgConnection& c, const std::string& schema);
// Drops the schema with everything in it, only when it carries the mark, and creates it anew,
// marked (one transaction); throws TargetError when it exists unmarked.
void pg_reset_own_schema(PgConnection& c, const std::string& schema);
// The check before a run: the schema is Perflab's (or absent and creatable by this user), and
// this user may use, create in and drop it. Throws TargetError (PgSchema).
void pg_check_own_schema(PgConnection& c, const std::string& schema);

// ---- Redis: the key <prefix><kPrefixMarkKey> marks a prefix as Perflab's

inline constexpr std::string_view kPrefixMarkKey = "__perflab_owner__";

// s with Redis glob characters (* ? [ ] \) escaped, for SCAN MATCH.
std::string redis_glob_escape(std::string_view s);

// Claims the prefix on one node: its mark is there already, or no key lives under the prefix
// and the mark is set now. Throws TargetError (RedisPrefix) when keys Perflab did not write live
// under it or the node refuses writes under it; RedisError when the node does not answer.
// On a Redis Cluster master, `slot_tag` is a tag of one of its slots (cluster_tag_for_slot):
// the mark <prefix>__perflab_owner__{tag} then lives on that master, and every master carries
// one (marks of other masters count as Perflab's).
void redis_claim_prefix(RedisClient& c, const std::string& prefix, std::string_view slot_tag = {});

// One node of a claim over several: its client and, on a cluster master, its slot tag.
struct PrefixNode {
  RedisClient* client;
  std::string slot_tag;
};

// Claims the prefix on every node, or on none: every node is checked first (as
// redis_claim_prefix, nothing written), and only then are the missing marks set. When a node
// refuses the write, the marks this call set on the others are deleted again before the throw,
// so a refused claim leaves every server as it found it.
void redis_claim_prefix(std::span<const PrefixNode> nodes, const std::string& prefix);

}  // namespace perflab
