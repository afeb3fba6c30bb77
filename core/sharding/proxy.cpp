#include "sharding/proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "common/clock.h"
#include "common/text.h"
#include "sharding/merge.h"
#include "sharding/routing.h"

namespace perflab::sharding {

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

enum class Kind { Listener, Wake, Client, Backend };

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
};

struct Backend : Conn {
  Backend(Client* o, std::uint32_t n) : Conn(Kind::Backend), owner(o), node(n) {}
  enum class State { Down, Connecting, Connected } state = State::Down;
  Client* owner;  // nullptr: shared by every client
  std::uint32_t node;
  InBuf in;
  ReplyScanner scanner;
  std::deque<Entry> fifo;
  std::int64_t last_fail_ns = 0;
  bool ever_failed = false;
};

struct Client : Conn {
  explicit Client(const RespLimits& l) : Conn(Kind::Client), parser(l) {}
  std::uint64_t id = 0;
  bool dedicated = false;    // uses backends of its own (after SELECT, AUTH, BLPOP, BRPOP)
  bool switch_wait = false;  // waits for its shared requests to finish before switching
  bool touched = false;      // has new replies to drain at the end of a backend read
  InBuf in;
  RequestParser parser;
  std::vector<std::unique_ptr<Backend>> backends;
  std::deque<Pending> pending;
  std::uint64_t head_seq = 0;  // seq of pending.front()
  std::size_t stored_bytes = 0;
  bool paused = false;   // not reading: too much in flight
  bool closing = false;  // not reading any more: close once the last reply is out
  std::string peer;
};

std::string errno_text(int e) {
  return std::strerror(e);
}

void set_nodelay(int fd, bool on) {
  int v = on ? 1 : 0;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, sizeof v);
}

}  // namespace

struct Proxy::Impl {
  ProxyOptions opts;
  std::vector<sockaddr_storage> addrs;
  std::vector<socklen_t> addr_lens;
  std::vector<std::string> node_names;
  int ep = -1;
  int wake_fd = -1;
  int port = 0;
  Conn listener{Kind::Listener};
  Conn wake{Kind::Wake};
  std::thread thread;
  std::atomic<bool> stop_flag{false};
  std::mutex log_mu;

  std::unordered_map<Client*, std::unique_ptr<Client>> clients;
  std::unordered_map<std::uint64_t, Client*> by_id;
  std::uint64_t next_id = 1;
  std::vector<std::unique_ptr<Backend>> shared;  // one per node, when opts.shared_backends
  std::vector<Client*> touched;
  std::vector<std::unique_ptr<Client>> graveyard;
  std::vector<Conn*> dirty;
  std::vector<Backend*> broken;  // send failures, handled at the end of the turn
  std::vector<std::string_view> argv;
  KeySplit split;                             // scratch: key indices per node
  std::vector<std::string_view> reply_views;  // scratch: the parts' replies, for merging
  std::string scratch;

  std::atomic<std::uint64_t> st_accepted{0}, st_connected{0}, st_requests{0}, st_proto{0},
      st_backend{0};

  void log(LogLevel level, const std::string& msg) {
    if (level > opts.log_level) return;
    char ts[32];
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    std::lock_guard<std::mutex> lock(log_mu);
    std::cerr << ts << " perflab-proxy[" << to_string(level) << "] " << msg << "\n";
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
    } else {
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
    if (opts.nodes.empty()) throw std::invalid_argument("no nodes given (--nodes=h:p,h:p,...)");
    if (opts.port < 0 || opts.port > 65535)
      throw std::invalid_argument("port out of range: " + std::to_string(opts.port));
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
    }

    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST;
    addrinfo* res = nullptr;
    int rc = ::getaddrinfo(opts.bind.c_str(), std::to_string(opts.port).c_str(), &hints, &res);
    if (rc != 0 || !res)
      throw std::invalid_argument("bad bind address '" + opts.bind + "': " + gai_strerror(rc));
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
      throw std::runtime_error("cannot bind " + opts.bind + ":" + std::to_string(opts.port) + ": " +
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
    port = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6&>(ss).sin6_port
                                          : reinterpret_cast<sockaddr_in&>(ss).sin_port);
    listener.fd = fd;

