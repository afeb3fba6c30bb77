#pragma once
// The proxy's private state, shared by the files that implement Proxy (proxy, event_loop,
// listener, client, dispatch, backend, recovery, redirects, proxy_stats): connections, request
// FIFOs, counters. Internal to perflab_proxy: not part of its API, included by nothing else.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "proxy/client_limits.h"
#include "proxy/client_memory_state.h"
#include "proxy/conn.h"
#include "proxy/counters.h"
#include "proxy/dispatch_scratch.h"
#include "proxy/in_buf.h"
#include "proxy/merge.h"
#include "proxy/node_addresses.h"
#include "proxy/proxy.h"
#include "proxy/proxy_log.h"
#include "proxy/reaper.h"
#include "proxy/redact.h"
#include "proxy/resp.h"
#include "proxy/rests.h"
#include "proxy/routing.h"
#include "proxy/stats_endpoint.h"
#include "proxy/turn_lists.h"

namespace perflab::proxy {

inline constexpr std::uint64_t kInternal = ~std::uint64_t{0};  // a reply the proxy consumes (AUTH)
inline constexpr std::int64_t kForever = std::int64_t{1} << 62;

// One node's part of a split or broadcast command, and its reply once it came.
struct Part {
  bool done = false;
  std::string reply;
};

struct Batched;

// A request's place in its client's FIFO. Most go whole to one node (`single`): their reply
// needs no parts (no allocation) and is kept in `reply` only when it comes before an earlier
// request's. Split and broadcast commands have a part per node, merged once all are in.
struct Pending {
  MergeMode merge = MergeMode::None;
  int remaining = 0;
  bool close_after = false;
  bool single = false;
  std::string reply;  // known at once (errors, QUIT), or the single node's, waiting its turn
  std::string name;   // command name, for merge errors
  std::vector<Part> parts;
  ReplyOrder order;                  // MGET: key -> (part, index)
  Redact redact = Redact::None;      // what the reply may not show (proxy/redact.h)
  std::unique_ptr<Batched> batched;  // a fan-out sent in batches (fanout.cpp)
};

// A split command of more than kFanoutBatchKeys keys: its keys go a batch per loop turn, each
// batch split by node into parts of its own, and the parts' replies are merged batch by batch
// as they come, so that neither splitting nor merging a million keys holds the loop for long.
// The Pending's `remaining` counts one more while batches are still to be sent.
inline constexpr std::size_t kFanoutBatchKeys = 32 * 1024;
struct Batched {
  struct Batch {
    std::uint32_t first_part = 0, parts = 0;
    ReplyOrder order;  // MGET: the batch's key -> (its part, index)
  };
  std::vector<Batch> batches;
  std::size_t merged = 0;  // batches merged so far, in order
  std::string values;      // MGET: the values merged so far, in key order
  std::int64_t count = 0;  // MGET: how many; DEL...: the sum so far
  std::string error;       // the first error, which wins
};

// The fan-out a client is sending: its command stays in the client's input (argv views into
// it), which is neither read into nor consumed until the last batch is sent.
struct Fanout {
  std::vector<std::string_view> argv;
  CommandInfo info;
  std::uint64_t seq = 0;
  std::size_t next = 1;      // argv index of the next batch's first key
  std::size_t consumed = 0;  // the command's length in the input
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
  std::int64_t last_io_ns = 0;  // when it last sent or read anything (the client timeout)
  std::size_t mem = 0;          // what it holds, as last accounted in Impl::memory.held
  std::string peer;
  // Streaming a large command: a half-read one of 64 KiB or more. Its reads wait until the
  // turn's other events are served, and share a budget (Impl::serve_streamers).
  bool streaming() const { return in.end - in.start >= 64 * 1024; }
  // Streaming a huge command: a half-read one of kRestFrom or more, the only kind that rests
  // between its turns. An ordinary large command (a 100 KB value) is read at once, never rested.
  static constexpr std::size_t kRestFrom = 1024 * 1024;
  bool huge() const { return in.end - in.start >= kRestFrom; }
  bool resting = false;  // streaming a huge command, not read until Impl::rests.streamers_resume_ns
  bool ever_rested = false;
  std::unique_ptr<Fanout> fanout;  // sending a large fan-out: not read until it is sent
  // Holding replies that are ready while more of its pipeline's are on their way from other
  // nodes, until then at the latest (0: not holding, -1: its hold has just ended; Impl::hold).
  std::int64_t hold_until = 0;
};

inline std::string errno_text(int e) {
  return std::strerror(e);
}

inline void set_nodelay(int fd, bool on) {
  int v = on ? 1 : 0;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, sizeof v);
}

