#include "proxy/cluster_upstream.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "common/cluster_protocol.h"
#include "proxy/resp.h"

namespace perflab::proxy {
namespace {

using Clock = std::chrono::steady_clock;

class Socket {
 public:
  Socket(const RedisEndpoint& ep, Clock::time_point deadline) : deadline_(deadline) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    const int rc = ::getaddrinfo(ep.host.c_str(), std::to_string(ep.port).c_str(), &hints, &res);
    if (rc != 0 || !res)
      throw std::runtime_error(std::string("cannot resolve: ") + gai_strerror(rc));
    fd_ = ::socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const int c = fd_ < 0 ? -1 : ::connect(fd_, res->ai_addr, res->ai_addrlen);
    const int e = errno;
    ::freeaddrinfo(res);
    if (fd_ < 0 || (c != 0 && e != EINPROGRESS)) throw std::runtime_error(std::strerror(e));
    wait(POLLOUT);
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) throw std::runtime_error(std::strerror(err));
  }
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  // Sends a command and returns its complete reply.
  std::string exchange(const std::vector<std::string_view>& argv) {
    return exchange_command(fd_, argv, [this](short events) { wait(events); });
  }

 private:
  void wait(short events) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
    pollfd p{fd_, events, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0)
      throw std::runtime_error("no answer in time (timeout)");
  }
  int fd_ = -1;
  Clock::time_point deadline_;
};

// The proxy's RESP parse as the protocol's functions read it (strings stay in the reply).
ClusterReplyNode reply_node(const RespValue& reply) {
  return cluster_reply_node(reply, [](const RespValue& v) {
    using Type = ClusterReplyNode::Type;
    switch (v.type) {
      case RespValue::Type::Integer:
        return Type::Integer;
      case RespValue::Type::Bulk:
      case RespValue::Type::Status:
        return Type::String;
      case RespValue::Type::Array:
        return Type::Array;
      default:
        return Type::Other;
    }
  });
}

ClusterUpstream from_slots(const RespValue& v, const RedisEndpoint& asked) {
  if (v.type == RespValue::Type::Error) throw std::runtime_error(std::string(v.str));
  ClusterSlotMap map = cluster_slot_map(parse_cluster_slots(reply_node(v), asked.host));
  return {std::move(map.masters), std::move(map.slot_owner)};
}

}  // namespace

ClusterUpstream fetch_cluster_upstream(const std::vector<RedisEndpoint>& seeds,
                                       const std::string& password,
                                       std::chrono::milliseconds timeout) {
  std::string tried;
  for (const auto& seed : seeds) {
    try {
      Socket s(seed, Clock::now() + timeout);
      if (!password.empty()) {
        const std::string r = s.exchange({"AUTH", password});
        if (r.empty() || r[0] != '+') throw std::runtime_error("AUTH failed");
      }
      const std::string reply = s.exchange({"CLUSTER", "SLOTS"});
      RespValue v;
      if (!parse_reply(reply, v)) throw std::runtime_error("malformed reply to CLUSTER SLOTS");
      ClusterUpstream up = from_slots(v, seed);
      for (auto& m : up.masters) m.password = password;
      return up;
    } catch (const std::exception& e) {
      if (!tried.empty()) tried.append("; ");
      tried.append(seed.address()).append(": ").append(e.what());
    }
  }
  throw std::runtime_error("no Redis Cluster seed gave its slot map (" + tried + ")");
}

}  // namespace perflab::proxy
