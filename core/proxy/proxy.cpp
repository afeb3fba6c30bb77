// The proxy's options read (write strategy, log level), its setup (nodes resolved, sockets bound),
// and the public Proxy class over Proxy::Impl.
#include "proxy/proxy.h"

#include <fcntl.h>
#include <netdb.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>

#include "proxy/cluster_upstream.h"
#include "proxy/proxy_impl.h"

namespace perflab::proxy {

const char* to_string(WriteStrategy w) {
  return w == WriteStrategy::Coalesced ? "coalesced" : "per-reply";
}

WriteStrategy parse_write_strategy(std::string_view s) {
  if (s == "coalesced") return WriteStrategy::Coalesced;
  if (s == "per-reply") return WriteStrategy::PerReply;
  throw std::invalid_argument("unknown write strategy '" + std::string(s) +
                              "' (expected coalesced or per-reply)");
}

const char* to_string(LogLevel l) {
  switch (l) {
    case LogLevel::Error:
      return "error";
    case LogLevel::Warn:
      return "warn";
    case LogLevel::Info:
      return "info";
    case LogLevel::Debug:
      return "debug";
  }
  return "?";
}

LogLevel parse_log_level(std::string_view s) {
  for (LogLevel l : {LogLevel::Error, LogLevel::Warn, LogLevel::Info, LogLevel::Debug})
    if (s == to_string(l)) return l;
  throw std::invalid_argument("unknown log level '" + std::string(s) +
                              "' (expected error, warn, info or debug)");
}

void Proxy::Impl::init() {
  std::vector<std::uint32_t> slot_owner;
  if (!opts.cluster.empty()) {
    if (!opts.nodes.empty())
      throw std::invalid_argument(
          "--cluster and --nodes exclude each other: the cluster's masters are the nodes");
    if (!opts.servers.empty())
      throw std::invalid_argument("a Redis Cluster routes by its slot map, not by servers");
    ClusterUpstream up = fetch_cluster_upstream(
        opts.cluster, opts.password,
        std::chrono::milliseconds(opts.backend_timeout_ms > 0 ? opts.backend_timeout_ms : 5000));
    opts.nodes = std::move(up.masters);
    slot_owner = std::move(up.slot_owner);
  }
  if (opts.nodes.empty()) throw std::invalid_argument("no nodes given (--nodes=h:p,h:p,...)");
  if (opts.port < 0 || opts.port > 65535)
    throw std::invalid_argument("port out of range: " + std::to_string(opts.port));
  if (opts.stats_port > 65535 || opts.stats_port < -1)
    throw std::invalid_argument("stats port out of range: " + std::to_string(opts.stats_port));
  if (opts.backend_timeout_ms < 0)
    throw std::invalid_argument("backend timeout below 0: " +
                                std::to_string(opts.backend_timeout_ms));
  if (opts.client_timeout_ms < 0)
    throw std::invalid_argument("client timeout below 0: " +
                                std::to_string(opts.client_timeout_ms));
  if (opts.db < 0) throw std::invalid_argument("database below 0: " + std::to_string(opts.db));
  if (!opts.servers.empty() && opts.servers.size() != opts.nodes.size())
    throw std::invalid_argument("server names and weights given for " +
                                std::to_string(opts.servers.size()) + " of " +
                                std::to_string(opts.nodes.size()) + " nodes");
  if (opts.servers.empty())
    for (const auto& n : opts.nodes) opts.servers.push_back({n.address(), 1});
  router = slot_owner.empty() ? Router(opts.routing, opts.servers)
                              : Router::cluster_slots(std::move(slot_owner), opts.nodes.size());
  hard_limit = std::max(2 * opts.max_client_pending_bytes,
                        opts.max_client_pending_bytes + std::size_t{16} * 1024 * 1024);
  for (const auto& n : opts.nodes) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    int rc = ::getaddrinfo(n.host.c_str(), std::to_string(n.port).c_str(), &hints, &res);
    if (rc != 0 || !res)
      throw std::runtime_error("cannot resolve node " + n.address() + ": " + gai_strerror(rc));
    sockaddr_storage ss{};
    std::memcpy(&ss, res->ai_addr, res->ai_addrlen);
    node_addrs.addrs.push_back(ss);
    node_addrs.addr_lens.push_back(res->ai_addrlen);
    ::freeaddrinfo(res);
    node_addrs.names.push_back(n.address());
    st.servers.push_back(std::make_unique<ServerCounters>());
  }
  logger.open(opts.log_file, opts.log_level);

