#include "targets/managed_redis.h"

#include <signal.h>

#include <string>

#include "targets/child_process.h"
#include "targets/owned_folder.h"
#include "targets/redis.h"
#include "targets/server_binary.h"
#include "targets/server_start.h"

namespace fs = std::filesystem;

namespace perflab {

ManagedRedis::ManagedRedis(ManagedRedisOptions opts, std::stop_token stop) : opts_(opts) {
  if (opts_.cluster && opts_.cluster_node_timeout < std::chrono::milliseconds(100))
    throw ServerError("cluster-node-timeout must be at least 100 ms");
  find_server_binary("redis-server");  // a clear message before creating anything
  // As root, redis-server runs as the servers' own user: a local user who reaches it on
  // loopback (it has no password: see docs/safety.md) and escapes Lua's sandbox is not root.
  creds_ = unprivileged_credentials();
  dir_ = make_owned_folder(opts_.cluster ? "perflab-redis-cluster-" : "perflab-redis-", creds_);
  try {
    std::string last_error;
    for (int attempt = 0; attempt < 5; ++attempt) {
      port_ = free_loopback_port();
      if (opts_.cluster) do
          bus_port_ = free_loopback_port();
        while (bus_port_ == port_);
      try {
        start(stop);
        return;
      } catch (const StartStopped&) {
        throw;
      } catch (const ServerError& e) {
        if (!log_mentions_port_in_use(dir_ / "redis.log")) throw;
        last_error = e.what();
        std::error_code ec;
        fs::remove(dir_ / "redis.log", ec);
        fs::remove(dir_ / "nodes.conf", ec);
      }
    }
    throw ServerError("could not start redis-server on a free port: " + last_error);
  } catch (...) {
    remove_folder(dir_);
    throw;
  }
}

void ManagedRedis::start(const std::stop_token& stop) {
  SpawnSpec spec;
  spec.exe = find_server_binary("redis-server");
  spec.args = {"--port",
               std::to_string(port_),
               "--bind",
               "127.0.0.1",
               "--save",
               "",
               "--appendonly",
               "no",
               "--daemonize",
               "no",
               "--dir",
               dir_.string(),
               "--logfile",
               "",  // stdout, into spec.log: opened by Perflab, the server may not create it
               "--protected-mode",
               "yes",
               "--shutdown-on-sigterm",
               "nosave now"};
  if (opts_.cluster)
    spec.args.insert(spec.args.end(), {"--cluster-enabled", "yes", "--cluster-port",
                                       std::to_string(bus_port_), "--cluster-config-file",
                                       (dir_ / "nodes.conf").string(), "--cluster-node-timeout",
                                       std::to_string(opts_.cluster_node_timeout.count())});
  spec.log = dir_ / "redis.log";
  spec.cwd = dir_;
  spec.creds = creds_;
  spec.death_signal = SIGTERM;
  pid_t pid = spawn(spec);
  const RedisEndpoint ep{"127.0.0.1", port_, {}};
  std::string version;
  int exit_status = 0;
  WaitResult w = wait_ready(
      pid, std::chrono::seconds(30),
      [&] {
        try {
          RedisClient c(ep, std::chrono::milliseconds(500), stop);
          RedisReply info = c.command({"INFO", "server"});
          // Ours, not another server that took the port meanwhile.
          if (info.str.find("process_id:" + std::to_string(pid) + "\r") == std::string::npos)
            return false;
          version = c.server_version();
          return true;
        } catch (const RedisError&) {
          return false;
        }
      },
      &exit_status, stop);
  if (w == WaitResult::Stopped) {
    stop_child(pid, SIGKILL, std::chrono::seconds(1));  // not answering yet: nothing to stop
    throw StartStopped("stopped while starting redis-server on port " + std::to_string(port_));
  }
  if (w == WaitResult::Exited)
    throw ServerError("redis-server " + describe_exit_status(exit_status) +
                      " during start on port " + std::to_string(port_) + "; " + log_tail(spec.log));
  if (w == WaitResult::TimedOut) {
    stop_child(pid, SIGKILL, std::chrono::seconds(1));
    throw ServerError("redis-server did not answer on 127.0.0.1:" + std::to_string(port_) +
                      " within 30 s; " + log_tail(spec.log));
  }
  pid_ = pid;
  version_ = version;
}

ManagedRedis::~ManagedRedis() {
  stop_child(pid_, SIGTERM, kRedisStopGrace);
  remove_folder(dir_);
}

bool ManagedRedis::running() const {
  return child_alive(pid_);
}

void ManagedRedis::kill_now() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  wait_exit(pid_, std::chrono::seconds(30));
  pid_ = -1;
}

void ManagedRedis::restart() {
  if (pid_ > 0) {
    stop_child(pid_, SIGTERM, kRedisStopGrace);
    pid_ = -1;
  }
  start();
}

}  // namespace perflab
