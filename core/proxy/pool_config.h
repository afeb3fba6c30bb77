#pragma once
// A twemproxy (nutcracker) configuration file, read so that perflab-proxy can stand in for one
// of its pools: the same servers in the same order, names and weights, hash, distribution and
// hash tag (so every key lands where twemproxy puts it), timeout, redis_auth and redis_db.
#include <string>
#include <vector>

#include "common/endpoint.h"
#include "proxy/hashkit.h"

namespace perflab::proxy {

struct PoolConfig {
  std::string name;
  std::string listen_host;  // from "listen: host:port"
  int listen_port = 0;
  RoutingOptions routing;  // twemproxy's defaults: fnv1a_64, ketama, no hash tag
  // In twemproxy's order: sorted by name (shorter first, then byte order), as it distributes.
  std::vector<RedisEndpoint> nodes;
  std::vector<PoolServer> servers;  // "host:port:weight [name]": ketama name and weight
  int timeout_ms = 0;               // `timeout:`; 0 when absent (twemproxy waits for ever)
  std::string redis_auth;           // clients must AUTH with it; also sent to the servers
  int redis_db = 0;
  // Settings read but not honoured, each as one line (auto_eject_hosts: true, ...).
  std::vector<std::string> notes;
};

// Parses the YAML text of a nutcracker configuration and returns pool `pool` (empty: the only
// pool of the file). Throws std::invalid_argument naming the file's problem: not YAML, no such
// pool (the pools it has are listed), a memcached pool, a bad server line, an unknown hash or
// distribution, a unix socket.
PoolConfig parse_nutcracker_pool(const std::string& yaml, const std::string& pool);
// Reads the file first; throws std::invalid_argument when it cannot be read.
PoolConfig read_nutcracker_pool(const std::string& path, const std::string& pool);

}  // namespace perflab::proxy
