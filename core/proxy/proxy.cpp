#include "proxy/proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <ctime>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "common/clock.h"
#include "common/key_slot.h"
#include "common/text.h"
#include "proxy/cluster_upstream.h"
#include "proxy/merge.h"
#include "proxy/routing.h"

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

namespace {

constexpr std::uint64_t kInternal = ~std::uint64_t{0};  // a reply the proxy consumes (AUTH)
constexpr std::int64_t kForever = std::int64_t{1} << 62;

// A counter written by the loop thread only and read from any thread: a relaxed load and store,
// no locked instruction on the hot path.
struct Counter {
  std::atomic<std::uint64_t> v{0};
  void add(std::uint64_t n = 1) {
    v.store(v.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void sub(std::uint64_t n = 1) {
    v.store(v.load(std::memory_order_relaxed) - n, std::memory_order_relaxed);
  }
  std::uint64_t get() const { return v.load(std::memory_order_relaxed); }
};

struct ServerCounters {
  Counter eof, err, timedout, connections, requests, request_bytes, responses, response_bytes,
      in_queue_bytes, out_queue;
};

// A read buffer: bytes [start, end) are unread; compacting moves them to the front, which keeps
// offsets relative to the unread start valid (the parsers rely on that).
struct InBuf {
  std::string buf;
  std::size_t start = 0, end = 0;
  char* space(std::size_t min) {
    if (buf.size() - end < min) {
      if (start > 0) {
        std::memmove(buf.data(), buf.data() + start, end - start);
        end -= start;
        start = 0;
      }
      if (buf.size() - end < min) buf.resize(end + std::max(min, buf.size()));
    }
    return buf.data() + end;
  }
  std::string_view data() const { return {buf.data() + start, end - start}; }
  void consume(std::size_t n) {
    start += n;
    if (start == end) start = end = 0;
  }
  void clear() { start = end = 0; }
};

enum class Kind { Listener, StatsListener, Wake, Client, Backend, Stats };

struct Conn {
  explicit Conn(Kind k) : kind(k) {}
  Kind kind;
  int fd = -1;
  bool dead = false;
  bool dirty = false;        // has output to flush at the end of the loop turn
  bool want_write = false;   // the kernel buffer was full: waiting for EPOLLOUT
  std::uint32_t events = 0;  // registered with epoll
  std::string out;
  std::size_t out_off = 0;
  std::size_t pending_out() const { return out.size() - out_off; }
};

struct Part {
  std::uint32_t node = 0;
  bool done = false;
  std::string reply;
};

struct Pending {
  MergeMode merge = MergeMode::None;
  int remaining = 0;
  bool close_after = false;
  std::string immediate;  // a reply known at once (errors, QUIT)
  std::string name;       // command name, for merge errors
  std::vector<Part> parts;
  ReplyOrder order;  // MGET: key -> (part, index)
};

struct Client;

// A request part waiting for its reply on a backend connection.
struct Entry {
  std::uint64_t client;  // Client::id
  std::uint64_t seq;     // the client's request, or kInternal
  std::uint32_t part;
  std::int64_t extra_ns;  // a blocking command's own timeout, on top of the backend timeout
  // Over a Redis Cluster: the part's command, sent again when the node answers MOVED or ASK,
  // and how often it was redirected.
  std::string bytes = {};
  int redirects = 0;
};

constexpr int kMaxRedirects = 5;
constexpr std::uint32_t kInternalAsking = 2;  // kInternal part numbers: 0 AUTH, 1 SELECT

struct Backend : Conn {
  Backend(Client* o, std::uint32_t n) : Conn(Kind::Backend), owner(o), node(n) {}
  enum class State { Down, Connecting, Connected } state = State::Down;
  Client* owner;  // nullptr: shared by every client
  std::uint32_t node;
  InBuf in;
  ReplyScanner scanner;
  std::deque<Entry> fifo;
  std::int64_t progress_ns = 0;  // since when the FIFO's front has waited without a reply byte
  std::int64_t last_fail_ns = 0;
  bool connect_failed = false;  // the last connect failed: fail fast until reconnect_interval
  std::string connect_error;    // why it failed ("connect: Connection refused")
  bool ever_failed = false;
};

struct Client : Conn {
  explicit Client(const RespLimits& l) : Conn(Kind::Client), parser(l) {}
  std::uint64_t id = 0;
  bool authenticated = true;
  bool dedicated = false;    // uses backends of its own (after SELECT, blocking commands, admin)
  bool switch_wait = false;  // waits for its shared requests to finish before switching
  bool touched = false;      // has new replies to drain at the end of a backend read
  InBuf in;
  RequestParser parser;
  std::vector<std::unique_ptr<Backend>> backends;
  std::deque<Pending> pending;
  std::uint64_t head_seq = 0;  // seq of pending.front()
  std::size_t stored_bytes = 0;
  std::size_t inflight = 0;  // request parts sent to backends, reply not yet in
  // Recent reply size: jumps up to a larger reply at once, decays by 1/8 per smaller one. It
  // starts high, so that a new client has few requests in flight until its replies are known.
  double reply_estimate = 0;
  bool paused = false;   // not reading: too much in flight
  bool closing = false;  // not reading any more: close once the last reply is out
  // When its output last moved (or was empty): a client past the hard limit is disconnected
  // only once it has not read for kStallNs, so one large reply it does read is served.
  std::int64_t out_progress_ns = 0;
  std::string peer;
};

std::string errno_text(int e) {
  return std::strerror(e);
}

void set_nodelay(int fd, bool on) {
  int v = on ? 1 : 0;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, sizeof v);
}

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

// Compares without stopping at the first difference: the time taken does not tell how much of
// a guessed password was right.
bool same_secret(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

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

// A blocking command's timeout argument (seconds, fractions allowed) in nanoseconds; 0 seconds
// blocks for ever.
std::int64_t blocking_ns(const std::vector<std::string_view>& av, int at) {
  const std::int64_t i = at < 0 ? static_cast<std::int64_t>(av.size()) + at : at;
  if (i <= 0 || i >= static_cast<std::int64_t>(av.size())) return 0;
  std::string s(av[static_cast<std::size_t>(i)]);
  char* end = nullptr;
  const double secs = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || !(secs >= 0)) return 0;  // the node refuses it
  if (secs == 0 || secs > 1e9) return kForever;
  return static_cast<std::int64_t>(secs * 1e9);
}

}  // namespace

struct Proxy::Impl {
  ProxyOptions opts;
  Router router;
  std::vector<sockaddr_storage> addrs;
  std::vector<socklen_t> addr_lens;
  std::vector<std::string> node_names;
  int ep = -1;
  int wake_fd = -1;
  int reserve_fd = -1;  // a spare descriptor, given up to refuse clients when none is left
  int port = 0;
  int stats_port = -1;
  Conn listener{Kind::Listener};
  Conn stats_listener{Kind::StatsListener};
  Conn wake{Kind::Wake};
  std::thread thread;
  std::atomic<bool> stop_flag{false};
  std::atomic<bool> reopen_flag{false};
  std::atomic<int> level_delta{0};
  std::atomic<int> log_level{0};
  std::mutex log_mu;
  int log_fd = 2;
  std::int64_t started_ns = wall_ns();
  std::int64_t turn_ns = wall_ns();  // the time of this loop turn
  std::int64_t last_sweep_ns = 0;
  std::int64_t fd_log_ns = 0;             // last "out of descriptors" line
  std::uint64_t fd_refused_unlogged = 0;  // clients refused since
  std::size_t hard_limit = 0;
  bool bind_loopback = false;
  // Clients served at once: what the descriptor limit leaves once the nodes' connections and a
  // spare (Redis keeps 32 too) are set aside, so that a full house never starves the backends.
  std::size_t max_clients = 0;
  std::uint64_t fd_limit = 0;

