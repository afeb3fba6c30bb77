#pragma once
// The clients that take their turns apart so that a loop turn stays short for every other
// client: this turn's streamers (with their events), those resting after streaming a huge
// command, and those sending a large fan-out, with when each kind is read again.
// Internal to perflab_proxy.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace perflab::proxy {

struct Client;

class Rests {
 public:
  // Streamers: read after the turn's other events, together within a budget.
  void stream(Client* c, std::uint32_t events) { streamers_.emplace_back(c, events); }
  bool any_streaming() const { return !streamers_.empty(); }
  std::vector<std::pair<Client*, std::uint32_t>> take_streamers() { return take(streamers_); }

  // Resting streamers: not read (no EPOLLIN) until streamers_resume_ns(), so that reading them
  // takes a bounded share of the loop's time (Impl::serve_streamers).
  void rest(Client* c) { resting_.push_back(c); }
  bool any_resting() const { return !resting_.empty(); }
  std::vector<Client*> take_resting() { return take(resting_); }
  std::int64_t streamers_resume_ns() const { return streamers_resume_ns_; }
  // The rest lasts until at least `ns`.
  void rest_streamers_until(std::int64_t ns) {
    streamers_resume_ns_ = std::max(streamers_resume_ns_, ns);
  }

  // Clients sending a fan-out: a batch of each per turn, then they rest like the streamers.
  void fan_out(Client* c) { fanning_.push_back(c); }
  bool any_fanning() const { return !fanning_.empty(); }
  // A copy: sending a batch may end a fan-out (done_fanning) while the list is gone through.
  std::vector<Client*> fanning() const { return fanning_; }
  void done_fanning(Client* c) { std::erase(fanning_, c); }
  std::int64_t fanouts_resume_ns() const { return fanouts_resume_ns_; }
  void rest_fanouts_until(std::int64_t ns) { fanouts_resume_ns_ = ns; }

  // A closed client, out of every list it is on (this turn's streamers excepted: they are
  // skipped as dead).
  void forget(Client* c) {
    std::erase(resting_, c);
    std::erase(fanning_, c);
  }
  // Nobody rests or fans out: the loop waits only for events and its sweep.
  bool none() const { return resting_.empty() && fanning_.empty(); }

 private:
  template <typename T>
  static std::vector<T> take(std::vector<T>& list) {
    std::vector<T> taken = std::move(list);
    list.clear();
    return taken;
  }

  std::vector<std::pair<Client*, std::uint32_t>> streamers_;  // this turn's, with their events
  std::vector<Client*> resting_;
  std::vector<Client*> fanning_;
  std::int64_t fanouts_resume_ns_ = 0;
  std::int64_t streamers_resume_ns_ = 0;
};

}  // namespace perflab::proxy
