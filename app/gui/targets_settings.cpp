#include "targets_settings.h"

#include <stdexcept>

#include <QSettings>
#include <QStringList>

#include "targets/pg_conninfo.h"

namespace perflab::gui {

namespace {

// A conninfo value in single quotes, with ' and \ escaped (libpq's rules).
std::string quote(const QString& v) {
  std::string out = "'";
  for (char c : v.toStdString()) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

}  // namespace

std::string pg_conninfo(const TargetsForm& f) {
  if (!f.pg_conninfo.trimmed().isEmpty()) {
    std::string c = f.pg_conninfo.trimmed().toStdString();
    if (std::string why = pg_conninfo_refusal(c); !why.empty()) throw std::invalid_argument(why);
    return c;
  }
  if (f.pg_host.trimmed().isEmpty()) throw std::invalid_argument("PostgreSQL host is empty");
  if (f.pg_port < 1 || f.pg_port > 65535)
    throw std::invalid_argument("PostgreSQL port must be 1–65535");
  std::string c = "host=" + quote(f.pg_host.trimmed()) + " port=" + std::to_string(f.pg_port);
  if (!f.pg_database.trimmed().isEmpty()) c += " dbname=" + quote(f.pg_database.trimmed());
  if (!f.pg_user.trimmed().isEmpty()) c += " user=" + quote(f.pg_user.trimmed());
  if (!f.pg_sslmode.isEmpty()) c += " sslmode=" + quote(f.pg_sslmode);
  if (!f.pg_password.isEmpty()) c += " password=" + quote(f.pg_password);
  return c;
}

std::vector<std::string> pg_standby_conninfos(const TargetsForm& f) {
  std::vector<std::string> out;
  const bool typed = f.pg_conninfo.trimmed().isEmpty() && !f.pg_password.isEmpty();
  for (const QString& line : f.pg_standbys.split('\n')) {
    const std::string c = line.trimmed().toStdString();
    if (c.empty()) continue;
    if (std::string why = pg_conninfo_refusal(c); !why.empty())
      throw std::invalid_argument("standby " + std::to_string(out.size() + 1) + ": " + why);
    const ParsedConninfo parsed = parse_conninfo(c);
    if (parsed.password || !typed)
      out.push_back(c);
    else
      out.push_back(parsed.without_password + " password=" + quote(f.pg_password));
  }
  return out;
}

std::vector<RedisEndpoint> redis_endpoints(const TargetsForm& f) {
  std::vector<RedisEndpoint> nodes;
  if (!f.redis_nodes.trimmed().isEmpty()) {
    nodes = parse_redis_nodes(f.redis_nodes.trimmed().toStdString());
  } else {
    if (f.redis_host.trimmed().isEmpty()) throw std::invalid_argument("Redis host is empty");
    if (f.redis_port < 1 || f.redis_port > 65535)
      throw std::invalid_argument("Redis port must be 1–65535");
    nodes.push_back({f.redis_host.trimmed().toStdString(), f.redis_port, {}});
  }
  for (auto& n : nodes) n.password = f.redis_password.toStdString();
  return nodes;
}

TargetsConfig to_config(const TargetsForm& f) {
  TargetsConfig c;
  try {
    if (!f.pg_managed) c.pg_conninfo = pg_conninfo(f);
  } catch (const std::invalid_argument& e) {
    throw TargetsFormError(TargetField::PgServer, e.what());
  }
  try {
    if (!f.pg_managed) c.pg_standby_conninfos = pg_standby_conninfos(f);
  } catch (const std::invalid_argument& e) {
    throw TargetsFormError(TargetField::PgStandby, e.what());
  }
  try {
    if (!f.redis_managed) c.redis_nodes = redis_endpoints(f);
    if (!f.redis_managed && !f.redis_cluster.trimmed().isEmpty()) {
      c.redis_cluster = parse_redis_nodes(f.redis_cluster.trimmed().toStdString());
      for (auto& n : c.redis_cluster) n.password = f.redis_password.toStdString();
    }
  } catch (const std::invalid_argument& e) {
    throw TargetsFormError(TargetField::RedisServer, e.what());
  }
  if (f.pg_schema.trimmed().isEmpty())
    throw TargetsFormError(TargetField::PgSchema,
                           "the schema name is empty: Perflab needs a schema of its own");
  if (f.redis_prefix.isEmpty())
    throw TargetsFormError(TargetField::RedisPrefix,
                           "the Redis key prefix is empty: Perflab needs a prefix of its own "
                           "for its keys, never the whole server");
  c.pg_schema = f.pg_schema.trimmed().toStdString();
  c.redis_prefix = f.redis_prefix.toStdString();
  return c;
}

void save_targets_form(QSettings& s, const TargetsForm& f) {
  s.beginGroup("targets");
  s.setValue("pg_managed", f.pg_managed);
  s.setValue("pg_host", f.pg_host);
  s.setValue("pg_port", f.pg_port);
  s.setValue("pg_database", f.pg_database);
  s.setValue("pg_user", f.pg_user);
  s.setValue("pg_sslmode", f.pg_sslmode);
  s.setValue("pg_conninfo", QString::fromStdString(redact_conninfo(f.pg_conninfo.toStdString())));
  s.setValue("pg_schema", f.pg_schema);
  QStringList standbys;
  for (const QString& line : f.pg_standbys.split('\n'))
    if (!line.trimmed().isEmpty())
      standbys << QString::fromStdString(redact_conninfo(line.trimmed().toStdString()));
  s.setValue("pg_standbys", standbys.join('\n'));
  s.setValue("redis_managed", f.redis_managed);
  s.setValue("redis_host", f.redis_host);
  s.setValue("redis_port", f.redis_port);
  s.setValue("redis_nodes", f.redis_nodes);
  s.setValue("redis_cluster", f.redis_cluster);
  s.setValue("redis_prefix", f.redis_prefix);
  s.remove("pg_password");  // in case an older version ever wrote one
  s.remove("redis_password");
  s.endGroup();
}

TargetsForm load_targets_form(QSettings& s) {
  TargetsForm d, f;
  s.beginGroup("targets");
  f.pg_managed = s.value("pg_managed", d.pg_managed).toBool();
  f.pg_host = s.value("pg_host", d.pg_host).toString();
  f.pg_port = s.value("pg_port", d.pg_port).toInt();
  f.pg_database = s.value("pg_database", d.pg_database).toString();
  f.pg_user = s.value("pg_user", d.pg_user).toString();
  f.pg_sslmode = s.value("pg_sslmode", d.pg_sslmode).toString();
  f.pg_conninfo = s.value("pg_conninfo", d.pg_conninfo).toString();
  f.pg_schema = s.value("pg_schema", d.pg_schema).toString();
  f.pg_standbys = s.value("pg_standbys", d.pg_standbys).toString();
  f.redis_managed = s.value("redis_managed", d.redis_managed).toBool();
  f.redis_host = s.value("redis_host", d.redis_host).toString();
  f.redis_port = s.value("redis_port", d.redis_port).toInt();
  f.redis_nodes = s.value("redis_nodes", d.redis_nodes).toString();
  f.redis_cluster = s.value("redis_cluster", d.redis_cluster).toString();
  f.redis_prefix = s.value("redis_prefix", d.redis_prefix).toString();
  s.endGroup();
  return f;
}

}  // namespace perflab::gui