  std::unordered_map<Client*, std::unique_ptr<Client>> clients;
  std::unordered_map<std::uint64_t, Client*> by_id;
  std::uint64_t next_id = 1;
  std::vector<std::unique_ptr<Backend>> shared;  // one per node, when opts.shared_backends
  std::vector<Client*> touched;
  std::vector<std::unique_ptr<Conn>> stats_conns;
  std::vector<std::unique_ptr<Client>> graveyard;
  std::vector<Conn*> dirty;
  std::vector<Backend*> broken;  // send failures, handled at the end of the turn
  std::vector<std::string_view> argv;
  KeySplit split;                         // scratch: key indices per node (or per slot)
  std::vector<std::uint32_t> split_node;  // scratch, over a cluster: the node of each group
  std::unordered_map<int, std::size_t> split_group;  // scratch, over a cluster: slot -> group
  std::vector<std::uint32_t> keys;                   // scratch: a command's key indices
  std::vector<std::string_view> reply_views;         // scratch: the parts' replies, for merging
  std::string scratch;

  Counter st_accepted, st_connected, st_refused, st_client_eof, st_client_err, st_requests,
      st_fragments, st_forward_error, st_proto, st_auth, st_refused_cmds, st_limit, st_backend,
      st_timeouts;
  std::vector<std::unique_ptr<ServerCounters>> server_st;

