#pragma once
// The nodes the proxy connects to, resolved once at its start: each one's socket address and
// its name ("host:port") for replies, logs and statistics. Internal to perflab_proxy.
#include <sys/socket.h>

#include <string>
#include <vector>

namespace perflab::proxy {

struct NodeAddresses {
  std::vector<sockaddr_storage> addrs;
  std::vector<socklen_t> addr_lens;
  std::vector<std::string> names;
};

}  // namespace perflab::proxy