// A listening TCP socket on host:port; throws with the reason (listener.cpp).
int listen_on(const std::string& host, int port, int& bound_port);

struct Proxy::Impl {
  ProxyOptions opts;
  Router router;
  int ep = -1;
  int wake_fd = -1;
  int port = 0;
  Conn listener{Kind::Listener};
  Conn wake{Kind::Wake};
  std::thread thread;
  std::atomic<bool> stop_flag{false};
  ProxyLog logger;
  std::int64_t started_ns = wall_ns();
  std::int64_t turn_ns = wall_ns();  // the time of this loop turn
  std::int64_t last_sweep_ns = 0;

  std::unordered_map<Client*, std::unique_ptr<Client>> clients;
  std::unordered_map<std::uint64_t, Client*> by_id;
  std::uint64_t next_id = 1;
  std::vector<std::unique_ptr<Backend>> shared;  // one per node, when opts.shared_backends
  std::vector<std::unique_ptr<Client>> graveyard;
  std::vector<std::string> secrets;  // never in a reply: opts.password, opts.requirepass
  NodeAddresses node_addrs;
  ClientLimits limits;
  StatsEndpoint stats;
  TurnLists turn;
  Rests rests;
  DispatchScratch scr;
  ClientMemoryState memory;  // client_memory.cpp

  Counters st;

  static constexpr std::uint64_t kSpareFds = 32;
  static constexpr std::int64_t kStallNs = 1'000'000'000;
  // What a client's read event reads at most: a client streaming a large value gets its turn
  // like any other, and a loop turn stays short for everyone else.
  static constexpr std::size_t kReadPerEvent = 256 * 1024;
  // What all streaming clients read together in one turn (at least 64 KiB each): about a
  // millisecond of copying, the longest a small request waits for the next turn.
  static constexpr std::size_t kStreamingPerTurn = 1024 * 1024;
  // After the streamers' turn, those streaming a huge command (Client::huge) rest this many
  // times as long as it took: reading them takes at most an eighth of the loop's time, however
  // fast they send. A loop that never
  // sleeps is, to a busy machine's scheduler, a task that used its share: every small request
  // would then wait for its next time slice (tens of milliseconds), not for a wake-up.
  static constexpr std::int64_t kStreamersRestPerBusy = 7;
  // How long a client's ready replies may wait for the rest of its pipeline's, which other
  // nodes are still answering: a pipelined batch spread over four nodes would otherwise go
  // back in two or three sends, each a TCP segment and a wake-up of the client.
  static constexpr std::int64_t kHoldNs = 100'000;
  bool can_hold = true;  // epoll_pwait2 is there: the loop can wake within the hold