  // --- logging ---
  void log(LogLevel level, const std::string& msg) {
    if (static_cast<int>(level) > log_level.load(std::memory_order_relaxed)) return;
    char ts[32];
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    std::string line = std::string(ts) + " perflab-proxy[" + to_string(level) + "] " + msg + "\n";
    std::lock_guard<std::mutex> lock(log_mu);
    for (std::size_t off = 0; off < line.size();) {
      ssize_t n = ::write(log_fd, line.data() + off, line.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      off += static_cast<std::size_t>(n);
    }
  }

  int open_log_file() const {
    return ::open(opts.log_file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
  }

  void handle_signals() {
    if (reopen_flag.exchange(false)) {
      if (opts.log_file.empty()) {
        log(LogLevel::Info, "SIGHUP: logging to stderr, nothing to reopen");
      } else {
        int fd = open_log_file();
        if (fd < 0) {
          log(LogLevel::Error, "cannot reopen log file " + opts.log_file + ": " +
                                   errno_text(errno) + " (still writing to the old one)");
        } else {
          {
            std::lock_guard<std::mutex> lock(log_mu);
            if (log_fd != 2) ::close(log_fd);
            log_fd = fd;
          }
          log(LogLevel::Info, "log file reopened");
        }
      }
    }
    if (int d = level_delta.exchange(0); d != 0) {
      int l = std::clamp(log_level.load() + d, static_cast<int>(LogLevel::Error),
                         static_cast<int>(LogLevel::Debug));
      log_level.store(l);
      log(LogLevel::Error, std::string("log level now ") + to_string(static_cast<LogLevel>(l)));
    }
  }

  // --- epoll helpers ---
  void update_events(Conn& c) {
    if (c.fd < 0) return;
    std::uint32_t ev = 0;
    if (c.kind == Kind::Client) {
      auto& cl = static_cast<Client&>(c);
      if (!cl.paused && !cl.closing) ev |= EPOLLIN;
    } else if (c.kind == Kind::Backend) {
      auto& b = static_cast<Backend&>(c);
      ev |= EPOLLIN;
      if (b.state == Backend::State::Connecting) ev |= EPOLLOUT;
    } else if (c.kind != Kind::Stats) {
      ev |= EPOLLIN;
    }
    if (c.want_write) ev |= EPOLLOUT;
    if (ev == c.events) return;
    epoll_event e{};
    e.events = ev;
    e.data.ptr = &c;
    ::epoll_ctl(ep, EPOLL_CTL_MOD, c.fd, &e);
    c.events = ev;
  }

  void add_fd(Conn& c, std::uint32_t ev) {
    epoll_event e{};
    e.events = ev;
    e.data.ptr = &c;
    if (::epoll_ctl(ep, EPOLL_CTL_ADD, c.fd, &e) != 0)
      throw std::runtime_error("epoll_ctl: " + errno_text(errno));
    c.events = ev;
  }

  // --- setup ---
  void init() {
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
    if (opts.db < 0) throw std::invalid_argument("database below 0: " + std::to_string(opts.db));
    if (!opts.servers.empty() && opts.servers.size() != opts.nodes.size())
      throw std::invalid_argument("server names and weights given for " +
                                  std::to_string(opts.servers.size()) + " of " +
                                  std::to_string(opts.nodes.size()) + " nodes");
    if (opts.servers.empty())
      for (const auto& n : opts.nodes) opts.servers.push_back({n.address(), 1});
    router = slot_owner.empty() ? Router(opts.routing, opts.servers)
                                : Router::cluster_slots(std::move(slot_owner), opts.nodes.size());
    bind_loopback = bind_is_loopback();
    log_level.store(static_cast<int>(opts.log_level));
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
      addrs.push_back(ss);
      addr_lens.push_back(res->ai_addrlen);
      ::freeaddrinfo(res);
      node_names.push_back(n.address());
      server_st.push_back(std::make_unique<ServerCounters>());
    }
    if (!opts.log_file.empty()) {
      log_fd = open_log_file();
      if (log_fd < 0)
        throw std::runtime_error("cannot open log file " + opts.log_file + ": " +
                                 errno_text(errno));
    }

    listener.fd = listen_on(opts.bind, opts.port, port);
    if (opts.stats_port >= 0) stats_listener.fd = listen_on(opts.bind, opts.stats_port, stats_port);
    ep = ::epoll_create1(EPOLL_CLOEXEC);
    wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    reserve_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    set_client_limit();
    if (ep < 0 || wake_fd < 0) throw std::runtime_error("epoll/eventfd: " + errno_text(errno));
    wake.fd = wake_fd;
    add_fd(listener, EPOLLIN);
    add_fd(wake, EPOLLIN);
    if (stats_listener.fd >= 0) add_fd(stats_listener, EPOLLIN);
  }

  static constexpr std::uint64_t kSpareFds = 32;

  // max_clients from RLIMIT_NOFILE: with shared backends a client takes one descriptor and the
  // nodes one each; with connections of its own for every client, one plus one per node.
  void set_client_limit() {
    rlimit rl{};
    ::getrlimit(RLIMIT_NOFILE, &rl);
    fd_limit = rl.rlim_cur == RLIM_INFINITY ? std::uint64_t{1} << 40 : rl.rlim_cur;
    const std::uint64_t nodes = opts.nodes.size();
    const std::uint64_t kept = kSpareFds + (opts.shared_backends ? nodes : 0);
    const std::uint64_t per_client = opts.shared_backends ? 1 : 1 + nodes;
    max_clients = static_cast<std::size_t>(
        std::max<std::uint64_t>(1, fd_limit > kept ? (fd_limit - kept) / per_client : 0));
  }

  // Removes a socket from epoll before closing it. close() alone does not: while any other
  // reference to the socket exists (a child forked by another thread holds one until its exec),
  // epoll would keep reporting events carrying the pointer of a freed connection.
  void close_fd(Conn& c) {
    if (c.fd < 0) return;
    if (ep >= 0) ::epoll_ctl(ep, EPOLL_CTL_DEL, c.fd, nullptr);
    ::close(c.fd);
    c.fd = -1;
  }

  void close_backend_fd(Backend& b) {
    if (b.fd < 0) return;
    close_fd(b);
    server_st[b.node]->connections.sub();
  }

  void close_shared() {
    for (auto& b : shared)
      if (b && b->fd >= 0) {
        close_backend_fd(*b);
        b->dead = true;
      }
  }

  ~Impl() {
    close_shared();
    for (auto& [p, c] : clients) close_fds(*c);
    for (auto& s : stats_conns) close_fd(*s);
    if (listener.fd >= 0) ::close(listener.fd);
    if (stats_listener.fd >= 0) ::close(stats_listener.fd);
    if (wake_fd >= 0) ::close(wake_fd);
    if (reserve_fd >= 0) ::close(reserve_fd);
    if (ep >= 0) ::close(ep);
    if (log_fd != 2) ::close(log_fd);
  }

  // --- the loop ---
  void log_start() {
    const auto& r = router.options();
    const std::string routing =
        router.uses_slots()
            ? std::string("a Redis Cluster's slot map (CRC16, {tag}; MOVED and ASK followed)")
            : "hash=" + std::string(to_string(r.hash)) +
                  ", distribution=" + to_string(r.distribution) + ", hash tag " + r.tag.describe();
    log(LogLevel::Info, "listening on " + opts.bind + ":" + std::to_string(port) + ", " +
                            std::to_string(opts.nodes.size()) +
                            (router.uses_slots() ? " masters" : " nodes") +
                            ", write=" + to_string(opts.write) +
                            ", nodelay=" + (opts.nodelay ? "on" : "off") + ", " + routing);
    log(LogLevel::Info,
        "file descriptor limit " + std::to_string(fd_limit) + ": at most " +
            std::to_string(max_clients) + " clients at once (a client takes one, " +
            (opts.shared_backends ? "plus one per node once on connections of its own; "
                                  : "plus one per node; ") +
            std::to_string(kSpareFds) +
            " kept spare), more get -ERR max number of clients reached");
    log(LogLevel::Info,
        std::string("clients ") +
            (opts.requirepass.empty() ? "need no password" : "must AUTH (requirepass)") +
            ", administrative commands " + (opts.allow_admin ? "allowed" : "refused") +
            ", backend timeout " +
            (opts.backend_timeout_ms > 0 ? std::to_string(opts.backend_timeout_ms) + " ms"
                                         : std::string("none")) +
            (stats_port >= 0 ? ", statistics on port " + std::to_string(stats_port)
                             : std::string()));
    if (opts.requirepass.empty() && opts.protected_mode && !bind_loopback)
      log(LogLevel::Warn, "no requirepass while listening on " + opts.bind +
                              ": protected mode, only loopback clients are served");
  }

  bool bind_is_loopback() const {
    addrinfo hints{};
    hints.ai_flags = AI_NUMERICHOST;
    addrinfo* res = nullptr;
    if (::getaddrinfo(opts.bind.c_str(), nullptr, &hints, &res) != 0 || !res) return false;
    sockaddr_storage ss{};
    std::memcpy(&ss, res->ai_addr, res->ai_addrlen);
    ::freeaddrinfo(res);
    return is_loopback(ss);
  }

  void loop() {
    log_start();
    epoll_event events[256];
    while (!stop_flag.load(std::memory_order_relaxed)) {
      const int wait_ms = opts.backend_timeout_ms > 0 ? 100 : 1000;
      int n = ::epoll_wait(ep, events, 256, wait_ms);
      if (n < 0) {
        if (errno == EINTR) continue;
        log(LogLevel::Error, "epoll_wait: " + errno_text(errno));
        break;
      }
      turn_ns = wall_ns();
      for (int i = 0; i < n; ++i) {
        Conn* c = static_cast<Conn*>(events[i].data.ptr);
        std::uint32_t ev = events[i].events;
        if (c->dead) continue;
        switch (c->kind) {
          case Kind::Listener:
            accept_clients();
            break;
          case Kind::StatsListener:
            accept_stats();
            break;
          case Kind::Wake: {
            std::uint64_t v;
            while (::read(wake_fd, &v, sizeof v) > 0) {
            }
            handle_signals();
            break;
          }
          case Kind::Client:
            on_client_event(static_cast<Client&>(*c), ev);
            break;
          case Kind::Backend:
            on_backend_event(static_cast<Backend&>(*c), ev);
            break;
          case Kind::Stats:
            flush(*c);
            break;
        }
      }
      if (turn_ns - last_sweep_ns >= 100'000'000) {
        last_sweep_ns = turn_ns;
        check_timeouts();
        check_stalled_clients();
        if (fd_refused_unlogged > 0 && turn_ns - fd_log_ns >= 10'000'000'000) log_fd_refusals();
      }
      end_of_turn();
    }
    log(LogLevel::Info, "shutting down: closing " + std::to_string(clients.size()) + " clients");
    for (auto& [p, c] : clients) close_fds(*c);
    clients.clear();
    by_id.clear();
    graveyard.clear();
    close_shared();
  }

  void end_of_turn() {
    // Send failures seen during the turn.
    while (!broken.empty()) {
      auto list = std::move(broken);
      broken.clear();
      for (Backend* b : list)
        if (!b->dead && (!b->owner || !b->owner->dead)) backend_failed(*b, "send failed", false);
    }
    // Coalesced writes: one send per socket per turn.
    for (std::size_t i = 0; i < dirty.size(); ++i) {
      Conn* c = dirty[i];
      c->dirty = false;
      if (!c->dead) flush(*c);
    }
    dirty.clear();
    while (!broken.empty()) {
      auto list = std::move(broken);
      broken.clear();
      for (Backend* b : list)
        if (!b->dead && (!b->owner || !b->owner->dead)) backend_failed(*b, "send failed", false);
      for (Conn* c : dirty) {
        c->dirty = false;
        if (!c->dead) flush(*c);
      }
      dirty.clear();
    }
    graveyard.clear();
    std::erase_if(stats_conns, [](const std::unique_ptr<Conn>& s) { return s->dead; });
  }

  // --- accepting ---
  void log_fd_refusals() {
    log(LogLevel::Warn, "out of file descriptors (limit " + std::to_string(fd_limit) +
                            ", at most " + std::to_string(max_clients) + " clients): refused " +
                            std::to_string(fd_refused_unlogged) +
                            " new clients with -ERR max number of clients reached");
    fd_refused_unlogged = 0;
    fd_log_ns = turn_ns;
  }

  // A client beyond max_clients, or one the last descriptor was given up for: told, closed,
  // counted; the log says so at most once per 10 s.
  void refuse_client(int fd) {
    static const char msg[] = "-ERR max number of clients reached\r\n";
    ssize_t w = ::send(fd, msg, sizeof msg - 1, MSG_NOSIGNAL);
    (void)w;
    ::close(fd);
    st_refused.add();
    fd_refused_unlogged++;
    if (fd_log_ns == 0 || turn_ns - fd_log_ns >= 10'000'000'000) log_fd_refusals();
  }

  // Out of descriptors all the same (clients on connections of their own take more): the
  // reserve is given up to accept the waiting client and refuse it, then taken again. The
  // listener is thereby drained instead of staying readable (which would turn the loop into a
  // busy one).
  bool refuse_for_lack_of_fds() {
    if (reserve_fd < 0) return false;
    ::close(reserve_fd);
    reserve_fd = -1;
    int fd = ::accept4(listener.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) refuse_client(fd);
    reserve_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    return fd >= 0;
  }

  void accept_clients() {
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
      if (clients.size() >= max_clients) {
        refuse_client(fd);
        continue;
      }
      if (opts.requirepass.empty() && opts.protected_mode && !bind_loopback && !is_loopback(ss)) {
        static const char msg[] =
            "-DENIED perflab-proxy is in protected mode: no password is set (--requirepass-file) "
            "and this client is not on the loopback interface\r\n";
        ssize_t w = ::send(fd, msg, sizeof msg - 1, MSG_NOSIGNAL);
        (void)w;
        ::close(fd);
        st_refused.add();
        log(LogLevel::Warn, "protected mode: refused client " + peer_name(ss));
        continue;
      }
      set_nodelay(fd, opts.nodelay);
      auto c = std::make_unique<Client>(opts.limits);
      c->fd = fd;
      c->peer = peer_name(ss);
      c->backends.resize(opts.nodes.size());
      c->id = next_id++;
      c->dedicated = !opts.shared_backends;
      c->authenticated = opts.requirepass.empty();
      c->parser.set_unauthenticated(!c->authenticated);
      c->reply_estimate = static_cast<double>(opts.max_client_pending_bytes) / 16;
      by_id[c->id] = c.get();
      add_fd(*c, EPOLLIN);
      log(LogLevel::Debug, "client " + c->peer + " connected");
      Client* raw = c.get();
      clients.emplace(raw, std::move(c));
      st_accepted.add();
      st_connected.add();
    }
  }

  void accept_stats() {
    for (int i = 0; i < 16; ++i) {
      int fd = ::accept4(stats_listener.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;
      auto s = std::make_unique<Conn>(Kind::Stats);
      s->fd = fd;
      char host[256] = "";
      ::gethostname(host, sizeof host - 1);
      s->out = stats_json(snapshot(), host, static_cast<std::int64_t>(std::time(nullptr)));
      add_fd(*s, 0);
      Conn& ref = *s;
      stats_conns.push_back(std::move(s));
      flush(ref);
    }
  }

  // --- output ---
  void flush(Conn& c) {
    if (c.fd < 0 || c.dead) return;
    if (c.kind == Kind::Backend && static_cast<Backend&>(c).state != Backend::State::Connected)
      return;
    while (c.out_off < c.out.size()) {
      ssize_t n = ::send(c.fd, c.out.data() + c.out_off, c.out.size() - c.out_off, MSG_NOSIGNAL);
      if (n > 0) {
        c.out_off += static_cast<std::size_t>(n);
        if (c.kind == Kind::Client) static_cast<Client&>(c).out_progress_ns = turn_ns;
        if (c.kind == Kind::Backend)
          server_st[static_cast<Backend&>(c).node]->in_queue_bytes.sub(static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        // What was sent goes: a slow reader's buffer holds only what it has not read.
        if (c.out_off >= 64 * 1024 && c.out_off * 2 >= c.out.size()) {
          c.out.erase(0, c.out_off);
          c.out_off = 0;
        }
        if (!c.want_write) {
          c.want_write = true;
          update_events(c);
        }
        return;
      }
      // A hard error.
      if (c.kind == Kind::Client) {
        st_client_err.add();
        close_client(static_cast<Client&>(c), "send: " + errno_text(errno));
      } else if (c.kind == Kind::Stats) {
        close_fd(c);
        c.dead = true;
      } else {
        auto& b = static_cast<Backend&>(c);
        server_st[b.node]->in_queue_bytes.sub(c.pending_out());
        c.out.clear();
        c.out_off = 0;
        broken.push_back(&b);
      }
      return;
    }
    c.out.clear();
    c.out_off = 0;
    if (c.out.capacity() > 1024 * 1024) std::string().swap(c.out);  // a burst's memory goes
    if (c.want_write) {
      c.want_write = false;
      update_events(c);
    }
    if (c.kind == Kind::Client) after_output(static_cast<Client&>(c));
    if (c.kind == Kind::Stats) {
      close_fd(c);
      c.dead = true;
    }
  }

  void queue_output(Conn& c) {
    if (opts.write == WriteStrategy::PerReply && !c.want_write) {
      flush(c);  // one send for this reply or command
    } else if (!c.dirty) {
      c.dirty = true;
      dirty.push_back(&c);
    }
  }

  void append_reply(Client& c, std::string_view bytes) {
    if (c.pending_out() == 0) c.out_progress_ns = turn_ns;
    c.out.append(bytes);
    queue_output(c);
  }

  // --- clients ---
  void close_fds(Client& c) {
    for (auto& b : c.backends)
      if (b && b->fd >= 0) {
        close_backend_fd(*b);
        b->dead = true;
      }
    close_fd(c);
    c.dead = true;
  }

  void close_client(Client& c, const std::string& why) {
    if (c.dead) return;
    log(LogLevel::Debug, "client " + c.peer + " closed: " + why);
    close_fds(c);
    by_id.erase(c.id);
    st_connected.sub();
    auto it = clients.find(&c);
    if (it != clients.end()) {
      graveyard.push_back(std::move(it->second));
      clients.erase(it);
    }
  }

  // Called when the client's output buffer is empty.
  void after_output(Client& c) {
    if (c.closing && c.pending.empty() && c.pending_out() == 0)
      close_client(c, "closed by request");
  }

  static constexpr std::int64_t kStallNs = 1'000'000'000;

  // Stops reading a client that holds, or will soon hold, too much; disconnects one that holds
  // far more than its bound (its replies were larger than expected) and does not read them.
  void check_pause(Client& c) {
    const std::size_t held = c.pending_out() + c.stored_bytes;
    if (held > hard_limit && c.pending_out() > 0 && turn_ns - c.out_progress_ns >= kStallNs) {
      st_limit.add();
      st_client_err.add();
      log(LogLevel::Warn, "client " + c.peer + " disconnected: " + std::to_string(held) +
                              " bytes of replies it does not read (limit " +
                              std::to_string(hard_limit) + ")");
      close_client(c, "output limit");
      return;
    }
    const double expected =
        static_cast<double>(held) + static_cast<double>(c.inflight) * c.reply_estimate;
    const auto bound = static_cast<double>(opts.max_client_pending_bytes);
    bool over = expected >= bound || c.pending.size() >= opts.max_client_pending_requests;
    bool under = expected <= bound / 2 && c.pending.size() <= opts.max_client_pending_requests / 2;
    if (!c.paused && over) {
      c.paused = true;
      update_events(c);
    } else if (c.paused && under) {
      c.paused = false;
      update_events(c);
      process_input(c);  // requests already read may be waiting
    }
  }

  void on_client_event(Client& c, std::uint32_t ev) {
    if (ev & EPOLLOUT) {
      flush(c);
      if (c.dead) return;
      check_pause(c);
      if (c.dead) return;
    }
    if (!(ev & (EPOLLIN | EPOLLHUP | EPOLLERR))) return;
    if (c.paused || c.closing) {
      if (ev & (EPOLLHUP | EPOLLERR)) {
        st_client_eof.add();
        close_client(c, "hung up");
      }
      return;
    }
    char* p = c.in.space(16 * 1024);
    std::size_t room = c.in.buf.size() - c.in.end;
    ssize_t n = ::recv(c.fd, p, room, 0);
    if (n == 0) {
      st_client_eof.add();
      close_client(c, "end of stream");
      return;
    }
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return;
      st_client_err.add();
      close_client(c, "recv: " + errno_text(errno));
      return;
    }
    c.in.end += static_cast<std::size_t>(n);
    process_input(c);
  }

  // Commands that need connections of the client's own: they change connection state (SELECT),
  // may block (BLPOP...), or are administrative (allowed).
  bool needs_dedicated(const CommandInfo& info) const {
    return info.dedicated && (info.cls != CommandClass::Admin || opts.allow_admin);
  }

  void process_input(Client& c) {
    while (!c.dead && !c.closing && !c.paused && !c.switch_wait && c.in.end > c.in.start) {
      std::string_view data = c.in.data();
      ParseResult r = c.parser.parse(data, argv);
      if (r.status == ParseStatus::Incomplete) break;
      if (r.status == ParseStatus::Error) {
        st_proto.add();
        st_client_err.add();
        log(LogLevel::Info, "client " + c.peer + ": " + r.error);
        Pending p;
        append_error(p.immediate, "ERR " + r.error);
        p.close_after = true;
        c.pending.push_back(std::move(p));
        c.closing = true;
        c.in.clear();
        update_events(c);
        break;
      }
      if (!argv.empty() && c.authenticated && !c.dedicated && needs_dedicated(classify(argv))) {
        if (!c.pending.empty()) {  // earlier requests still on shared connections: wait
          c.switch_wait = true;
          c.parser.reset();
          break;
        }
        c.dedicated = true;
      }
      if (!argv.empty()) {
        st_requests.add();
        dispatch(c, argv, data.substr(0, r.consumed));
      }
      c.in.consume(r.consumed);
      if (c.dead) return;
      check_pause(c);
    }
    if (!c.dead) drain(c);
  }

  void immediate(Client& c, std::string_view reply, bool close_after = false) {
    Pending p;
    p.immediate.assign(reply);
    p.close_after = close_after;
    c.pending.push_back(std::move(p));
  }

  void immediate_error(Client& c, const std::string& msg) {
    std::string r;
    append_error(r, msg);
    immediate(c, r);
  }

  void refuse(Client& c, const std::string& msg) {
    st_refused_cmds.add();
    immediate_error(c, msg);
  }

  // AUTH password, or AUTH default password: answered here, never forwarded.
  void auth(Client& c, const std::vector<std::string_view>& av) {
    if (av.size() > 3) {
      immediate_error(c, "ERR syntax error");
      return;
    }
    if (opts.requirepass.empty()) {
      immediate_error(c,
                      "ERR AUTH <password> called without any password configured for the "
                      "default user. Are you sure your configuration is correct?");
      return;
    }
    const bool user_ok = av.size() == 2 || av[1] == "default";
    if (user_ok && same_secret(av.back(), opts.requirepass)) {
      c.authenticated = true;
      c.parser.set_unauthenticated(false);
      immediate(c, "+OK\r\n");
      return;
    }
    st_auth.add();
    log(LogLevel::Warn, "client " + c.peer + ": wrong password");
    immediate_error(c, "WRONGPASS invalid username-password pair or user is disabled.");
  }

  void local(Client& c, const std::vector<std::string_view>& av) {
    const std::string name = to_upper(av[0]);
    if (name == "QUIT") {
      immediate(c, "+OK\r\n", true);
      c.closing = true;
      update_events(c);
    } else if (name == "AUTH") {
      auth(c, av);
    } else if (to_upper(av[1]) == "STATS" && av.size() == 2) {
      std::string r;
      append_bulk(r, stats_info(snapshot()));
      immediate(c, r);
    } else {
      immediate_error(
          c, "ERR unknown subcommand '" + std::string(av[1]) + "' of PROXY: try PROXY STATS");
    }
  }

  // Routes one command. raw is its bytes as received.
  void dispatch(Client& c, const std::vector<std::string_view>& av, std::string_view raw) {
    const CommandInfo info = classify(av);
    if (!c.authenticated && info.cls != CommandClass::Local) {
      refuse(c, "NOAUTH Authentication required.");
      return;
    }
    if (info.cls == CommandClass::Unsupported) {
      refuse(c, "ERR unsupported command '" + std::string(av[0]) + "'");
      return;
    }
    if (static_cast<int>(av.size()) < info.min_args ||
        (info.cls == CommandClass::Split && (av.size() - 1) % info.keys.step != 0)) {
      immediate_error(
          c, "ERR wrong number of arguments for '" + to_lower(command_name(av)) + "' command");
      return;
    }
    if (info.cls == CommandClass::Local) {
      if (!c.authenticated && to_upper(av[0]) == "PROXY") {
        refuse(c, "NOAUTH Authentication required.");
        return;
      }
      local(c, av);
      return;
    }
    if (info.cls == CommandClass::Admin) {
      if (!opts.allow_admin) {
        refuse(c, "ERR '" + command_name(av) +
                      "' is an administrative command: perflab-proxy refuses it (start it with "
                      "--allow-admin to send it to every node)");
        return;
      }
      if (info.merge == MergeMode::None) {
        refuse(c, "ERR '" + command_name(av) +
                      "' cannot go through perflab-proxy: it turns the connection into a stream");
        return;
      }
    }
    // Inline commands are re-encoded; multibulk ones are forwarded as received.
    std::string encoded;
    if (raw.empty() || raw[0] != '*') {
      append_command(encoded, av);
      raw = encoded;
    }
    const std::uint64_t seq = c.head_seq + c.pending.size();
    switch (info.cls) {
      case CommandClass::Keyed:
        keyed(c, seq, info, av, raw);
        return;
      case CommandClass::Broadcast:
      case CommandClass::Admin: {
        const std::size_t nodes = opts.nodes.size();
        Pending p;
        p.merge = info.merge;
        p.name = command_name(av);
        p.parts.resize(nodes);
        p.remaining = static_cast<int>(nodes);
        for (std::size_t n = 0; n < nodes; ++n) p.parts[n].node = static_cast<std::uint32_t>(n);
        c.pending.push_back(std::move(p));
        st_fragments.add(nodes);
        for (std::size_t n = 0; n < nodes; ++n)
          send_part(c, seq, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n), raw);
        return;
      }
      case CommandClass::Split:
        split_command(c, seq, info, av, raw);
        return;
      case CommandClass::Local:
      case CommandClass::Unsupported:
        return;
    }
  }

  // A command whose keys must all be on one node: forwarded whole to it.
  void keyed(Client& c, std::uint64_t seq, const CommandInfo& info,
             const std::vector<std::string_view>& av, std::string_view raw) {
    const std::int64_t extra = info.timeout_at != 0 ? blocking_ns(av, info.timeout_at) : 0;
    if (!command_keys(info.keys, av, keys)) {
      single(c, seq, 0, raw, extra);  // a malformed key count: the node says what is wrong
      return;
    }
    if (keys.empty()) {
      refuse(c, "ERR '" + command_name(av) +
                    "' without keys cannot be routed by perflab-proxy: it needs a key to pick a "
                    "node");
      return;
    }
    // Over a cluster the keys must share a slot (the node refuses them otherwise), else a node.
    const bool slots = router.uses_slots();
    const auto where = [&](std::string_view k) {
      return slots ? static_cast<std::size_t>(cluster_key_slot(k)) : router.node(k);
    };
    const std::size_t node = router.node(av[keys[0]]);
    for (std::size_t i = 1; i < keys.size(); ++i)
      if (where(av[keys[i]]) != where(av[keys[0]])) {
        refuse(c, std::string("CROSSSLOT Keys in request don't hash to the same ") +
                      (slots ? "slot (" : "node (") + command_name(av) +
                      "): give them a common hash tag, e.g. " +
                      (router.options().tag.rule == HashTag::Rule::Pair
                           ? std::string{router.options().tag.open} + "user1" +
                                 router.options().tag.close + ":a"
                           : std::string("a{user1}")));
        return;
      }
    single(c, seq, node, raw, extra);
  }

  void split_command(Client& c, std::uint64_t seq, const CommandInfo& info,
                     const std::vector<std::string_view>& av, std::string_view raw) {
    const auto step = static_cast<std::size_t>(info.keys.step);
    if (router.uses_slots())
      split_by_slot(av, step);
    else
      split_keys(av, step, router, split);
    // The node of a group of keys: a node, or over a cluster a slot's owner.
    const auto node_of = [&](std::size_t g) {
      return router.uses_slots() ? split_node[g] : static_cast<std::uint32_t>(g);
    };
    const std::size_t nodes = split.by_node.size();
    if (split.used == 1) {  // every key on one node (one slot): the reply is already right
      single(c, seq, node_of(split.last), raw, 0);
      return;
    }
    Pending p;
    p.merge = info.merge;
    p.name = command_name(av);
    p.remaining = static_cast<int>(split.used);
    for (std::size_t n = 0; n < nodes; ++n)
      if (!split.by_node[n].empty()) p.parts.push_back(Part{node_of(n), false, {}});
    if (info.merge == MergeMode::Values) reply_order(split, step, p.order);
    c.pending.push_back(std::move(p));
    st_fragments.add(split.used);
    std::uint32_t part = 0;
    for (std::size_t n = 0; n < nodes; ++n) {
      if (split.by_node[n].empty()) continue;
      scratch.clear();
      append_node_command(scratch, av, split.by_node[n], step);
      send_part(c, seq, part++, node_of(n), scratch);
    }
  }

  // Over a cluster: the keys grouped by slot (a node refuses keys of several slots), groups in
  // the order their first key comes; split_node says where each group goes.
  void split_by_slot(const std::vector<std::string_view>& av, std::size_t step) {
    for (auto& v : split.by_node) v.clear();
    split.by_node.clear();
    split_node.clear();
    split_group.clear();
    for (std::size_t i = 1; i < av.size(); i += step) {
      const int slot = cluster_key_slot(av[i]);
      auto [it, added] = split_group.try_emplace(slot, split.by_node.size());
      if (added) {
        split.by_node.emplace_back();
        split_node.push_back(static_cast<std::uint32_t>(router.node(av[i])));
      }
      split.by_node[it->second].push_back(static_cast<std::uint32_t>(i));
    }
    split.used = split.by_node.size();
    split.last = split.used == 0 ? 0 : split.used - 1;
  }

  // Over a cluster: a node's MOVED (the slot is another node's now: the map is updated) or ASK
  // (this key is already at the migration's target: asked there once, with ASKING) sends the
  // part again. False when the reply is no redirection, or to a node the proxy does not know.
  bool follow_redirect(Client& c, const Entry& e, std::string_view reply) {
    const bool moved = reply.starts_with("-MOVED "), ask = reply.starts_with("-ASK ");
    if ((!moved && !ask) || e.redirects >= kMaxRedirects) return false;
    std::string_view rest = reply.substr(moved ? 7 : 5);
    rest = rest.substr(0, rest.find('\r'));
    const auto space = rest.find(' ');
    if (space == std::string_view::npos) return false;
    int slot = -1;
    const std::string_view num = rest.substr(0, space);
    std::from_chars(num.data(), num.data() + num.size(), slot);
    const std::string_view to = rest.substr(space + 1);
    const auto known = std::find(node_names.begin(), node_names.end(), to);
    if (known == node_names.end()) {
      log(LogLevel::Warn, "slot " + std::string(num) + " is served by " + std::string(to) +
                              ", which is not one of the cluster's masters at start: the "
                              "client gets the redirection");
      return false;
    }
    const auto node = static_cast<std::uint32_t>(known - node_names.begin());
    if (moved) router.set_slot_owner(slot, node);
    pending_at(c, e.seq).parts[e.part].node = node;
    c.inflight--;
    send_part(c, e.seq, e.part, node, e.bytes, e.extra_ns, e.redirects + 1, ask);
    return true;
  }

  void single(Client& c, std::uint64_t seq, std::size_t node, std::string_view raw,
              std::int64_t extra_ns) {
    Pending p;
    p.parts.push_back(Part{static_cast<std::uint32_t>(node), false, {}});
    p.remaining = 1;
    c.pending.push_back(std::move(p));
    send_part(c, seq, 0, static_cast<std::uint32_t>(node), raw, extra_ns);
  }

  Pending& pending_at(Client& c, std::uint64_t seq) { return c.pending[seq - c.head_seq]; }

  void fail_part(Client& c, std::uint64_t seq, std::uint32_t part, const std::string& reply) {
    Pending& p = pending_at(c, seq);
    Part& pt = p.parts[part];
    if (pt.done) return;
    pt.done = true;
    pt.reply = reply;
    c.stored_bytes += reply.size();
    p.remaining--;
    st_forward_error.add();
  }

  // The one wording of every "this node cannot answer" error.
  std::string down_reply(std::uint32_t node, const std::string& why) {
    std::string r;
    append_error(r, "ERR node " + node_names[node] + " unavailable: " + why);
    return r;
  }

  void send_part(Client& c, std::uint64_t seq, std::uint32_t part, std::uint32_t node,
                 std::string_view bytes, std::int64_t extra_ns = 0, int redirects = 0,
                 bool asking = false) {
    if (!c.dedicated && shared.empty()) shared.resize(opts.nodes.size());
    auto& slot = c.dedicated ? c.backends[node] : shared[node];
    if (!slot) slot = std::make_unique<Backend>(c.dedicated ? &c : nullptr, node);
    Backend& b = *slot;
    if (b.state == Backend::State::Down) {
      if (b.connect_failed &&
          turn_ns - b.last_fail_ns < std::int64_t{opts.reconnect_interval_ms} * 1000000) {
        fail_part(c, seq, part,
                  down_reply(node, b.connect_error + " (next try within " +
                                       std::to_string(opts.reconnect_interval_ms) + " ms)"));
        return;
      }
      std::string why;
      if (!connect_backend(b, why)) {
        fail_part(c, seq, part, down_reply(node, why));
        return;
      }
    }
    if (asking) {
      append_command(b.out, {"ASKING"});
      push_entry(b, {0, kInternal, kInternalAsking, 0});
    }
    Entry e{c.id, seq, part, extra_ns};
    if (router.uses_slots()) e.bytes.assign(bytes), e.redirects = redirects;
    push_entry(b, e);
    b.out.append(bytes);
    c.inflight++;
    ServerCounters& s = *server_st[node];
    s.requests.add();
    s.request_bytes.add(bytes.size());
    s.in_queue_bytes.add(bytes.size());
    if (b.state == Backend::State::Connected) queue_output(b);
  }

  void push_entry(Backend& b, const Entry& e) {
    if (b.fifo.empty()) b.progress_ns = turn_ns;
    b.fifo.push_back(e);
    server_st[b.node]->out_queue.add();
  }

  bool connect_backend(Backend& b, std::string& why) {
    const auto& ss = addrs[b.node];
    int fd = ::socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      why = "socket: " + errno_text(errno);
      return false;
    }
    set_nodelay(fd, opts.nodelay);
    int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&ss), addr_lens[b.node]);
    if (rc != 0 && errno != EINPROGRESS) {
      why = "connect: " + errno_text(errno);
      ::close(fd);
      b.connect_failed = b.ever_failed = true;
      b.connect_error = why;
      b.last_fail_ns = turn_ns;
      st_backend.add();
      server_st[b.node]->err.add();
      log(LogLevel::Warn, "node " + node_names[b.node] + ": " + why);
      return false;
    }
    b.fd = fd;
    b.dead = false;
    b.out.clear();
    b.out_off = 0;
    b.want_write = false;
    b.in.clear();
    b.scanner.reset();
    b.state = rc == 0 ? Backend::State::Connected : Backend::State::Connecting;
    add_fd(b, b.state == Backend::State::Connecting ? (EPOLLIN | EPOLLOUT) : EPOLLIN);
    server_st[b.node]->connections.add();
    // Set up before any client's request: AUTH, then SELECT (their replies are consumed here).
    if (!opts.password.empty()) {
      append_command(b.out, {"AUTH", opts.password});
      push_entry(b, {0, kInternal, 0, 0});
    }
    if (opts.db != 0) {
      const std::string db = std::to_string(opts.db);
      append_command(b.out, {"SELECT", db});
      push_entry(b, {0, kInternal, 1, 0});
    }
    server_st[b.node]->in_queue_bytes.add(b.out.size());
    if (b.ever_failed) log(LogLevel::Info, "node " + node_names[b.node] + ": reconnecting");
    return true;
  }

