#include "targets/delay_relay.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>
#include <stdexcept>
#include <vector>

namespace perflab {
namespace {

using Clock = std::chrono::steady_clock;

// How long a connection to the server may take before the accepted client is dropped.
constexpr std::chrono::seconds kConnectTimeout{5};

void set_nonblocking(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// Bytes read from one side, delivered to the other at `due`.
struct Chunk {
  Clock::time_point due;
  std::vector<char> bytes;
  std::size_t sent = 0;
};

// One direction of a relayed connection.
struct Direction {
  int from = -1, to = -1;
  std::deque<Chunk> queue;
  std::size_t queued = 0;
  bool eof = false;   // `from` has no more to say
  bool shut = false;  // `to` was told so (after the queue drained)
  bool can_read() const { return !eof && queued < DelayRelay::kMaxQueuedBytes; }
  bool due(Clock::time_point now) const { return !queue.empty() && queue.front().due <= now; }
};

struct Pair {
  int client = -1, server = -1;
  Direction up, down;  // client -> server, server -> client
  bool broken = false;
  ~Pair() {
    if (client >= 0) close(client);
    if (server >= 0) close(server);
  }
  bool done() const { return broken || (up.shut && down.shut); }
};

// Reads what `d.from` has (once), queued for delivery after `delay`.
void read_side(Direction& d, std::chrono::nanoseconds delay, bool& broken) {
  char buf[64 * 1024];
  const ssize_t n = recv(d.from, buf, sizeof buf, 0);
  if (n > 0) {
    d.queue.push_back({Clock::now() + delay, std::vector<char>(buf, buf + n), 0});
    d.queued += static_cast<std::size_t>(n);
  } else if (n == 0) {
    d.eof = true;
  } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
    broken = true;
  }
}

// Sends the chunks that are due, as far as `d.to` takes them.
void write_side(Direction& d, bool& broken) {
  const auto now = Clock::now();
  while (d.due(now)) {
    Chunk& c = d.queue.front();
    const ssize_t n = send(d.to, c.bytes.data() + c.sent, c.bytes.size() - c.sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) broken = true;
      return;
    }
    c.sent += static_cast<std::size_t>(n);
    d.queued -= static_cast<std::size_t>(n);
    if (c.sent < c.bytes.size()) return;
    d.queue.pop_front();
  }
  if (d.eof && d.queue.empty() && !d.shut) {
    shutdown(d.to, SHUT_WR);
    d.shut = true;
  }
}

// A connected socket to host:port within kConnectTimeout, or -1.
int connect_to(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0) return -1;
  int fd = -1;
  for (addrinfo* a = res; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    set_nonblocking(fd);
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
      close(fd);
      fd = -1;
      continue;
    }
    pollfd p{fd, POLLOUT, 0};
    int err = 0;
    socklen_t len = sizeof err;
    if (poll(&p, 1, static_cast<int>(std::chrono::milliseconds(kConnectTimeout).count())) != 1 ||
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  if (fd >= 0) set_nodelay(fd);
  return fd;
}

}  // namespace

DelayRelay::DelayRelay(const std::string& host, int port, std::chrono::nanoseconds round_trip)
    : round_trip_(round_trip), target_host_(host), target_port_(port) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::runtime_error("relay: socket: " + std::string(strerror(errno)));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listen_fd_, 256) != 0 ||
      getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
      pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    const std::string why = strerror(errno);
    close(listen_fd_);
    if (wake_[0] >= 0) close(wake_[0]), close(wake_[1]);
    throw std::runtime_error("relay: cannot listen on 127.0.0.1: " + why);
  }
  set_nonblocking(listen_fd_);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { loop(); });
}

DelayRelay::~DelayRelay() {
  const char b = 1;
  [[maybe_unused]] const ssize_t n = write(wake_[1], &b, 1);
  thread_.join();
  close(listen_fd_);
  close(wake_[0]);
  close(wake_[1]);
}

void DelayRelay::loop() {
  const auto one_way = round_trip_ / 2;
  std::vector<std::unique_ptr<Pair>> pairs;
  std::vector<pollfd> fds;
  for (;;) {
    // What to wait for: the wake pipe, new connections, readable sides with room, writable
    // sides with a chunk due; and until the next chunk falls due.
    fds.assign({{wake_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}});
    auto next_due = Clock::time_point::max();
    const auto now = Clock::now();
    for (auto& p : pairs) {
      short client_events = 0, server_events = 0;
      if (p->up.can_read()) client_events |= POLLIN;
      if (p->down.can_read()) server_events |= POLLIN;
      for (Direction* d : {&p->up, &p->down}) {
        if (d->queue.empty()) continue;
        if (d->due(now))
          (d == &p->up ? server_events : client_events) |= POLLOUT;
        else
          next_due = std::min(next_due, d->queue.front().due);
      }
      fds.push_back({p->client, client_events, 0});
      fds.push_back({p->server, server_events, 0});
    }
    timespec ts{1, 0};
    if (next_due != Clock::time_point::max()) {
      const auto wait = std::max(Clock::duration::zero(), next_due - now);
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(wait).count();
      ts = {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    }
    if (ppoll(fds.data(), fds.size(), &ts, nullptr) < 0 && errno != EINTR) return;
    if (fds[0].revents) return;  // destroyed: every connection closes with `pairs`
    if (fds[1].revents & POLLIN) {
      for (;;) {
        const int c = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (c < 0) break;
        ++accepted_;
        auto p = std::make_unique<Pair>();
        p->client = c;
        set_nodelay(c);
        p->server = connect_to(target_host_, target_port_);
        if (p->server < 0) continue;  // the client sees its connection closed
        p->up.from = p->down.to = p->client;
        p->up.to = p->down.from = p->server;
        pairs.push_back(std::move(p));
      }
    }
    for (std::size_t i = 0; i + 2 < fds.size(); i += 2) {
      Pair& p = *pairs[i / 2];
      const short c = fds[i + 2].revents, s = fds[i + 3].revents;
      // A side that is gone for good (error, or hung up after its end was read) takes the
      // connection with it: what was queued for it cannot be delivered.
      if ((c & POLLERR) || (s & POLLERR) || ((c & POLLHUP) && p.up.eof) ||
          ((s & POLLHUP) && p.down.eof)) {
        p.broken = true;
        continue;
      }
      if ((c & (POLLIN | POLLHUP | POLLERR)) && p.up.can_read()) read_side(p.up, one_way, p.broken);
      if ((s & (POLLIN | POLLHUP | POLLERR)) && p.down.can_read())
        read_side(p.down, one_way, p.broken);
    }
    for (auto& p : pairs) {
      write_side(p->up, p->broken);
      write_side(p->down, p->broken);
    }
    std::erase_if(pairs, [](const auto& p) { return p->done(); });
  }
}

}  // namespace perflab
