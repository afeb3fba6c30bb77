#pragma once
// The coordinated-omission demonstration, for a lecture: GET on the managed Redis while it is
// paused (SIGSTOP) for 200 ms every second and a half, the same connections at the same offered
// rate measured closed loop (each connection sends, waits, sends: latency from the write) and
// open loop (latency from each request's intended time, sharding/open_loop.h), and
// redis-benchmark's own percentiles across the same pauses as the uncorrected peer. Both loops'
// spectra on one chart; the closed loop's p99 looks healthy, the open loop's shows the stall.
#include <chrono>
#include <cstdint>
#include <string>

#include "runner/experiment.h"

namespace perflab::sharding {

struct OmissionOptions {
  double rate = 1000;  // req/s the closed and the open loop are offered alike
  int clients = 10;    // connections
  std::chrono::milliseconds pause{200};
  // From one pause to the next; a measurement lasts this long, its pause in the middle.
  std::chrono::milliseconds every{1500};
  int rounds = 5;  // each measured closed loop, open loop and by redis-benchmark
  std::int64_t keyspace = 10000;
  std::string key_prefix;  // Perflab's (only read: GET)
};

// The chart and its series.
inline constexpr const char* kOmissionGroup = "omission";
inline constexpr const char* kOmissionOpen = "open loop (what users wait)";
inline constexpr const char* kOmissionClosed = "closed loop (what redis-benchmark reports)";
inline constexpr const char* kOmissionPeer = "redis-benchmark's own percentiles";

// Runs it on the first Redis target. Pauses only a server Perflab started: for a configured one
// it adds a note saying so and measures nothing. The server runs again on every way out (the
// end, Stop, a failure).
void omission_demo(RunContext& ctx, const OmissionOptions& o);

}  // namespace perflab::sharding
