#pragma once
// The clients that take their turns apart so that a loop turn stays short for every other
// client: this turn's streamers (with their events), those resting after streaming a huge
// command, and those sending a large fan-out, with when each kind is read again.
// Internal to perflab_proxy.
#include <cstdint>
#include <utility>
#include <vector>

namespace perflab::proxy {

struct Client;

struct Rests {
  std::vector<std::pair<Client*, std::uint32_t>> streamers;  // this turn's, with their events
  // Streamers not read (no EPOLLIN) until streamers_resume_ns: after each of their turns they
  // rest, so that reading them takes a bounded share of the loop's time (serve_streamers).
  std::vector<Client*> resting;
  // Clients with a Fanout: a batch of each per turn, then they rest like the streamers.
  std::vector<Client*> fanning;
  std::int64_t fanouts_resume_ns = 0;
  std::int64_t streamers_resume_ns = 0;
};

}  // namespace perflab::proxy
