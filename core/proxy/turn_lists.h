#pragma once
// What a loop turn leaves to its end: connections with output to flush, clients with new replies
// to drain, clients holding ready replies for the rest of their pipeline (in the order they
// began to hold), and node connections whose send failed. Internal to perflab_proxy.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "proxy/client_conn.h"
#include "proxy/conn.h"
#include "proxy/node_conn.h"

namespace perflab::proxy {

class TurnLists {
 public:
  // c has output to flush at the end of the turn (listed once).
  void mark_dirty(Conn& c) {
    if (!c.dirty) {
      c.dirty = true;
      dirty_.push_back(&c);
    }
  }
  // Every connection with output, in the order marked (those marked meanwhile too), taken off
  // the list and handed to f.
  template <typename F>
  void each_dirty(F&& f) {
    for (std::size_t i = 0; i < dirty_.size(); ++i) {
      Conn* c = dirty_[i];
      c->dirty = false;
      f(*c);
    }
    dirty_.clear();
  }

  // c has new replies to drain at the end of a node connection's read (listed once).
  void touch(Client& c) {
    if (!c.touched) {
      c.touched = true;
      touched_.push_back(&c);
    }
  }
  std::vector<Client*> take_touched() { return take(touched_); }

  // c holds its ready replies until `until` (Client::hold_until).
  void hold(Client& c, std::int64_t until) {
    c.hold_until = until;
    holding_.push_back(&c);
  }
  // c, closed, holds nothing.
  void unhold(Client& c);
  bool anyone_holding() const { return !holding_.empty(); }
  // When the first hold ends (anyone_holding() must be true).
  std::int64_t first_hold_ends() const { return holding_.front()->hold_until; }
  // Those whose replies are all in, closing, or whose hold is over at now_ns stop holding
  // (hold_until -1: "has just ended") and have their output flushed with the turn's others.
  void release_holds(std::int64_t now_ns);

  // b's send failed: handled at the end of the turn.
  void broken(Backend& b) { broken_.push_back(&b); }
  bool any_broken() const { return !broken_.empty(); }
  std::vector<Backend*> take_broken() { return take(broken_); }

 private:
  template <typename T>
  static std::vector<T*> take(std::vector<T*>& list) {
    std::vector<T*> taken = std::move(list);
    list.clear();
    return taken;
  }

  std::vector<Conn*> dirty_;
  std::vector<Client*> touched_;
  std::vector<Client*> holding_;
  std::vector<Backend*> broken_;
};

}  // namespace perflab::proxy
