#pragma once
// A server address (host:port) as the user writes it: the Redis targets, the proxy's --nodes and
// the load generator all parse it here. No network code: nothing here connects.
#include <string>
#include <vector>

namespace perflab {

struct RedisEndpoint {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string password;  // in memory only; never written anywhere
  std::string address() const { return host + ":" + std::to_string(port); }  // no password
};

// Parses "host:port" (IPv6 as "[::1]:6379"; a bare "host" means port 6379); throws
// std::invalid_argument with the reason.
RedisEndpoint parse_redis_endpoint(const std::string& text);
// Parses "h:p,h:p,..." (RedisSharding's --nodes form).
std::vector<RedisEndpoint> parse_redis_nodes(const std::string& text);

}  // namespace perflab
