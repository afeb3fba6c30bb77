#pragma once
// The IO-list experiment's settings: every parameter of a run read once, in one place
// (IoListSettings::from), and the servers a run with them uses.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/open_loop_schedule.h"
#include "common/params.h"
#include "iolist/event_store.h"
#include "targets/targets.h"

namespace perflab::iolist {

// A network_rtt_ms choice ("0", "0.2", "1", "5") in nanoseconds.
std::int64_t rtt_ns(const std::string& ms);

// A run's settings, from its (validated) parameters.
struct IoListSettings {
  std::vector<std::string> benchmarks;
  std::vector<Builder> builders;
  std::vector<std::string> builder_names;  // as given, in the same order
  std::vector<Transport> transports;
  bool async_commit = false;  // synchronous_commit=off asked for
  std::size_t events = 0;
  int reps = 0, warmup = 0;
  std::vector<std::int64_t> writers, readers, build_sizes;
  std::int64_t build_sample_ns = 0;
  std::vector<std::string> rtts;  // network_rtt_ms
  std::vector<std::int64_t> rtt_writers;
  bool relayed = false;  // an RTT above 0 among rtts
  std::int64_t pgbench_ms = 0;
  int pgbench_reps = 0;
  std::vector<std::int64_t> payload_sizes;
  int payload_reps = 0;
  std::vector<std::int64_t> pool_clients;  // the pooled appends' client counts
  int pool_size = 0;                       // PgBouncer's server connections in the pooled appends
  bool pool_async = true;  // pool_driver: a few threads drive the clients (else a thread each)
  bool reset = true;
  std::uint64_t seed = 42;
  std::int64_t standbys = 0;  // hot standbys of the standby benchmark
  // The append latency at a fixed rate: appends per second, seconds of a round, rounds, arrivals.
  double latency_rate = 0, latency_seconds = 0, latency_lag_limit_ms = 0;
  int latency_rounds = 0;
  Arrivals arrivals = Arrivals::Poisson;

  static IoListSettings from(const Params& p);
  bool has(const char* benchmark) const;
  bool needs_server() const;  // a benchmark other than build
};

// The servers a run with these (resolved) parameters uses (Experiment::needs).
TargetNeeds iolist_needs(const Params& p);

}  // namespace perflab::iolist
