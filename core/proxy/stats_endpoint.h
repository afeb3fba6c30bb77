#pragma once
// The proxy's statistics port (twemproxy's stats_port): its listener and the readers connected
// to it. Internal to perflab_proxy.
#include <memory>
#include <vector>

#include "proxy/conn.h"

namespace perflab::proxy {

struct StatsEndpoint {
  int port = -1;
  Conn listener{Kind::StatsListener};
  std::vector<std::unique_ptr<Conn>> readers;
};

}  // namespace perflab::proxy
