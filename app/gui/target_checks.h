#pragma once
// What the targets page asks the servers, off the GUI thread: a connection test of PostgreSQL,
// its named hot standbys (their role checked) and Redis, and the managed servers' state with
// the standbys and the PgBouncer a run will start.
#include <memory>
#include <optional>
#include <vector>

#include <QString>

#include "targets_settings.h"

namespace perflab::gui {

// How long an external server has to answer a test.
inline constexpr int kAnswerWithinMs = 5000;

// A failure as a person reads it: a short reason first ("refused (nothing listens there)",
// "unknown host", "authentication failed", "timeout"), then the library's own words.
QString explain_failure(const std::string& what);

// The managed servers as they are now (gathered off the GUI thread: Targets may be busy
// starting one).
struct ManagedState {
  bool pg_external = false, redis_external = false;
  bool pg_started = false, pg_running = false;
  int pg_port = 0;
  QString pg_version, pg_dir;
  struct Server {
    int port = 0;
    QString version;
    bool running = false;
  };
  std::vector<Server> redis;
  std::vector<Server> standbys;  // managed hot standbys of the managed primary
  std::size_t external_standbys = 0;
  std::optional<Server> pooler;  // the managed PgBouncer
  int pool_size = 0;             // its server connections
};
ManagedState query_managed_state(Targets& t);
// One line a server. `planned`: what the chosen experiment and parameters will start (hot
// standbys, PgBouncer), said until it runs.
QString describe_managed_state(const ManagedState& s, const TargetNeeds& planned = {});

// The outcome of a connection test: ok + the server version, or a reason a person understands.
struct ConnectionResult {
  bool ok = false;
  QString text;
};
// All connect with a 5 s bound. Managed: starts the server if needed (may take longer).
ConnectionResult test_postgres_connection(const TargetsForm& f, std::shared_ptr<Targets> t);
ConnectionResult test_redis_connection(const TargetsForm& f, std::shared_ptr<Targets> t);
// The external standbys of the form, each beside the external primary: connected to, in
// recovery (pg_is_in_recovery()), a copy of that primary; one line each. Perflab changes
// nothing on either.
ConnectionResult test_standby_connections(const TargetsForm& f, std::shared_ptr<Targets> t);

}  // namespace perflab::gui
