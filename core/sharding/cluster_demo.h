#pragma once
// The sharding experiment's live demonstrations on a Redis Cluster, each an experiment group with
// a time axis (seconds on x): a cluster client writes new keys and reads earlier ones in
// pipelines while, a quarter into the run, the cluster changes under it.
//   resharding: slots move from one master to another (SlotMigration: IMPORTING/MIGRATING,
//     MIGRATE, SETSLOT NODE, as redis-cli --cluster reshard); requests/s, MOVED/s, ASK/s and
//     errors/s per second; afterwards every acknowledged write is read back.
//   failover: on a managed cluster of its own with a replica per master (cluster-node-timeout
//     1 s), one master is killed with SIGKILL; requests/s and errors/s per second, the seconds
//     until writes to its slots succeed again, and which acknowledged writes survived.
#include <string>

#include "runner/experiment.h"
#include "targets/targets.h"

namespace perflab::sharding {

struct DemoOptions {
  double seconds = 10;     // the whole demonstration; the change comes at a quarter of it
  int pipeline = 16;       // commands per pipeline: half writes of new keys, half reads
  std::string key_prefix;  // Perflab's prefix + "demo:"; the keys are deleted at the end
};

// Moves `slots` slots (the first of the first master's range) to the second master while the
// load runs. Only on a managed cluster: a user's cluster is never resharded (a finding says so).
void reshard_demo(RunContext& ctx, const RedisClusterTarget& cluster, const DemoOptions& opts,
                  int slots);

// Starts its own managed cluster (3 masters, a replica each) and kills one master under load.
void failover_demo(RunContext& ctx, const DemoOptions& opts);

}  // namespace perflab::sharding
