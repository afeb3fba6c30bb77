// Streaming replication as Perflab reads it: roles, identities and replay positions
// (targets/replication.h).
#include "targets/replication.h"

#include <cstdint>
#include <cstdio>

#include "targets/server_start.h"

namespace perflab {

bool pg_in_recovery(PgConnection& conn) {
  return conn.exec("SELECT pg_is_in_recovery()").value(0, 0) == "t";
}

std::optional<std::string> pg_system_identifier(PgConnection& conn) {
  try {
    return std::string(
        conn.exec("SELECT system_identifier::text FROM pg_control_system()").value(0, 0));
  } catch (const PgError& e) {
    if (e.sqlstate() == "42501") return std::nullopt;  // insufficient privilege
    throw;
  }
}

std::string pg_standby_refusal(PgConnection& standby, PgConnection& primary) {
  if (!pg_in_recovery(standby))
    return standby.describe() +
           " is not a standby (pg_is_in_recovery() is false); name a hot standby of the "
           "primary, or none";
  if (pg_in_recovery(primary))
    return primary.describe() +
           " is itself a standby (pg_is_in_recovery() is true); name the "
           "primary as the PostgreSQL server";
  const auto a = pg_system_identifier(standby);
  const auto b = pg_system_identifier(primary);
  if (a && b && *a != *b)
    return standby.describe() + " is a standby of another cluster (system identifier " + *a +
           ", the primary's is " + *b + ")";
  return {};
}

std::optional<WalReceiver> pg_wal_receiver(PgConnection& standby) {
  PgResult r = standby.exec("SELECT pid, status FROM pg_stat_wal_receiver");
  if (r.rows() == 0 || r.is_null(0, 0)) return std::nullopt;
  return WalReceiver{std::stoi(std::string(r.value(0, 0))), std::string(r.value(0, 1))};
}

namespace {

// Where the primary's WAL ends as a standby's replay position can reach it: its insert position
// (what asynchronous commits have written too), without the page header it points past when it
// is at the start of a page (8 KiB pages, 16 MiB segments with a long header).
std::string replay_target(PgConnection& primary) {
  const std::string text(primary.exec("SELECT pg_current_wal_insert_lsn()::text").value(0, 0));
  const auto slash = text.find('/');
  std::uint64_t lsn = (std::stoull(text.substr(0, slash), nullptr, 16) << 32) |
                      std::stoull(text.substr(slash + 1), nullptr, 16);
  if (lsn % (16u << 20) == 40)
    lsn -= 40;
  else if (lsn % 8192 == 24)
    lsn -= 24;
  char out[32];
  std::snprintf(out, sizeof out, "%X/%X", unsigned(lsn >> 32), unsigned(lsn & 0xffffffffu));
  return out;
}

}  // namespace

void pg_wait_replayed(PgConnection& primary, PgConnection& standby, std::chrono::milliseconds limit,
                      std::stop_token stop) {
  const std::string lsn = replay_target(primary);
  PgParams p;
  p.add_text(lsn.c_str());
  const char* sql = "SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false)";
  const bool done = poll_until(std::chrono::steady_clock::now() + limit, [&] {
    return stop.stop_requested() || standby.exec_params(sql, p).value(0, 0) == "t";
  });
  if (stop.stop_requested()) throw PgError("stopped while waiting for " + standby.describe());
  if (!done)
    throw PgError(standby.describe() + " did not replay the primary's WAL up to " + lsn +
                  " within " + std::to_string(limit.count() / 1000) + " s");
}

SynchronousStandbys::SynchronousStandbys(const ManagedPostgres& primary, std::size_t count,
                                         std::chrono::milliseconds limit)
    : conn_(primary.setup_conninfo(), 5) {
  const std::string n = std::to_string(count);
  conn_.exec("ALTER SYSTEM SET synchronous_standby_names = 'ANY " + n + " (*)'");
  conn_.exec("SELECT pg_reload_conf()");
  const char* sql =
      "SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')";
  if (!poll_until(std::chrono::steady_clock::now() + limit,
                  [&] { return std::stoul(std::string(conn_.exec(sql).value(0, 0))) >= count; })) {
    conn_.exec("ALTER SYSTEM RESET synchronous_standby_names; SELECT pg_reload_conf()");
    throw PgError(conn_.describe() + ": " + n + " standbys did not become synchronous within " +
                  std::to_string(limit.count()) + " ms");
  }
}

SynchronousStandbys::~SynchronousStandbys() {
  try {
    conn_.exec("ALTER SYSTEM RESET synchronous_standby_names");
    conn_.exec("SELECT pg_reload_conf()");
  } catch (const PgError&) {  // the server is gone: nothing left to reset
  }
}

}  // namespace perflab
