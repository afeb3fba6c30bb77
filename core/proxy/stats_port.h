#pragma once
// The proxy's statistics port (twemproxy's stats_port): its listener, and the readers connected
// to it, each sent the counters as JSON and then closed. Internal to perflab_proxy.
#include <memory>
#include <string>
#include <vector>

#include "proxy/conn.h"
#include "proxy/poller.h"

namespace perflab::proxy {

class StatsPort {
 public:
  StatsPort() = default;
  ~StatsPort();
  StatsPort(const StatsPort&) = delete;
  StatsPort& operator=(const StatsPort&) = delete;

  // Listens on bind:port (none when port is -1), registered with `poller`; throws with the
  // reason.
  void open(const std::string& bind, int port, Poller& poller);
  int port() const { return port_; }

  // Up to 16 waiting readers taken, each given counters_json() to send and registered with
  // `poller`; those new readers are appended to `fresh`, to be flushed.
  template <typename F>
  void accept(Poller& poller, F&& counters_json, std::vector<Conn*>& fresh) {
    for (int i = 0; i < 16; ++i) {
      auto r = take_reader(poller);
      if (!r) return;
      r->out = counters_json();
      fresh.push_back(r.get());
      readers_.push_back(std::move(r));
    }
  }
  // Readers that were sent everything (or failed), and are closed, forgotten.
  void forget_closed();
  // Every reader's socket closed (the proxy's end).
  void close_readers(Poller& poller);

 private:
  std::unique_ptr<Conn> take_reader(Poller& poller);

  Conn listener_{Kind::StatsListener};
  int port_ = -1;
  std::vector<std::unique_ptr<Conn>> readers_;
};

}  // namespace perflab::proxy
