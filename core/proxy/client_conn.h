#pragma once
// A client's connection: its input and parser, its requests' FIFO, the node connections of its
// own (after SELECT, a blocking command), what it holds in memory, and its reading state
// (paused, streaming, resting, fanning out, holding replies). Internal to perflab_proxy.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "proxy/conn.h"
#include "proxy/in_buf.h"
#include "proxy/node_conn.h"
#include "proxy/pending.h"
#include "proxy/resp.h"

namespace perflab::proxy {

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
  bool resting = false;  // streaming a huge command, not read until Rests::streamers_resume_ns()
  bool ever_rested = false;
  std::unique_ptr<Fanout> fanout;  // sending a large fan-out: not read until it is sent

  // The pending request numbered seq (at or after head_seq).
  Pending& pending_at(std::uint64_t seq) { return pending[seq - head_seq]; }
  // What it holds now: its input (bytes written into its buffer: a large buffer's untouched
  // pages cost nothing), its output, the replies it waits to send in order, and its own node
  // connections' buffers.
  std::size_t holds() const {
    std::size_t m = in.touched() + out.size() + stored_bytes;
    for (const auto& b : backends)
      if (b) m += b->in.touched() + b->out.size() + b->held.size();
    return m;
  }
  // Holding replies that are ready while more of its pipeline's are on their way from other
  // nodes, until then at the latest (0: not holding, -1: its hold has just ended; Impl::hold).
  std::int64_t hold_until = 0;
};

}  // namespace perflab::proxy
