// The IO-list experiment's parameters, read in one place (iolist/settings.h).
#include "iolist/settings.h"

#include <algorithm>
#include <cmath>

#include "runner/settings.h"

namespace perflab::iolist {

std::int64_t rtt_ns(const std::string& ms) {
  return std::llround(std::stod(ms) * 1e6);
}

IoListSettings IoListSettings::from(const Params& p) {
  IoListSettings s;
  s.benchmarks = p.get_subset("benchmarks");
  s.builder_names = p.get_subset("builders");
  for (const auto& b : s.builder_names) s.builders.push_back(builder_from_string(b));
  for (const auto& t : p.get_subset("transports")) s.transports.push_back(transport_from_string(t));
  const auto commits = p.get_subset("synchronous_commit");
  s.async_commit = std::find(commits.begin(), commits.end(), "off") != commits.end();
  s.events = static_cast<std::size_t>(p.get_int("events"));
  const RunnerSettings runner = RunnerSettings::from(p);
  s.reps = runner.repetitions;
  s.warmup = runner.warmup;
  s.writers = p.get_int_list("writers");
  s.readers = p.get_int_list("readers");
  s.build_sizes = p.get_int_list("build_sizes");
  s.build_sample_ns = p.get_int("build_sample_ms") * 1'000'000;
  s.rtts = p.get_subset("network_rtt_ms");
  s.relayed = std::any_of(s.rtts.begin(), s.rtts.end(), [](auto& r) { return rtt_ns(r) > 0; });
  s.rtt_writers = p.get_int_list("rtt_writers");
  s.pgbench_ms = p.get_int("pgbench_ms");
  s.pgbench_reps = static_cast<int>(p.get_int("pgbench_repetitions"));
  s.payload_sizes = p.get_int_list("payload_bytes");
  s.payload_reps = static_cast<int>(p.get_int("payload_repetitions"));
  s.pool_clients = p.get_int_list("pool_clients");
  s.pool_size = static_cast<int>(p.get_int("pool_size"));
  s.pool_async = p.get_choice("pool_driver") == "async";
  s.reset = p.get_bool("reset");
  s.seed = static_cast<std::uint64_t>(p.get_int("seed"));
  s.standbys = p.get_int("standbys");
  s.latency_rate = p.get_double("latency_rate");
  s.latency_seconds = p.get_double("latency_seconds");
  s.latency_lag_limit_ms = p.get_double("latency_lag_limit_ms");
  s.latency_rounds = static_cast<int>(p.get_int("latency_rounds"));
  s.arrivals = parse_arrivals(p.get_choice("arrivals"));
  return s;
}

bool IoListSettings::has(const char* benchmark) const {
  return std::find(benchmarks.begin(), benchmarks.end(), benchmark) != benchmarks.end();
}

bool IoListSettings::needs_server() const {
  return has("append") || has("read") || has("pgbench") || has("payload") || has("client") ||
         has("pooled") || has("standby") || has("latency");
}

TargetNeeds iolist_needs(const Params& p) {
  const auto benches = p.get_subset("benchmarks");
  TargetNeeds needs{
      .postgres = std::any_of(benches.begin(), benches.end(),
                              [](const std::string& b) { return b != "build"; }),
      .pg_pooler = std::find(benches.begin(), benches.end(), "pooled") != benches.end(),
      .pg_pool_size = static_cast<int>(p.get_int("pool_size"))};
  if (std::find(benches.begin(), benches.end(), "standby") != benches.end())
    needs.pg_standbys = static_cast<std::size_t>(p.get_int("standbys"));
  return needs;
}

}  // namespace perflab::iolist
