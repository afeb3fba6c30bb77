#pragma once
// What the proxy's clients hold in memory, together: each client's share accounted, the input
// buffer lent to a client while it has a half-read command, closed clients' buffers freed at the
// end of the turn (large ones off the loop, by the reaper), and whether memory was freed since
// the allocator last gave it back to the system. Internal to perflab_proxy.
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "proxy/client_conn.h"
#include "proxy/counters.h"
#include "proxy/in_buf.h"
#include "proxy/reaper.h"

namespace perflab::proxy {

class ClientMemory {
 public:
  // The largest input buffer kept for lending; a larger one (a large command's) is freed.
  static constexpr std::size_t kLentInputMax = 64 * 1024;

  // What all clients hold together, as last accounted.
  std::size_t held() const { return held_.get(); }
  // What a client holds now (Client::holds) into the total; Client::mem is its share.
  void account(Client& c);
  // A closed client: its share out of the total.
  void closed(Client& c);
  // A closed client's buffers, freed at the end of the turn.
  void bury(std::unique_ptr<Client> c) { graveyard_.push_back(std::move(c)); }
  // The buried clients' buffers freed: large ones off the loop.
  void clear_graveyard();

  // A client with no half-read command holds no input buffer: it reads into the spare one,
  // which it keeps only while a command stays incomplete. Ten thousand idle clients then hold
  // nothing.
  void lend_input(Client& c);
  void return_input(Client& c);

  // Memory was freed: the allocator is asked to give it back at the next quiet moment.
  void freed() { give_back_ = true; }
  // Whether memory was freed since the last call.
  bool take_freed();
  // What the allocator holds free goes back to the system (glibc keeps freed small blocks
  // otherwise: after a storm of connections, tens of megabytes nobody uses).
  static void return_to_system();

  // Frees what is left off the loop, then ends the reaper's thread.
  void stop();

 private:
  void free_off_loop(std::unique_ptr<Client> c, InBuf buf);

  Counter held_;
  InBuf spare_in_;
  bool give_back_ = false;
  std::vector<std::unique_ptr<Client>> graveyard_;  // closed during this turn
  Reaper reaper_;
};

}  // namespace perflab::proxy
