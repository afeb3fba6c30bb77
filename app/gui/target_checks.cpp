// What the targets page asks the servers (target_checks.h): connection tests and the managed
// servers' state.
#include "target_checks.h"

#include <future>

#include <QStringList>

#include "targets/postgres.h"
#include "targets/redis.h"
#include "targets/replication.h"

namespace perflab::gui {

QString explain_failure(const std::string& what) {
  QString m = QString::fromStdString(what);
  QString l = m.toLower();
  QString why;
  if (l.contains("refused"))
    why = "refused (nothing listens there)";
  else if (l.contains("translate host") || l.contains("name or service") ||
           l.contains("unknown host") || l.contains("temporary failure in name"))
    why = "unknown host";
  else if (l.contains("password") || l.contains("auth") || l.contains("noauth") ||
           l.contains("wrongpass"))
    why = "authentication failed";
  else if (l.contains("timeout") || l.contains("timed out"))
    why = "timeout";
  return why.isEmpty() ? m : why + " — " + m;
}

ManagedState query_managed_state(Targets& t) {
  ManagedState s;
  s.pg_external = t.config().pg_conninfo.has_value();
  s.redis_external = !t.config().redis_nodes.empty();
  s.external_standbys = t.config().pg_standby_conninfos.size();
  if (auto* pg = t.managed_postgres()) {
    s.pg_started = true;
    s.pg_running = pg->running();
    s.pg_port = pg->port();
    s.pg_version = QString::fromStdString(pg->version());
    s.pg_dir = QString::fromStdString(pg->data_dir().string());
  }
  for (auto* r : t.managed_redis())
    s.redis.push_back({r->port(), QString::fromStdString(r->version()), r->running()});
  for (auto* sb : t.managed_standbys())
    s.standbys.push_back({sb->port(), QString::fromStdString(sb->version()), sb->running()});
  if (auto p = t.managed_pgbouncer_state()) {
    s.pooler = ManagedState::Server{p->port, QString::fromStdString(p->version), p->running};
    s.pool_size = p->pool_size;
  }
  return s;
}

namespace {

QString state_word(bool running) {
  return running ? "running" : "stopped";
}

QString pool_text(int pool_size) {
  return QString("transaction mode, a pool of %1 server connection%2")
      .arg(pool_size)
      .arg(pool_size == 1 ? "" : "s");
}

// The hot standbys: started ones with their ports, the ones the run will start, or where they
// come from.
void describe_standbys(const ManagedState& s, const TargetNeeds& planned, QStringList& lines) {
  const std::size_t want = planned.pg_standbys;
  if (s.pg_external) {
    if (s.external_standbys > 0)
      lines << QString("Hot standbys: the %1 named below (their role checked before the run)")
                   .arg(s.external_standbys);
    else if (want > 0)
      lines << QString(
                   "Hot standbys: this run needs %1; name them below, beside the external "
                   "PostgreSQL")
                   .arg(want);
    return;
  }
  for (std::size_t i = 0; i < s.standbys.size(); ++i)
    lines << QString("Hot standby %1 of PostgreSQL %2: managed, %3 on 127.0.0.1:%4")
                 .arg(i + 1)
                 .arg(s.standbys[i].version, state_word(s.standbys[i].running))
                 .arg(s.standbys[i].port);
  if (want > s.standbys.size())
    lines << QString(
                 "Hot standbys: this run starts %1 of the managed PostgreSQL (streaming "
                 "replication; the standbys parameter)")
                 .arg(want - s.standbys.size());
  else if (want == 0 && s.standbys.empty())
    lines << "Hot standbys: none (started for the IO-list experiment's standby benchmark)";
}

void describe_pooler(const ManagedState& s, const TargetNeeds& planned, QStringList& lines) {
  if (s.pooler)
    lines << QString("%1: managed, %2 on 127.0.0.1:%3, %4")
                 .arg(s.pooler->version, state_word(s.pooler->running))
                 .arg(s.pooler->port)
                 .arg(pool_text(s.pool_size));
  if (!planned.pg_pooler) {
    if (!s.pooler)
      lines << "PgBouncer: none (started for the IO-list experiment's pooled benchmark)";
    return;
  }
  if (!s.pooler || (planned.pg_pool_size > 0 && planned.pg_pool_size != s.pool_size))
    lines << QString("PgBouncer: this run starts one in front of PostgreSQL, %1 (pool_size)")
                 .arg(planned.pg_pool_size > 0 ? pool_text(planned.pg_pool_size)
                                               : QString("transaction mode"));
}

}  // namespace

QString describe_managed_state(const ManagedState& s, const TargetNeeds& planned) {
  QStringList lines;
  if (s.pg_external)
    lines << "PostgreSQL: external (see below)";
  else if (!s.pg_started)
    lines << "PostgreSQL: managed, not started yet (starts on first use)";
  else
    lines << QString("PostgreSQL %1: managed, %2 on 127.0.0.1:%3 (data in %4)")
                 .arg(s.pg_version, state_word(s.pg_running))
                 .arg(s.pg_port)
                 .arg(s.pg_dir);
  describe_standbys(s, planned, lines);
  describe_pooler(s, planned, lines);
  if (s.redis_external)
    lines << "Redis: external (see below)";
  else if (s.redis.empty())
    lines << "Redis: managed, not started yet (starts on first use)";
  else
    for (const auto& r : s.redis)
      lines << QString("Redis %1: managed, %2 on 127.0.0.1:%3")
                   .arg(r.version, state_word(r.running))
                   .arg(r.port);
  return lines.join('\n');
}

ConnectionResult test_postgres_connection(const TargetsForm& f, std::shared_ptr<Targets> t) {
  try {
    std::string conninfo;
    QString prefix;
    if (f.pg_managed) {
      PgTarget pg = t->postgres();  // starts the managed server on first use
      conninfo = pg.conninfo;
      prefix = "managed ";
    } else {
      conninfo = pg_conninfo(f);
    }
    // A frozen server is given up on after the shortest statement timeout plus the slack.
    PgConnection c(conninfo, PgLimits{kAnswerWithinMs / 1000, std::chrono::seconds(1)});
    std::string v = c.server_version_string();
    return {true,
            QString("%1PostgreSQL %2 at %3")
                .arg(prefix, QString::fromStdString(v), QString::fromStdString(c.describe()))};
  } catch (const std::exception& e) {
    return {false, explain_failure(e.what())};
  }
}

ConnectionResult test_standby_connections(const TargetsForm& f, std::shared_ptr<Targets>) {
  try {
    if (f.pg_managed)
      return {false,
              "standbys are named beside an external PostgreSQL; with a managed one Perflab "
              "starts its own"};
    const std::vector<std::string> standbys = pg_standby_conninfos(f);
    if (standbys.empty()) return {false, "no standby named: one conninfo a line"};
    const PgLimits limits{kAnswerWithinMs / 1000, std::chrono::seconds(1)};
    // The primary and every standby at once, so that the answer comes within one timeout.
    auto primary = std::async(std::launch::async,
                              [c = pg_conninfo(f), limits] { return PgConnection(c, limits); });
    std::vector<std::future<PgConnection>> connecting;
    for (const auto& s : standbys)
      connecting.push_back(
          std::async(std::launch::async, [s, limits] { return PgConnection(s, limits); }));
    PgConnection p = primary.get();
    QStringList lines;
    bool ok = true;
    for (std::size_t i = 0; i < standbys.size(); ++i) {
      const QString which = QString("standby %1").arg(i + 1);
      try {
        PgConnection c = connecting[i].get();
        const std::string why = pg_standby_refusal(c, p);
        if (!why.empty()) {
          ok = false;
          lines << QString("✘ %1: %2").arg(which, QString::fromStdString(why));
          continue;
        }
        const auto receiver = pg_wal_receiver(c);
        lines << QString("✔ %1: PostgreSQL %2 at %3, in recovery, %4")
                     .arg(which, QString::fromStdString(c.server_version_string()),
                          QString::fromStdString(c.describe()),
                          receiver ? "its WAL receiver " + QString::fromStdString(receiver->status)
                                   : QString("no WAL receiver now"));
      } catch (const std::exception& e) {
        ok = false;
        lines << QString("✘ %1: %2").arg(which, explain_failure(e.what()));
      }
    }
    return {ok, lines.join('\n')};
  } catch (const std::exception& e) {
    return {false, "the primary: " + explain_failure(e.what())};
  }
}

ConnectionResult test_redis_connection(const TargetsForm& f, std::shared_ptr<Targets> t) {
  try {
    std::vector<RedisEndpoint> nodes;
    QString prefix;
    if (f.redis_managed) {
      nodes = t->redis(1).nodes;
      prefix = "managed ";
    } else {
      nodes = redis_endpoints(f);
    }
    // All nodes at once, so the answer comes within one timeout.
    std::vector<std::future<std::string>> answers;
    for (const auto& n : nodes)
      answers.push_back(std::async(std::launch::async, [n] {
        RedisClient c(n, std::chrono::milliseconds(kAnswerWithinMs));
        return c.server_version();
      }));
    QStringList ok;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      ok << QString("%1Redis %2 at %3")
                .arg(prefix, QString::fromStdString(answers[i].get()),
                     QString::fromStdString(nodes[i].address()));
    return {true, ok.join("; ")};
  } catch (const std::exception& e) {
    return {false, explain_failure(e.what())};
  }
}

}  // namespace perflab::gui
