#pragma once
// Streaming replication as Perflab reads it: a server's role (primary or hot standby), whether
// a standby is a copy of a given primary, and the bounded wait until a standby has replayed
// everything its primary has written so far; and, on a managed primary only, commits that wait
// for their standbys.
#include <chrono>
#include <cstddef>
#include <optional>
#include <stop_token>
#include <string>

#include "targets/managed_postgres.h"
#include "targets/postgres.h"

namespace perflab {

// pg_is_in_recovery(): a standby (or a server still recovering) answers true.
bool pg_in_recovery(PgConnection& conn);

// The cluster's system identifier (pg_control_system()), the same on a primary and every
// standby made from it; nullopt when the role may not read it.
std::optional<std::string> pg_system_identifier(PgConnection& conn);

// Why `standby` cannot be used as a standby of `primary`: not in recovery, or a copy of another
// cluster (when both identifiers can be read). Empty when it can. Throws PgError.
std::string pg_standby_refusal(PgConnection& standby, PgConnection& primary);

// The standby's WAL receiver: its pid and status ("streaming", ...); nullopt without one.
struct WalReceiver {
  int pid = 0;
  std::string status;
};
std::optional<WalReceiver> pg_wal_receiver(PgConnection& standby);

// Waits until the standby has replayed the primary's WAL up to where it is now (its insert
// position: asynchronous commits included). Throws PgError naming the standby when that takes
// longer than `limit` or a stop is requested.
void pg_wait_replayed(PgConnection& primary, PgConnection& standby, std::chrono::milliseconds limit,
                      std::stop_token stop = {});

// On a primary Perflab manages (never another's): commits that ask for it (synchronous_commit =
// remote_apply in their session) wait until `count` standbys have applied them, while the object
// lives (synchronous_standby_names = 'ANY count (*)' by ALTER SYSTEM and a reload); then the
// setting is reset. Sessions that should not wait set synchronous_commit = local. Throws
// PgError when the standbys are not synchronous within `limit`.
// ALTER SYSTEM and pg_reload_conf() need a superuser (PostgreSQL 15 can grant them, but an older
// server cannot): this connects as the primary's kPgSetupUser, the measuring role stays none.
class SynchronousStandbys {
 public:
  SynchronousStandbys(const ManagedPostgres& primary, std::size_t count,
                      std::chrono::milliseconds limit);
  ~SynchronousStandbys();
  SynchronousStandbys(const SynchronousStandbys&) = delete;
  SynchronousStandbys& operator=(const SynchronousStandbys&) = delete;

 private:
  PgConnection conn_;
};

}  // namespace perflab