  Client* client_of(const Backend& b, std::uint64_t id) {
    if (b.owner) return b.owner->dead ? nullptr : b.owner;
    auto it = by_id.find(id);
    return it == by_id.end() || it->second->dead ? nullptr : it->second;
  }

  void touch(Client& c) {
    if (!c.touched) {
      c.touched = true;
      touched.push_back(&c);
    }
  }

  void drain_touched() {
    auto list = std::move(touched);
    touched.clear();
    for (Client* c : list) {
      c->touched = false;
      if (!c->dead) drain(*c);
    }
  }

  // The connection is gone (or reset): every request waiting on it fails, and only those. A
  // connection that was lost is reconnected at the next request; only a failed connect makes
  // the node fail fast for reconnect_interval.
  void backend_failed(Backend& b, const std::string& why, bool eof) {
    st_backend.add();
    (eof ? server_st[b.node]->eof : server_st[b.node]->err).add();
    log(LogLevel::Warn, "node " + node_names[b.node] +
                            (b.owner ? " (client " + b.owner->peer + ")" : std::string()) + ": " +
                            why);
    if (b.state == Backend::State::Connecting) {
      b.connect_failed = true;
      b.connect_error = why;
      b.last_fail_ns = turn_ns;
    }
    close_backend_fd(b);
    b.events = 0;
    b.state = Backend::State::Down;
    b.ever_failed = true;
    server_st[b.node]->in_queue_bytes.sub(b.pending_out());
    b.out.clear();
    b.out_off = 0;
    b.want_write = false;
    b.in.clear();
    b.scanner.reset();
    std::string reply = down_reply(b.node, why);
    auto fifo = std::move(b.fifo);
    b.fifo.clear();
    server_st[b.node]->out_queue.sub(fifo.size());
    for (const Entry& e : fifo) {
      if (e.seq == kInternal) continue;
      Client* c = client_of(b, e.client);
      if (!c) continue;
      c->inflight--;
      fail_part(*c, e.seq, e.part, reply);
      touch(*c);
    }
    drain_touched();
  }

