#pragma once
// The sharding experiment's open-loop latency groups (parameter `latency`): the spectra of the
// paths at one fixed rate, the collapse as latency, the hockey stick of direct vs the proxy.
#include <string>
#include <vector>

#include "runner/experiment.h"
#include "sharding/settings.h"

namespace perflab::sharding {

// The parameter `latency`'s choices: none, spectra, collapse, hockey.
std::vector<std::string> latency_tokens();
// The groups a run asks for (none when only "none" is given).
bool wants_latency(const LatencySettings& l);
// The fixed-rate spectra include Redis Cluster: the run needs a cluster.
bool latency_uses_cluster(const LatencySettings& l);
// What the groups cost, in seconds, for the progress bar: rounds x paths x seconds per round.
double latency_seconds(const LatencySettings& l);
// The parameters of the latency groups (added to the experiment's).
std::vector<ParamSpec> latency_params();

// Measures the groups `latency` asks for, from progress `from` to `to`, on the run's nodes
// (and cluster): open loop, each round a fresh recorder, rounds where the generator fell behind
// left out and said so.
void run_latency(RunContext& ctx, const ShardingSettings& s, const TargetNeeds& need, double from,
                 double to);

}  // namespace perflab::sharding
