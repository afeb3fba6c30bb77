#pragma once
// What the targets page edits: managed local servers (the default) or external PostgreSQL and
// Redis. Saved with QSettings — except passwords, which stay in memory only.
#include <stdexcept>
#include <string>

#include <QString>

#include "targets/targets.h"

class QSettings;

namespace perflab::gui {

struct TargetsForm {
  bool pg_managed = true;
  QString pg_host = "127.0.0.1";
  int pg_port = 5432;
  QString pg_database = "perflab";
  QString pg_user;
  QString pg_password;  // never saved; empty = libpq's ~/.pgpass or PGPASSWORD
  QString pg_sslmode = "prefer";
  QString pg_conninfo;  // raw conninfo/URI: when set, used instead of the fields
  QString pg_schema = "perflab";
  // External hot standbys of the external server, one conninfo a line (external mode only;
  // empty: none named). A password inside one is never saved.
  QString pg_standbys;

  bool redis_managed = true;
  QString redis_host = "127.0.0.1";
  int redis_port = 6379;
  QString redis_password;  // never saved
  QString redis_nodes;     // "h:p,h:p,…" shard nodes; when set, used instead of host/port
  QString redis_cluster;   // "h:p,h:p,…" seed nodes of an external Redis Cluster (external
                           // mode only); empty: a managed cluster
  QString redis_prefix = "perflab:";

  bool operator==(const TargetsForm&) const = default;
};

// A field of the form that cannot be used; the window shows the message beside that field.
class TargetsFormError : public std::invalid_argument {
 public:
  TargetsFormError(TargetField field, const std::string& msg)
      : std::invalid_argument(msg), field_(field) {}
  TargetField field() const { return field_; }

 private:
  TargetField field_;
};

// The PostgreSQL conninfo of the form (with the password when one was typed).
std::string pg_conninfo(const TargetsForm& f);
// The conninfos of the form's external standbys, one a line given, empty lines left out; a
// standby given no password takes the one typed for the server (a physical standby has the
// primary's roles). Throws std::invalid_argument naming the standby libpq cannot parse.
std::vector<std::string> pg_standby_conninfos(const TargetsForm& f);
// The Redis nodes of the form (password applied to each). Throws std::invalid_argument.
std::vector<RedisEndpoint> redis_endpoints(const TargetsForm& f);
// The configuration Targets is built from. Throws TargetsFormError on a bad field.
TargetsConfig to_config(const TargetsForm& f);

// QSettings group "targets"; passwords are neither written nor read, and a password inside a
// raw conninfo or a standby's conninfo is removed before saving.
void save_targets_form(QSettings& s, const TargetsForm& f);
TargetsForm load_targets_form(QSettings& s);

}  // namespace perflab::gui