  // proxy.cpp: setup; the log (ProxyLog) written through log().
  void log(LogLevel level, const std::string& msg) { logger.write(level, msg); }
  void init();
  ~Impl();
  void log_start();
  // event_loop.cpp: epoll, the loop and its turns, output.
  void update_events(Conn& c);
  void add_fd(Conn& c, std::uint32_t ev);
  void close_fd(Conn& c);
  void loop();
  void serve_streamers();
  void rest_streamer(Client& c);
  void resume_streamers();
  int wait_ms() const;
  void flush_dirty();
  bool hold(Client& c);
  void release_holds();
  int wait(epoll_event* events, int max);
  void end_of_turn();
  void flush(Conn& c);
  // listener.cpp: accepting clients (and statistics readers), the client limit.
  void set_client_limit();
  bool bind_is_loopback() const;
  void log_fd_refusals();
  void refuse_client(int fd);
  bool refuse_for_lack_of_fds();
  void accept_clients();
  void accept_stats();
  // client.cpp: a client's connection, its requests' FIFO, the commands answered here.
  void close_fds(Client& c);
  void close_client(Client& c, const std::string& why);
  void check_pause(Client& c);
  void on_client_event(Client& c, std::uint32_t ev, std::size_t max_read = kReadPerEvent);
  void process_input(Client& c);
  void immediate(Client& c, std::string_view reply, bool close_after = false);
  void immediate_error(Client& c, const std::string& msg);
  void refuse(Client& c, const std::string& msg);
  void auth(Client& c, const std::vector<std::string_view>& av);
  void local(Client& c, const std::vector<std::string_view>& av);
  void drain_touched();
  void check_stalled_clients();
  void drain(Client& c);
  void merge(const Pending& p, std::string& out);
  // client_memory.cpp: the bound on all clients' memory, eviction, the client timeout, giving
  // memory back when idle.
  void account(Client& c);
  bool bound_client_memory(Client* growing, std::size_t extra);
  void lend_input(Client& c);
  void return_input(Client& c);
  void check_idle_clients();
  void give_back_memory();
  void clear_graveyard();
  void free_off_loop(std::unique_ptr<Client> c, InBuf buf);
  // dispatch.cpp: routing a request, splitting it by node, forwarding its parts.
  void dispatch(Client& c, const std::vector<std::string_view>& av, std::string_view raw,
                const CommandInfo& info);
  void keyed(Client& c, std::uint64_t seq, const CommandInfo& info,
             const std::vector<std::string_view>& av, std::string_view raw);
  void split_command(Client& c, std::uint64_t seq, const CommandInfo& info,
                     const std::vector<std::string_view>& av, std::string_view raw);
  void split_by_slot(const std::vector<std::string_view>& av, std::size_t step);
  // av's keys into `split`: by node, or over a cluster by slot (split_by_slot).
  void split_into_groups(const std::vector<std::string_view>& av, std::size_t step);
  // The node a group of `split` goes to: the node itself, or over a cluster its slot's owner.
  std::uint32_t group_node(std::size_t group) const {
    return router.uses_slots() ? scr.split_node[group] : static_cast<std::uint32_t>(group);
  }
  void single(Client& c, std::uint64_t seq, std::size_t node, std::string_view raw,
              std::int64_t extra_ns);
  void fail_part(Client& c, std::uint64_t seq, std::uint32_t part, const std::string& reply);
  bool store_reply(Client& c, Pending& p, std::uint32_t part, std::string_view reply);
  void send_part(Client& c, std::uint64_t seq, std::uint32_t part, std::uint32_t node,
                 std::string_view bytes, std::int64_t extra_ns = 0, int redirects = 0,
                 bool asking = false);
  // fanout.cpp: a split command of very many keys, sent and merged a batch at a time.
  bool start_fanout(Client& c, std::uint64_t seq, const CommandInfo& info,
                    const std::vector<std::string_view>& av);
  void serve_fanouts();
  void send_batch(Client& c);
  void merge_batches(Client& c, Pending& p);
  void batched_reply(Client& c, Pending& p, std::string& out);
  // backend.cpp: connections to the nodes, their replies.
  void close_backend_fd(Backend& b);
  void close_shared();
  std::string down_reply(std::uint32_t node, const std::string& why);
  bool connect_backend(Backend& b, std::string& why);
  void backend_failed(Backend& b, const std::string& why, bool eof);
  void check_timeouts();
  void on_backend_event(Backend& b, std::uint32_t ev);
  bool scan_replies(Backend& b);
  bool on_backend_reply(Backend& b, std::string_view reply);
  // recovery.cpp: a node after a backend timeout, probed before requests go to it again.
  void start_recovery(Backend& b);
  void send_probe(Backend& b);
  void on_probe_reply(Backend& b, std::string_view reply);
  bool busy_too_long(Backend& b);
  // redirects.cpp: a Redis Cluster's MOVED and ASK.
  bool follow_redirect(Client& c, const Entry& e, std::string_view reply);
  // proxy_stats.cpp: the counters read.
  ProxyStats snapshot() const;

  // The hot path's small steps, defined here so that every file inlines them.
  void queue_output(Conn& c) {
    if (opts.write == WriteStrategy::PerReply && !c.want_write) {
      flush(c);  // one send for this reply or command
    } else if (!c.dirty) {
      c.dirty = true;
      turn.dirty.push_back(&c);
    }
  }

  void append_reply(Client& c, std::string_view bytes) {
    if (c.pending_out() == 0) c.out_progress_ns = turn_ns;
    c.out.append(bytes);
    queue_output(c);
  }

  // Called when the client's output buffer is empty.
  void after_output(Client& c) {
    if (c.closing && c.pending.empty() && c.pending_out() == 0)
      close_client(c, "closed by request");
  }

  // Commands that need connections of the client's own: they change connection state (SELECT),
  // may block (BLPOP...), or are administrative (allowed).
  bool needs_dedicated(const CommandInfo& info) const {
    return info.dedicated && (info.cls != CommandClass::Admin || opts.allow_admin);
  }

  Pending& pending_at(Client& c, std::uint64_t seq) { return c.pending[seq - c.head_seq]; }

  void push_entry(Backend& b, const Entry& e) {
    if (b.fifo.empty()) b.progress_ns = turn_ns;
    b.fifo.push_back(e);
    st.servers[b.node]->out_queue.add();
  }

  Client* client_of(const Backend& b, std::uint64_t id) {
    if (b.owner) return b.owner->dead ? nullptr : b.owner;
    auto it = by_id.find(id);
    return it == by_id.end() || it->second->dead ? nullptr : it->second;
  }

  void touch(Client& c) {
    if (!c.touched) {
      c.touched = true;
      turn.touched.push_back(&c);
    }
  }
};

}  // namespace perflab::proxy
