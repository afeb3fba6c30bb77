#pragma once
// A managed PostgreSQL: a throwaway cluster Perflab initdb's into a folder of its own and runs
// on a free loopback port, stopped and removed with the object.
#include <sys/types.h>

#include <filesystem>
#include <stop_token>
#include <string>

#include "targets/server_error.h"

namespace perflab {

// Who connects to a managed PostgreSQL. Nobody without a password (scram-sha-256 on TCP and on
// its Unix socket, which is in its private folder): kPgSetupUser, the bootstrap superuser, sets
// the server up (its database and roles, its standbys' replication, ALTER SYSTEM); kPgUser
// measures: it owns Perflab's database (its schemas, tables, sessions' settings), is a member of
// pg_monitor (every pg_stat view and setting), and is no superuser. Its standbys have both roles
// from its catalog. Each password is random, drawn per managed server.
inline constexpr char kPgSetupUser[] = "perflab_setup";
inline constexpr char kPgUser[] = "perflab";
struct ManagedPgPasswords {
  std::string setup;  // kPgSetupUser's
  std::string user;   // kPgUser's
};
// The conninfo of a managed server on 127.0.0.1:port, password included (never record it: see
// redact_conninfo): kPgUser on Perflab's database, or with `setup` kPgSetupUser on postgres.
std::string managed_pg_conninfo(int port, const ManagedPgPasswords& passwords, bool setup = false);

struct ManagedPostgresOptions {
  // 1,000 direct clients of the pooled appends (iolist) plus peers and slack. The slots cost
  // shared memory: PostgreSQL 15 with 128 MB shared_buffers asks 192 MB for 1,100, 153 for 300.
  int max_connections = 1100;
  bool durable = true;  // false: fsync=off, synchronous_commit=off (tests only)
  std::string shared_buffers = "128MB";
};

// A managed PostgreSQL server once started, primary or standby: its folder, port, postmaster and
// roles' passwords. Stopped (immediate shutdown, SIGQUIT: its data is thrown away, no shutdown
// checkpoint to write and sync) and its folder removed on destruction.
class ManagedPgServer {
 public:
  ManagedPgServer(const ManagedPgServer&) = delete;
  ManagedPgServer& operator=(const ManagedPgServer&) = delete;

  // host=127.0.0.1 port=N dbname=perflab user=perflab password=...: what measures.
  std::string conninfo() const { return managed_pg_conninfo(port_, passwords_); }
  // The superuser on the postgres database, password included: for setting the server up only.
  std::string setup_conninfo() const { return managed_pg_conninfo(port_, passwords_, true); }
  const ManagedPgPasswords& passwords() const { return passwords_; }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }  // the postmaster
  std::string version() const { return version_; }
  // Its folder: the cluster in data/, the logs, the Unix socket.
  const std::filesystem::path& data_dir() const { return dir_; }
  bool running() const;

 protected:
  ManagedPgServer() = default;
  ~ManagedPgServer();
  // A start that failed: the server stopped and its folder removed now, nothing left for the
  // destructor.
  void discard();

  std::filesystem::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::string version_;
  ManagedPgPasswords passwords_;
};

// A throwaway PostgreSQL cluster: initdb into a folder Perflab owns, postgres on 127.0.0.1.
// When Perflab runs as root, initdb and postgres run as the unprivileged user "postgres". Only its
// roles' passwords let anyone in (see kPgSetupUser).
class ManagedPostgres : public ManagedPgServer {
 public:
  // Starts; throws ServerError, StartStopped when `stop` ends initdb or the wait for it to
  // answer (nothing is left behind).
  explicit ManagedPostgres(ManagedPostgresOptions opts = {}, std::stop_token stop = {});
};

}  // namespace perflab
