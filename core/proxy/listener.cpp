// The proxy's listeners: clients accepted (or refused: out of descriptors, protected mode), the
// client limit from RLIMIT_NOFILE, and readers of the statistics port.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "proxy/proxy_impl.h"

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
    throw std::runtime_error("socket: " + errno_text(errno));
  }
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, res->ai_addr, res->ai_addrlen) != 0) {
    int e = errno;
    ::freeaddrinfo(res);
    ::close(fd);
    throw std::runtime_error("cannot bind " + host + ":" + std::to_string(port) + ": " +
                             errno_text(e));
  }
  ::freeaddrinfo(res);
  if (::listen(fd, 511) != 0) {
    int e = errno;
    ::close(fd);
    throw std::runtime_error("listen: " + errno_text(e));
  }
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  bound_port = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6&>(ss).sin6_port
                                              : reinterpret_cast<sockaddr_in&>(ss).sin_port);
  return fd;
}

// max_clients from RLIMIT_NOFILE: with shared backends a client takes one descriptor and the
// nodes one each; with connections of its own for every client, one plus one per node.
void Proxy::Impl::set_client_limit() {
  rlimit rl{};
  ::getrlimit(RLIMIT_NOFILE, &rl);
  limits.fd_limit = rl.rlim_cur == RLIM_INFINITY ? std::uint64_t{1} << 40 : rl.rlim_cur;
  const std::uint64_t nodes = opts.nodes.size();
  const std::uint64_t kept = kSpareFds + (opts.shared_backends ? nodes : 0);
  const std::uint64_t per_client = opts.shared_backends ? 1 : 1 + nodes;
  limits.max_clients = static_cast<std::size_t>(std::max<std::uint64_t>(
      1, limits.fd_limit > kept ? (limits.fd_limit - kept) / per_client : 0));
}

bool Proxy::Impl::bind_is_loopback() const {
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST;
  addrinfo* res = nullptr;
  if (::getaddrinfo(opts.bind.c_str(), nullptr, &hints, &res) != 0 || !res) return false;
  sockaddr_storage ss{};
  std::memcpy(&ss, res->ai_addr, res->ai_addrlen);
  ::freeaddrinfo(res);
  return is_loopback(ss);
}

void Proxy::Impl::log_fd_refusals() {
  log(LogLevel::Warn, "out of file descriptors (limit " + std::to_string(limits.fd_limit) +
                          ", at most " + std::to_string(limits.max_clients) +
                          " clients): refused " + std::to_string(limits.fd_refused_unlogged) +
                          " new clients with -ERR max number of clients reached");
  limits.fd_refused_unlogged = 0;
  limits.fd_log_ns = turn_ns;
}

// A client beyond max_clients, or one the last descriptor was given up for: told, closed,
// counted; the log says so at most once per 10 s.
void Proxy::Impl::refuse_client(int fd) {
  static const char msg[] = "-ERR max number of clients reached\r\n";
  ssize_t w = ::send(fd, msg, sizeof msg - 1, MSG_NOSIGNAL);
  (void)w;
  ::close(fd);
  st.clients_refused.add();
  limits.fd_refused_unlogged++;
  if (limits.fd_log_ns == 0 || turn_ns - limits.fd_log_ns >= 10'000'000'000) log_fd_refusals();
}

// Out of descriptors all the same (clients on connections of their own take more): the
// reserve is given up to accept the waiting client and refuse it, then taken again. The
// listener is thereby drained instead of staying readable (which would turn the loop into a
// busy one).
bool Proxy::Impl::refuse_for_lack_of_fds() {
  if (limits.reserve_fd < 0) return false;
  ::close(limits.reserve_fd);
  limits.reserve_fd = -1;
  int fd = ::accept4(listener.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd >= 0) refuse_client(fd);
  limits.reserve_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  return fd >= 0;
}

void Proxy::Impl::accept_clients() {
  for (int i = 0; i < 64; ++i) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    int fd = ::accept4(listener.fd, reinterpret_cast<sockaddr*>(&ss), &len,
                       SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE) {
        if (refuse_for_lack_of_fds()) continue;
        return;
      }
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED)
        log(LogLevel::Warn, "accept: " + errno_text(errno));
      return;
    }
    if (clients.size() >= limits.max_clients) {
      refuse_client(fd);
      continue;
    }
    if (opts.requirepass.empty() && opts.protected_mode && !limits.bind_loopback &&
        !is_loopback(ss)) {
      static const char msg[] =
          "-DENIED perflab-proxy is in protected mode: no password is set (--requirepass-file) "
          "and this client is not on the loopback interface\r\n";
      ssize_t w = ::send(fd, msg, sizeof msg - 1, MSG_NOSIGNAL);
      (void)w;
      ::close(fd);
      st.clients_refused.add();
      log(LogLevel::Warn, "protected mode: refused client " + peer_name(ss));
      continue;
    }
    set_nodelay(fd, opts.nodelay);
    auto c = std::make_unique<Client>(opts.limits);
    c->fd = fd;
    c->peer = peer_name(ss);
    c->backends.resize(opts.nodes.size());
    c->id = next_id++;
    c->last_io_ns = turn_ns;
    c->dedicated = !opts.shared_backends;
    c->authenticated = opts.requirepass.empty();
    c->parser.set_unauthenticated(!c->authenticated);
    c->reply_estimate = static_cast<double>(opts.max_client_pending_bytes) / 16;
    by_id[c->id] = c.get();
    add_fd(*c, EPOLLIN);
    log(LogLevel::Debug, "client " + c->peer + " connected");
    Client* raw = c.get();
    clients.emplace(raw, std::move(c));
    st.clients_accepted.add();
    st.clients_connected.add();
  }
}

void Proxy::Impl::accept_stats() {
  for (int i = 0; i < 16; ++i) {
    int fd = ::accept4(stats.listener.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    auto s = std::make_unique<Conn>(Kind::Stats);
    s->fd = fd;
    char host[256] = "";
    ::gethostname(host, sizeof host - 1);
    s->out = stats_json(snapshot(), host, static_cast<std::int64_t>(std::time(nullptr)));
    add_fd(*s, 0);
    Conn& ref = *s;
    stats.readers.push_back(std::move(s));
    flush(ref);
  }
}

}  // namespace perflab::proxy