  // Clients past the hard limit: check_pause disconnects those that stopped reading.
  void check_stalled_clients() {
    std::vector<Client*> over;
    for (auto& [p, c] : clients)
      if (!c->dead && c->pending_out() + c->stored_bytes > hard_limit) over.push_back(c.get());
    for (Client* c : over) check_pause(*c);
  }

  // Resets backend connections whose oldest request has waited too long for its reply.
  void check_timeouts() {
    if (opts.backend_timeout_ms <= 0) return;
    const std::int64_t limit = std::int64_t{opts.backend_timeout_ms} * 1000000;
    auto check = [&](Backend* b) {
      if (!b || b->fd < 0 || b->dead || b->fifo.empty()) return;
      const std::int64_t extra = b->fifo.front().extra_ns;
      if (extra >= kForever || turn_ns - b->progress_ns <= limit + extra) return;
      st_timeouts.add();
      server_st[b->node]->timedout.add();
      backend_failed(*b,
                     "timed out: no reply within " + std::to_string(opts.backend_timeout_ms) +
                         " ms (--backend-timeout)",
                     false);
    };
    for (auto& b : shared) check(b.get());
    std::vector<Client*> dedicated;
    for (auto& [p, c] : clients)
      if (c->dedicated && !c->dead) dedicated.push_back(c.get());
    for (Client* c : dedicated)
      for (auto& b : c->backends)
        if (!c->dead) check(b.get());
  }