    ep = ::epoll_create1(EPOLL_CLOEXEC);
    wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (ep < 0 || wake_fd < 0) throw std::runtime_error("epoll/eventfd: " + errno_text(errno));
    wake.fd = wake_fd;
    add_fd(listener, EPOLLIN);
    add_fd(wake, EPOLLIN);
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

  void close_shared() {
    for (auto& b : shared)
      if (b && b->fd >= 0) {
        close_fd(*b);
        b->dead = true;
      }
  }

  ~Impl() {
    close_shared();
    for (auto& [p, c] : clients) close_fds(*c);
    if (listener.fd >= 0) ::close(listener.fd);
    if (wake_fd >= 0) ::close(wake_fd);
    if (ep >= 0) ::close(ep);
  }

  // --- the loop ---
  void loop() {
    log(LogLevel::Info, "listening on " + opts.bind + ":" + std::to_string(port) + ", " +
                            std::to_string(opts.nodes.size()) + " nodes, write=" +
                            to_string(opts.write) + ", nodelay=" + (opts.nodelay ? "on" : "off"));
    epoll_event events[256];
    while (!stop_flag.load(std::memory_order_relaxed)) {
      int n = ::epoll_wait(ep, events, 256, 1000);
      if (n < 0) {
        if (errno == EINTR) continue;
        log(LogLevel::Error, "epoll_wait: " + errno_text(errno));
        break;
      }
      for (int i = 0; i < n; ++i) {
        Conn* c = static_cast<Conn*>(events[i].data.ptr);
        std::uint32_t ev = events[i].events;
        if (c->dead) continue;
        switch (c->kind) {
          case Kind::Listener:
            accept_clients();
            break;
          case Kind::Wake: {
            std::uint64_t v;
            while (::read(wake_fd, &v, sizeof v) > 0) {
            }
            break;
          }
          case Kind::Client:
            on_client_event(static_cast<Client&>(*c), ev);
            break;
          case Kind::Backend:
            on_backend_event(static_cast<Backend&>(*c), ev);
            break;
        }
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
        if (!b->dead && (!b->owner || !b->owner->dead)) backend_failed(*b, "send failed");
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
        if (!b->dead && (!b->owner || !b->owner->dead)) backend_failed(*b, "send failed");
      for (Conn* c : dirty) {
        c->dirty = false;
        if (!c->dead) flush(*c);
      }
      dirty.clear();
    }
    graveyard.clear();
  }

  void accept_clients() {
    for (int i = 0; i < 64; ++i) {
      sockaddr_storage ss{};
      socklen_t len = sizeof ss;
      int fd = ::accept4(listener.fd, reinterpret_cast<sockaddr*>(&ss), &len,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
          log(LogLevel::Warn, "accept: " + errno_text(errno));
        return;
      }
      set_nodelay(fd, opts.nodelay);
      auto c = std::make_unique<Client>(opts.limits);
      c->fd = fd;
      char host[64] = "?";
      if (ss.ss_family == AF_INET)
        ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in&>(ss).sin_addr, host, sizeof host);
      c->peer = std::string(host) + ":" +
                std::to_string(ntohs(reinterpret_cast<sockaddr_in&>(ss).sin_port));
      c->backends.resize(opts.nodes.size());
      c->id = next_id++;
      c->dedicated = !opts.shared_backends;
      by_id[c->id] = c.get();
      add_fd(*c, EPOLLIN);
      log(LogLevel::Debug, "client " + c->peer + " connected");
      Client* raw = c.get();
      clients.emplace(raw, std::move(c));
      st_accepted++;
      st_connected++;
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
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        if (!c.want_write) {
          c.want_write = true;
          update_events(c);
        }
        return;
      }
      // A hard error.
      if (c.kind == Kind::Client) {
        close_client(static_cast<Client&>(c), "send: " + errno_text(errno));
      } else {
        c.out.clear();
        c.out_off = 0;
        broken.push_back(&static_cast<Backend&>(c));
      }
      return;
    }
    c.out.clear();
    c.out_off = 0;
    if (c.want_write) {
      c.want_write = false;
      update_events(c);
    }
    if (c.kind == Kind::Client) after_output(static_cast<Client&>(c));
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
    c.out.append(bytes);
    queue_output(c);
  }

  // --- clients ---
  void close_fds(Client& c) {
    for (auto& b : c.backends)
      if (b && b->fd >= 0) {
        close_fd(*b);
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
    st_connected--;
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

  void check_pause(Client& c) {
    std::size_t held = c.pending_out() + c.stored_bytes;
    bool over = held > opts.max_client_pending_bytes ||
                c.pending.size() >= opts.max_client_pending_requests;
    bool under = held <= opts.max_client_pending_bytes / 2 &&
                 c.pending.size() <= opts.max_client_pending_requests / 2;
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
    }
    if (!(ev & (EPOLLIN | EPOLLHUP | EPOLLERR))) return;
    if (c.paused || c.closing) {
      if (ev & (EPOLLHUP | EPOLLERR)) close_client(c, "hung up");
      return;
    }
    char* p = c.in.space(16 * 1024);
    std::size_t room = c.in.buf.size() - c.in.end;
    ssize_t n = ::recv(c.fd, p, room, 0);
    if (n == 0) {
      close_client(c, "end of stream");
      return;
    }
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return;
      close_client(c, "recv: " + errno_text(errno));
      return;
    }
    c.in.end += static_cast<std::size_t>(n);
    process_input(c);
  }

  // Commands that need a connection of the client's own: they change its connection state or
  // block it.
  static bool needs_dedicated(const std::vector<std::string_view>& av) {
    CommandInfo info = classify(av[0]);
    if (info.cls == CommandClass::BlockingPop) return true;
    if (info.cls != CommandClass::Broadcast) return false;
    std::string n = to_upper(av[0]);
    return n == "SELECT" || n == "AUTH";
  }

  void process_input(Client& c) {
    while (!c.dead && !c.closing && !c.paused && !c.switch_wait && c.in.end > c.in.start) {
      std::string_view data = c.in.data();
      ParseResult r = c.parser.parse(data, argv);
      if (r.status == ParseStatus::Incomplete) break;
      if (r.status == ParseStatus::Error) {
        st_proto++;
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
      if (!argv.empty() && !c.dedicated && needs_dedicated(argv)) {
        if (!c.pending.empty()) {  // earlier requests still on shared connections: wait
          c.switch_wait = true;
          c.parser.reset();
          break;
        }
        c.dedicated = true;
      }
      if (!argv.empty()) {
        st_requests++;
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

  // Routes one command. raw is its bytes as received.
  void dispatch(Client& c, const std::vector<std::string_view>& av, std::string_view raw) {
    const std::size_t nodes = opts.nodes.size();
    CommandInfo info = classify(av[0]);
    if (info.cls == CommandClass::Unsupported) {
      immediate_error(c, "ERR unsupported command '" + std::string(av[0]) + "'");
      return;
    }
    if (static_cast<int>(av.size()) < info.min_args ||
        (info.cls == CommandClass::KeyValue && av.size() % 2 == 0)) {
      immediate_error(c, "ERR wrong number of arguments for '" + to_lower(av[0]) + "' command");
      return;
    }
    // Inline commands are re-encoded; multibulk ones are forwarded as received.
    std::string encoded;
    if (raw.empty() || raw[0] != '*') {
      append_command(encoded, av);
      raw = encoded;
    }
    const std::uint64_t seq = c.head_seq + c.pending.size();
    switch (info.cls) {
      case CommandClass::Local:  // QUIT
        immediate(c, "+OK\r\n", true);
        c.closing = true;
        update_events(c);
        return;
      case CommandClass::SingleKey:
        single(c, seq, node_for_key(av[1], nodes), raw);
        return;
      case CommandClass::BlockingPop:
        blocking_pop(c, seq, av, raw);
        return;
      case CommandClass::Broadcast:
        broadcast(c, seq, info, av, raw);
        return;
      case CommandClass::MultiKey:
      case CommandClass::KeyValue:
        split_command(c, seq, info, av, raw);
        return;
      case CommandClass::Unsupported:
        return;
    }
  }

  // BLPOP, BRPOP: forwarded whole when every key is on one node (a blocking pop cannot be
  // split).
  void blocking_pop(Client& c, std::uint64_t seq, const std::vector<std::string_view>& av,
                    std::string_view raw) {
    const std::size_t nodes = opts.nodes.size();
    const std::size_t node = node_for_key(av[1], nodes);
    for (std::size_t i = 2; i + 1 < av.size(); ++i)
      if (node_for_key(av[i], nodes) != node) {
        immediate_error(c, "ERR " + to_upper(av[0]) +
                               " keys are on different nodes: give them a common key tag, "
                               "e.g. list{tag}");
        return;
      }
    single(c, seq, node, raw);
  }

  // To every node; the replies are merged.
  void broadcast(Client& c, std::uint64_t seq, const CommandInfo& info,
                 const std::vector<std::string_view>& av, std::string_view raw) {
    const std::size_t nodes = opts.nodes.size();
    Pending p;
    p.merge = info.merge;
    p.name = to_upper(av[0]);
    p.parts.resize(nodes);
    p.remaining = static_cast<int>(nodes);
    for (std::size_t n = 0; n < nodes; ++n) p.parts[n].node = static_cast<std::uint32_t>(n);
    c.pending.push_back(std::move(p));
    for (std::size_t n = 0; n < nodes; ++n)
      send_part(c, seq, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n), raw);
  }

  // MGET, DEL, MSET...: one command per node that holds some of the keys (merge.h), or the
  // command as received when every key is on one node.
  void split_command(Client& c, std::uint64_t seq, const CommandInfo& info,
                     const std::vector<std::string_view>& av, std::string_view raw) {
    const std::size_t nodes = opts.nodes.size();
    const std::size_t step = info.cls == CommandClass::KeyValue ? 2 : 1;
    split_keys(av, step, nodes, split);
    if (split.used == 1) {  // the reply is already right
      single(c, seq, split.last, raw);
      return;
    }
    Pending p;
    p.merge = info.merge;
    p.name = to_upper(av[0]);
    p.remaining = static_cast<int>(split.used);
    for (std::size_t n = 0; n < nodes; ++n)
      if (!split.by_node[n].empty())
        p.parts.push_back(Part{static_cast<std::uint32_t>(n), false, {}});
    if (info.merge == MergeMode::Values) reply_order(split, step, p.order);
    c.pending.push_back(std::move(p));
    std::uint32_t part = 0;
    for (std::size_t n = 0; n < nodes; ++n) {
      if (split.by_node[n].empty()) continue;
      scratch.clear();
      append_node_command(scratch, av, split.by_node[n], step);
      send_part(c, seq, part++, static_cast<std::uint32_t>(n), scratch);
    }
  }

  void single(Client& c, std::uint64_t seq, std::size_t node, std::string_view raw) {
    Pending p;
    p.parts.push_back(Part{static_cast<std::uint32_t>(node), false, {}});
    p.remaining = 1;
    c.pending.push_back(std::move(p));
    send_part(c, seq, 0, static_cast<std::uint32_t>(node), raw);
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
  }

  std::string down_reply(std::uint32_t node, const std::string& why) {
    std::string r;
    append_error(r, "ERR node " + node_names[node] + " unavailable: " + why);
    return r;
  }

  void send_part(Client& c, std::uint64_t seq, std::uint32_t part, std::uint32_t node,
                 std::string_view bytes) {
    if (!c.dedicated && shared.empty()) shared.resize(opts.nodes.size());
    auto& slot = c.dedicated ? c.backends[node] : shared[node];
    if (!slot) slot = std::make_unique<Backend>(c.dedicated ? &c : nullptr, node);
    Backend& b = *slot;
    if (b.state == Backend::State::Down) {
      if (b.ever_failed &&
          wall_ns() - b.last_fail_ns < std::int64_t{opts.reconnect_interval_ms} * 1000000) {
        fail_part(c, seq, part, down_reply(node, "connection refused or lost (retrying)"));
        return;
      }
      std::string why;
      if (!connect_backend(b, why)) {
        fail_part(c, seq, part, down_reply(node, why));
        return;
      }
    }
    b.fifo.push_back({c.id, seq, part});
    b.out.append(bytes);
    if (b.state == Backend::State::Connected) queue_output(b);
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
      why = errno_text(errno);
      ::close(fd);
      b.ever_failed = true;
      b.last_fail_ns = wall_ns();
      st_backend++;
      log(LogLevel::Warn, "node " + node_names[b.node] + ": connect: " + why);
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
    if (!opts.password.empty()) {
      std::vector<std::string_view> auth{"AUTH", opts.password};
      append_command(b.out, auth);
      b.fifo.push_back({0, kInternal, 0});
    }
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

  void backend_failed(Backend& b, const std::string& why) {
    st_backend++;
    log(LogLevel::Warn, "node " + node_names[b.node] +
                            (b.owner ? " (client " + b.owner->peer + ")" : std::string()) + ": " +
                            why);
    close_fd(b);
    b.events = 0;
    b.state = Backend::State::Down;
    b.ever_failed = true;
    b.last_fail_ns = wall_ns();
    b.out.clear();
    b.out_off = 0;
    b.want_write = false;
    b.in.clear();
    b.scanner.reset();
    std::string reply = down_reply(b.node, why);
    auto fifo = std::move(b.fifo);
    b.fifo.clear();
    for (const Entry& e : fifo) {
      if (e.seq == kInternal) continue;
      Client* c = client_of(b, e.client);
      if (!c) continue;
      fail_part(*c, e.seq, e.part, reply);
      touch(*c);
    }
    drain_touched();
  }

  void on_backend_event(Backend& b, std::uint32_t ev) {
    if (b.state == Backend::State::Connecting) {
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(b.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) {
        backend_failed(b, "connect: " + errno_text(err));
        return;
      }
      if (!(ev & (EPOLLOUT | EPOLLIN | EPOLLHUP | EPOLLERR))) return;
      if (ev & (EPOLLHUP | EPOLLERR)) {
        backend_failed(b, "connect failed");
        return;
      }
      b.state = Backend::State::Connected;
      update_events(b);
      queue_output(b);
      if (!(ev & EPOLLIN)) return;
    } else if (ev & EPOLLOUT) {
      flush(b);
      if (b.dead || b.state != Backend::State::Connected) return;
    }
    if (!(ev & (EPOLLIN | EPOLLHUP | EPOLLERR))) return;
    char* p = b.in.space(16 * 1024);
    std::size_t room = b.in.buf.size() - b.in.end;
    ssize_t n = ::recv(b.fd, p, room, 0);
    if (n == 0) {
      backend_failed(b, "connection closed by the server");
      return;
    }
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return;
      backend_failed(b, "recv: " + errno_text(errno));
      return;
    }
    b.in.end += static_cast<std::size_t>(n);
    for (;;) {
      std::string_view data = b.in.data();
      if (data.empty()) break;
      ParseResult r = b.scanner.scan(data);
      if (r.status == ParseStatus::Incomplete) break;
      if (r.status == ParseStatus::Error) {
        drain_touched();
        backend_failed(b, r.error);
        return;
      }
      bool ok = on_backend_reply(b, data.substr(0, r.consumed));
      if (!ok || b.dead) break;
      b.in.consume(r.consumed);
    }
    drain_touched();
  }

  // One complete reply from a backend. False when the backend was failed.
  bool on_backend_reply(Backend& b, std::string_view reply) {
    if (b.fifo.empty()) {
      backend_failed(b, "unexpected reply");
      return false;
    }
    const Entry e = b.fifo.front();
    b.fifo.pop_front();
    const std::uint64_t seq = e.seq;
    const std::uint32_t part = e.part;
    if (seq == kInternal) {
      if (reply.empty() || reply[0] != '+')
        log(LogLevel::Error, "node " + node_names[b.node] + ": AUTH failed: " +
                                 std::string(reply.substr(0, reply.find('\r'))));
      return true;
    }
    Client* cp = client_of(b, e.client);
    if (!cp) return true;  // the client has gone: the reply is dropped
    Client& c = *cp;
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
  std::uint64_t one = 1;
  if (impl_->wake_fd >= 0) {
    ssize_t r = ::write(impl_->wake_fd, &one, sizeof one);
    (void)r;
  }
}

void Proxy::stop() {
  request_stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

ProxyStats Proxy::stats() const {
  ProxyStats s;
  s.clients_accepted = impl_->st_accepted.load();
  s.clients_connected = impl_->st_connected.load();
  s.requests = impl_->st_requests.load();
  s.protocol_errors = impl_->st_proto.load();
  s.backend_failures = impl_->st_backend.load();
  return s;
}

}  // namespace perflab::sharding
