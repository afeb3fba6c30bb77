#pragma once
// A connection to a node: the request parts waiting for their replies in order, the replies
// being read, and its failure and recovery state. Internal to perflab_proxy.
#include <cstdint>
#include <deque>
#include <string>

#include "proxy/conn.h"
#include "proxy/in_buf.h"
#include "proxy/resp.h"

namespace perflab::proxy {

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

// kInternal part numbers: 0 AUTH, 1 SELECT, 2 ASKING, 3 the probe of a node after a timeout.
inline constexpr std::uint32_t kInternalAsking = 2;
inline constexpr std::uint32_t kInternalProbe = 3;

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
  // After a backend timeout the node may still run what timed out (a script: Redis then answers
  // BUSY to everything else until it ends). The next connection first sends a probe (PING, or
  // the SELECT it needs); requests wait in `held`, unsent, until the node answers the probe
  // with anything but BUSY or LOADING (proxy/recovery.cpp).
  bool recovering = false;  // a request timed out here and no probe was answered since
  bool probing = false;     // this connection's probe is unanswered: requests are held
  bool probe_due = false;   // the node said BUSY: the probe goes again at the next sweep
  std::string held;         // held requests' bytes, in order
  std::int64_t recovering_since_ns = 0;
  std::int64_t held_since_ns = 0;  // when the oldest held request came
  int busy_answers = 0;            // BUSY or LOADING answers to the probe since the timeout

  // A part sent, waiting for its reply; the wait for the front's reply counts from now_ns when
  // nothing was waiting.
  void push(const Entry& e, std::int64_t now_ns) {
    if (fifo.empty()) progress_ns = now_ns;
    fifo.push_back(e);
  }
  // Nothing to send and nothing half-read: a new connection's start, or a lost one's end.
  void reset_io() {
    out.clear();
    out_off = 0;
    want_write = false;
    in.clear();
    scanner.reset();
  }
};

}  // namespace perflab::proxy