  void on_backend_event(Backend& b, std::uint32_t ev) {
    if (b.state == Backend::State::Connecting) {
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(b.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) {
        backend_failed(b, "connect: " + errno_text(err), false);
        return;
      }
      if (!(ev & (EPOLLOUT | EPOLLIN | EPOLLHUP | EPOLLERR))) return;
      if (ev & (EPOLLHUP | EPOLLERR)) {
        backend_failed(b, "connect failed", false);
        return;
      }
      b.state = Backend::State::Connected;
      b.connect_failed = false;
      update_events(b);
      queue_output(b);
      if (!(ev & EPOLLIN)) return;
    } else if (ev & EPOLLOUT) {
      flush(b);
      if (b.dead || b.state != Backend::State::Connected) return;
    }
    if (!(ev & (EPOLLIN | EPOLLHUP | EPOLLERR))) return;
    // Up to 256 KiB per event: large replies leave the kernel quickly, for every client's sake.
    for (int reads = 0; reads < 16; ++reads) {
      char* p = b.in.space(16 * 1024);
      std::size_t room = b.in.buf.size() - b.in.end;
      ssize_t n = ::recv(b.fd, p, room, 0);
      if (n == 0) {
        backend_failed(b, "connection closed by the server", true);
        return;
      }
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) break;
        backend_failed(b, "recv: " + errno_text(errno), false);
        return;
      }
      b.in.end += static_cast<std::size_t>(n);
      b.progress_ns = turn_ns;  // a large reply still arriving is not a frozen node
      if (!scan_replies(b)) return;
      if (static_cast<std::size_t>(n) < room) break;
    }
    drain_touched();
  }

  // Hands every complete reply in b.in to its client. False when the backend was failed.
  bool scan_replies(Backend& b) {
    for (;;) {
      std::string_view data = b.in.data();
      if (data.empty()) return true;
      ParseResult r = b.scanner.scan(data);
      if (r.status == ParseStatus::Incomplete) return true;
      if (r.status == ParseStatus::Error) {
        drain_touched();
        backend_failed(b, r.error, false);
        return false;
      }
      bool ok = on_backend_reply(b, data.substr(0, r.consumed));
      if (!ok || b.dead) return false;
      b.in.consume(r.consumed);
    }
  }

  // One complete reply from a backend. False when the backend was failed.
  bool on_backend_reply(Backend& b, std::string_view reply) {
    if (b.fifo.empty()) {
      backend_failed(b, "unexpected reply", false);
      return false;
    }
    const Entry e = b.fifo.front();
    b.fifo.pop_front();
    b.progress_ns = turn_ns;
    ServerCounters& s = *server_st[b.node];
    s.out_queue.sub();
    s.responses.add();
    s.response_bytes.add(reply.size());
    const std::uint64_t seq = e.seq;
    const std::uint32_t part = e.part;
    if (seq == kInternal) {
      if (reply.empty() || reply[0] != '+')
        log(LogLevel::Error, "node " + node_names[b.node] + ": " +
                                 (part == 0   ? "AUTH"
                                  : part == 1 ? "SELECT"
                                              : "ASKING") +
                                 " failed: " + std::string(reply.substr(0, reply.find('\r'))));
      return true;
    }
    Client* cp = client_of(b, e.client);
    if (!cp) return true;  // the client has gone: the reply is dropped
    Client& c = *cp;
    if (router.uses_slots() && reply.size() > 4 && reply[0] == '-' && follow_redirect(c, e, reply))
      return true;
    c.inflight--;
    const auto size = static_cast<double>(reply.size());
    c.reply_estimate = std::max(size, c.reply_estimate - (c.reply_estimate - size) / 8);
    Pending& p = pending_at(c, seq);
    // Fast path: the oldest request, answered by one node, goes straight out.
    if (seq == c.head_seq && p.merge == MergeMode::None && p.parts.size() == 1) {
      c.pending.pop_front();
      c.head_seq++;
      append_reply(c, reply);
      if (!c.dead) touch(c);
      return true;
    }
    Part& pt = p.parts[part];
    pt.done = true;
    pt.reply.assign(reply);
    c.stored_bytes += reply.size();
    p.remaining--;
    touch(c);
    return true;
  }

  // Sends every reply at the head of the FIFO that is complete.
  void drain(Client& c) {
    while (!c.dead && !c.pending.empty() && c.pending.front().remaining == 0) {
      Pending p = std::move(c.pending.front());
      c.pending.pop_front();
      c.head_seq++;
      for (auto& pt : p.parts) c.stored_bytes -= pt.reply.size();
      if (p.parts.empty()) {
        append_reply(c, p.immediate);
      } else {
        merge(p, scratch);
        append_reply(c, scratch);
      }
      if (c.dead) return;
      if (p.close_after) {
        c.closing = true;
        c.pending.clear();
        update_events(c);
        if (c.pending_out() == 0) after_output(c);
        return;
      }
    }
    if (c.dead) return;
    if (c.switch_wait && c.pending.empty()) {
      c.switch_wait = false;
      c.dedicated = true;
      process_input(c);
      return;
    }
    check_pause(c);
  }

  void merge(const Pending& p, std::string& out) {
    reply_views.clear();
    for (const auto& pt : p.parts) reply_views.push_back(pt.reply);
    merge_replies(p.merge, p.name, reply_views, p.order, out);
  }

  ProxyStats snapshot() const {
    ProxyStats s;
    s.pool = opts.pool;
    s.uptime_s = (wall_ns() - started_ns) / 1000000000;
    s.clients_accepted = st_accepted.get();
    s.clients_connected = st_connected.get();
    s.clients_refused = st_refused.get();
    s.client_eof = st_client_eof.get();
    s.client_err = st_client_err.get();
    s.requests = st_requests.get();
    s.fragments = st_fragments.get();
    s.forward_error = st_forward_error.get();
    s.protocol_errors = st_proto.get();
    s.auth_failures = st_auth.get();
    s.refused_commands = st_refused_cmds.get();
    s.client_limit_closes = st_limit.get();
    s.backend_failures = st_backend.get();
    s.backend_timeouts = st_timeouts.get();
    for (std::size_t i = 0; i < server_st.size(); ++i) {
      const ServerCounters& c = *server_st[i];
      ServerStats v;
      v.name = opts.servers.empty() ? node_names[i] : opts.servers[i].name;
      v.server_eof = c.eof.get();
      v.server_err = c.err.get();
      v.server_timedout = c.timedout.get();
      v.server_connections = c.connections.get();
      v.requests = c.requests.get();
      v.request_bytes = c.request_bytes.get();
      v.responses = c.responses.get();
      v.response_bytes = c.response_bytes.get();
      v.in_queue_bytes = c.in_queue_bytes.get();
      v.out_queue = c.out_queue.get();
      s.servers.push_back(std::move(v));
    }
    return s;
  }
};

Proxy::Proxy(ProxyOptions opts) : impl_(std::make_unique<Impl>()) {
  impl_->opts = std::move(opts);
  impl_->init();
}

Proxy::~Proxy() {
  stop();
}

int Proxy::port() const {
  return impl_->port;
}
int Proxy::stats_port() const {
  return impl_->stats_port;
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

namespace {
void wake_up(int fd) noexcept {
  std::uint64_t one = 1;
  if (fd >= 0) {
    ssize_t r = ::write(fd, &one, sizeof one);
    (void)r;
  }
}
}  // namespace

void Proxy::request_stop() noexcept {
  impl_->stop_flag.store(true, std::memory_order_relaxed);
  wake_up(impl_->wake_fd);
}

void Proxy::reopen_log() noexcept {
  impl_->reopen_flag.store(true);
  wake_up(impl_->wake_fd);
}

void Proxy::change_log_level(int delta) noexcept {
  impl_->level_delta.fetch_add(delta);
  wake_up(impl_->wake_fd);
}

void Proxy::stop() {
  request_stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

ProxyStats Proxy::stats() const {
  return impl_->snapshot();
}

}  // namespace perflab::proxy