  listener.open(opts, poller);
  stats.open(opts.bind, opts.stats_port, poller);
}

Proxy::Impl::~Impl() {
  memory.stop();
  close_shared();
  for (auto& c : clients.all()) close_fds(*c);
  stats.close_readers(poller);
}

void Proxy::Impl::log_start() {
  const auto& r = router.options();
  const std::string routing =
      router.uses_slots()
          ? std::string("a Redis Cluster's slot map (CRC16, {tag}; MOVED and ASK followed)")
          : "hash=" + std::string(to_string(r.hash)) +
                ", distribution=" + to_string(r.distribution) + ", hash tag " + r.tag.describe();
  log(LogLevel::Info, "listening on " + opts.bind + ":" + std::to_string(listener.port()) + ", " +
                          std::to_string(opts.nodes.size()) +
                          (router.uses_slots() ? " masters" : " nodes") +
                          ", write=" + to_string(opts.write) +
                          ", nodelay=" + (opts.nodelay ? "on" : "off") + ", " + routing);
  log(LogLevel::Info,
      "file descriptor limit " + std::to_string(listener.fd_limit()) + ": at most " +
          std::to_string(listener.max_clients()) + " clients at once (a client takes one, " +
          (opts.shared_backends ? "plus one per node once on connections of its own; "
                                : "plus one per node; ") +
          std::to_string(Listener::kSpareFds) +
          " kept spare), more get -ERR max number of clients reached");
  log(LogLevel::Info,
      std::string("clients ") +
          (opts.requirepass.empty() ? "need no password" : "must AUTH (requirepass)") +
          ", administrative commands " + (opts.allow_admin ? "allowed" : "refused") +
          ", backend timeout " +
          (opts.backend_timeout_ms > 0 ? std::to_string(opts.backend_timeout_ms) + " ms"
                                       : std::string("none")) +
          (stats.port() >= 0 ? ", statistics on port " + std::to_string(stats.port())
                             : std::string()));
  log(LogLevel::Info,
      "all clients together may hold " +
          (opts.max_client_memory > 0
               ? std::to_string(opts.max_client_memory) + " bytes (past it the largest are evicted)"
               : std::string("any amount (no bound)")) +
          ", client timeout " +
          (opts.client_timeout_ms > 0 ? std::to_string(opts.client_timeout_ms) + " ms"
                                      : std::string("none")));
  if (opts.requirepass.empty() && opts.protected_mode && !listener.bind_is_loopback())
    log(LogLevel::Warn, "no requirepass while listening on " + opts.bind +
                            ": protected mode, only loopback clients are served");
}

Proxy::Proxy(ProxyOptions opts) : impl_(std::make_unique<Impl>()) {
  impl_->opts = std::move(opts);
  impl_->secrets = {impl_->opts.password, impl_->opts.requirepass};
  impl_->init();
}

Proxy::~Proxy() {
  stop();
}

int Proxy::port() const {
  return impl_->listener.port();
}
int Proxy::stats_port() const {
  return impl_->stats.port();
}
const ProxyOptions& Proxy::options() const {
  return impl_->opts;
}

void Proxy::run() {
  impl_->loop();
}

void Proxy::start() {
  if (impl_->thread.joinable()) return;
  impl_->thread = std::thread([this] { impl_->loop(); });
}

void Proxy::request_stop() noexcept {
  impl_->stop_flag.store(true, std::memory_order_relaxed);
  impl_->poller.wake();
}

void Proxy::reopen_log() noexcept {
  impl_->logger.request_reopen();
  impl_->poller.wake();
}

void Proxy::change_log_level(int delta) noexcept {
  impl_->logger.request_level_change(delta);
  impl_->poller.wake();
}

void Proxy::log_fatal_signal(int sig) const noexcept {
  impl_->logger.fatal_signal(sig);
}

void Proxy::stop() {
  request_stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

ProxyStats Proxy::stats() const {
  return impl_->snapshot();
}

}  // namespace perflab::proxy
