#pragma once
// A managed PostgreSQL: a throwaway cluster Perflab initdb's into a folder of its own and runs
// on a free loopback port, stopped and removed with the object.
#include <sys/types.h>

#include <filesystem>
#include <stop_token>
#include <string>

#include "targets/server_error.h"

namespace perflab {

struct ManagedPostgresOptions {
  // 1,000 direct clients of the pooled appends (iolist) plus peers and slack. The slots cost
  // shared memory: PostgreSQL 15 with 128 MB shared_buffers asks 192 MB for 1,100, 153 for 300.
  int max_connections = 1100;
  bool durable = true;  // false: fsync=off, synchronous_commit=off (tests only)
  std::string shared_buffers = "128MB";
};

// A throwaway PostgreSQL cluster: initdb into a folder Perflab owns, postgres on 127.0.0.1.
// When Perflab runs as root, initdb and postgres run as an unprivileged user ("postgres" if it
// exists, else "nobody"). Stopped and its folder removed on destruction: immediate shutdown
// (SIGQUIT), since its data is thrown away (no shutdown checkpoint to write and sync).
class ManagedPostgres {
 public:
  // Starts; throws ServerError, StartStopped when `stop` ends initdb or the wait for it to
  // answer (nothing is left behind).
  explicit ManagedPostgres(ManagedPostgresOptions opts = {}, std::stop_token stop = {});
  ~ManagedPostgres();
  ManagedPostgres(const ManagedPostgres&) = delete;
  ManagedPostgres& operator=(const ManagedPostgres&) = delete;

  std::string conninfo() const;  // host=127.0.0.1 port=N dbname=perflab user=perflab
  int port() const { return port_; }
  pid_t pid() const { return pid_; }  // the postmaster
  std::string version() const { return version_; }
  // Its folder: the cluster in data/, the logs, the Unix socket.
  const std::filesystem::path& data_dir() const { return dir_; }
  bool running() const;

 private:
  std::filesystem::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::string version_;
};

}  // namespace perflab
