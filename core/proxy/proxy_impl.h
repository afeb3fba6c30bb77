#pragma once
// The proxy's loop (Proxy::Impl): it wires the types that own the loop's state (Poller,
// Listener, StatsPort, ClientTable, ClientMemory, TurnLists, Rests, Counters, Router, ProxyLog)
// and holds the request path, defined a step per file (event_loop, client, dispatch, fanout,
// backend, recovery, redirects, client_eviction, proxy_stats). Internal to perflab_proxy.
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
#include "proxy/client_conn.h"
#include "proxy/client_memory.h"
#include "proxy/client_table.h"
#include "proxy/conn.h"
#include "proxy/counters.h"
#include "proxy/dispatch_scratch.h"
#include "proxy/in_buf.h"
#include "proxy/listener.h"
#include "proxy/merge.h"
#include "proxy/node_addresses.h"
#include "proxy/node_conn.h"
#include "proxy/pending.h"
#include "proxy/poller.h"
#include "proxy/proxy.h"
#include "proxy/proxy_log.h"
#include "proxy/reaper.h"
#include "proxy/redact.h"
#include "proxy/resp.h"
#include "proxy/rests.h"
#include "proxy/routing.h"
#include "proxy/stats_port.h"
#include "proxy/turn_lists.h"

namespace perflab::proxy {

inline constexpr std::uint64_t kInternal = ~std::uint64_t{0};  // a reply the proxy consumes (AUTH)
inline constexpr std::int64_t kForever = std::int64_t{1} << 62;

inline std::string errno_text(int e) {
  return std::strerror(e);
}

inline void set_nodelay(int fd, bool on) {
  int v = on ? 1 : 0;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, sizeof v);
}

struct Proxy::Impl {
  ProxyOptions opts;
  Router router;
  Poller poller;
  std::thread thread;
  std::atomic<bool> stop_flag{false};
  ProxyLog logger;
  Counters st;
  Listener listener{st, logger};
  std::int64_t started_ns = wall_ns();
  std::int64_t turn_ns = wall_ns();  // the time of this loop turn
  std::int64_t last_sweep_ns = 0;

  ClientTable clients;
  std::vector<std::unique_ptr<Backend>> shared;  // one per node, when opts.shared_backends
  std::vector<std::string> secrets;  // never in a reply: opts.password, opts.requirepass
  NodeAddresses node_addrs;
  // Past this much output waiting, a client that does not read is closed (client.cpp).
  std::size_t hard_limit = 0;
  StatsPort stats;
  TurnLists turn;
  Rests rests;
  DispatchScratch scr;
  ClientMemory memory;

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

  // proxy.cpp: setup; the log (ProxyLog) written through log().
  void log(LogLevel level, const std::string& msg) { logger.write(level, msg); }
  void init();
  ~Impl();
  void log_start();
  // event_loop.cpp: epoll, the loop and its turns, output.
  void update_events(Conn& c);
  void loop();
  void serve_streamers();
  void rest_streamer(Client& c);
  void resume_streamers();
  int wait_ms() const;
  void flush_dirty();
  void fail_broken();
  bool hold(Client& c);
  int wait(epoll_event* events, int max);
  void give_back_memory();
  void end_of_turn();
  void flush(Conn& c);
  // client.cpp: a client's connection, its requests' FIFO, the commands answered here.
  void accept_clients();
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
  // client_eviction.cpp: clients closed for what they hold together, or for idling.
  bool bound_client_memory(Client* growing, std::size_t extra);
  void check_idle_clients();
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
  // proxy_stats.cpp: the counters read, and readers of the statistics port.
  ProxyStats snapshot() const;
  void accept_stats();

  // The hot path's small steps, defined here so that every file inlines them.
  void queue_output(Conn& c) {
    if (opts.write == WriteStrategy::PerReply && !c.want_write) {
      flush(c);  // one send for this reply or command
    } else {
      turn.mark_dirty(c);
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

  void push_entry(Backend& b, const Entry& e) {
    b.push(e, turn_ns);
    st.servers[b.node]->out_queue.add();
  }

  Client* client_of(const Backend& b, std::uint64_t id) {
    if (b.owner) return b.owner->dead ? nullptr : b.owner;
    return clients.find(id);
  }

  void touch(Client& c) { turn.touch(c); }
};

}  // namespace perflab::proxy
