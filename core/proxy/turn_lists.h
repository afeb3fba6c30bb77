#pragma once
// What a loop turn leaves to its end: connections with output to flush, clients with new replies
// to drain, clients holding ready replies for the rest of their pipeline, and node connections
// whose send failed. Internal to perflab_proxy.
#include <vector>

namespace perflab::proxy {

struct Conn;
struct Client;
struct Backend;

struct TurnLists {
  std::vector<Conn*> dirty;
  std::vector<Client*> touched;
  std::vector<Client*> holding;  // in the order they began to hold
  std::vector<Backend*> broken;  // send failures, handled at the end of the turn
};

}  // namespace perflab::proxy
