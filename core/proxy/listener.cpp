// The proxy's listening socket: clients taken or refused, the client limit from RLIMIT_NOFILE.
#include "proxy/listener.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace perflab::proxy {
namespace {

bool is_loopback(const sockaddr_storage& ss) {
  if (ss.ss_family == AF_INET)
    return (ntohl(reinterpret_cast<const sockaddr_in&>(ss).sin_addr.s_addr) >> 24) == 127;
  if (ss.ss_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6&>(ss).sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&a)) return true;
    return IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127;
  }
  return false;
}

bool is_loopback_address(const std::string& host) {
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0 || !res) return false;
  sockaddr_storage ss{};
  std::memcpy(&ss, res->ai_addr, res->ai_addrlen);
  ::freeaddrinfo(res);
  return is_loopback(ss);
}

std::string peer_name(const sockaddr_storage& ss) {
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (ss.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(ss);
    ::inet_ntop(AF_INET, &a.sin_addr, host, sizeof host);
    port = ntohs(a.sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(ss);
    ::inet_ntop(AF_INET6, &a.sin6_addr, host, sizeof host);
    port = ntohs(a.sin6_port);
  }
  return std::string(host) + ":" + std::to_string(port);
}

}  // namespace

// A listening TCP socket on host:port; throws with the reason.
int listen_on(const std::string& host, int port, int& bound_port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST;
  addrinfo* res = nullptr;
  int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (rc != 0 || !res)
    throw std::invalid_argument("bad bind address '" + host + "': " + gai_strerror(rc));
  int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    ::freeaddrinfo(res);
    throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  }
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, res->ai_addr, res->ai_addrlen) != 0) {
    int e = errno;
    ::freeaddrinfo(res);
    ::close(fd);
    throw std::runtime_error("cannot bind " + host + ":" + std::to_string(port) + ": " +
                             std::strerror(e));
  }
  ::freeaddrinfo(res);
  if (::listen(fd, 511) != 0) {
    int e = errno;
    ::close(fd);
    throw std::runtime_error(std::string("listen: ") + std::strerror(e));
  }
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  bound_port = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6&>(ss).sin6_port
                                              : reinterpret_cast<sockaddr_in&>(ss).sin_port);
  return fd;
}

Listener::~Listener() {
  if (conn_.fd >= 0) ::close(conn_.fd);
  if (reserve_fd_ >= 0) ::close(reserve_fd_);
}

// max_clients from RLIMIT_NOFILE: with shared backends a client takes one descriptor and the
// nodes one each; with connections of its own for every client, one plus one per node.
void Listener::open(const ProxyOptions& opts, Poller& poller) {
  bind_loopback_ = is_loopback_address(opts.bind);
  protect_ = opts.requirepass.empty() && opts.protected_mode && !bind_loopback_;
  conn_.fd = listen_on(opts.bind, opts.port, port_);
  reserve_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  rlimit rl{};
  ::getrlimit(RLIMIT_NOFILE, &rl);
  fd_limit_ = rl.rlim_cur == RLIM_INFINITY ? std::uint64_t{1} << 40 : rl.rlim_cur;
  const std::uint64_t nodes = opts.nodes.size();
  const std::uint64_t kept = kSpareFds + (opts.shared_backends ? nodes : 0);
  const std::uint64_t per_client = opts.shared_backends ? 1 : 1 + nodes;
  max_clients_ = static_cast<std::size_t>(
      std::max<std::uint64_t>(1, fd_limit_ > kept ? (fd_limit_ - kept) / per_client : 0));
  poller.add(conn_, EPOLLIN);
}

void Listener::log_refusals(std::int64_t now_ns) {
  log_.write(LogLevel::Warn, "out of file descriptors (limit " + std::to_string(fd_limit_) +
                                 ", at most " + std::to_string(max_clients_) +
                                 " clients): refused " + std::to_string(fd_refused_unlogged_) +
                                 " new clients with -ERR max number of clients reached");
  fd_refused_unlogged_ = 0;
  fd_log_ns_ = now_ns;
}

void Listener::log_refusals_due(std::int64_t now_ns) {
  if (fd_refused_unlogged_ > 0 && now_ns - fd_log_ns_ >= 10'000'000'000) log_refusals(now_ns);
}

// A client beyond max_clients, or one the last descriptor was given up for: told, closed,
// counted; the log says so at most once per 10 s.
void Listener::refuse(int fd, std::int64_t now_ns) {
  static const char msg[] = "-ERR max number of clients reached\r\n";
  ssize_t w = ::send(fd, msg, sizeof msg - 1, MSG_NOSIGNAL);
  (void)w;
  ::close(fd);
  st_.clients_refused.add();
  fd_refused_unlogged_++;
  if (fd_log_ns_ == 0 || now_ns - fd_log_ns_ >= 10'000'000'000) log_refusals(now_ns);
}

// Out of descriptors all the same (clients on connections of their own take more): the
// reserve is given up to accept the waiting client and refuse it, then taken again. The
// listener is thereby drained instead of staying readable (which would turn the loop into a
// busy one).
bool Listener::refuse_for_lack_of_fds(std::int64_t now_ns) {
  if (reserve_fd_ < 0) return false;
  ::close(reserve_fd_);
  reserve_fd_ = -1;
  int fd = ::accept4(conn_.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd >= 0) refuse(fd, now_ns);
  reserve_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  return fd >= 0;
}

void Listener::accept(std::size_t served, std::int64_t now_ns, std::vector<Accepted>& out) {
  for (int i = 0; i < 64; ++i) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    int fd =
        ::accept4(conn_.fd, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE) {
        if (refuse_for_lack_of_fds(now_ns)) continue;
        return;
      }
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED)
        log_.write(LogLevel::Warn, std::string("accept: ") + std::strerror(errno));
      return;
    }
    if (served + out.size() >= max_clients_) {
      refuse(fd, now_ns);
      continue;
    }
    if (protect_ && !is_loopback(ss)) {
      static const char msg[] =
          "-DENIED perflab-proxy is in protected mode: no password is set (--requirepass-file) "
          "and this client is not on the loopback interface\r\n";
      ssize_t w = ::send(fd, msg, sizeof msg - 1, MSG_NOSIGNAL);
      (void)w;
      ::close(fd);
      st_.clients_refused.add();
      log_.write(LogLevel::Warn, "protected mode: refused client " + peer_name(ss));
      continue;
    }
    out.push_back({fd, peer_name(ss)});
  }
}

}  // namespace perflab::proxy
