// The sharding experiment's parameters, read in one place (sharding/settings.h).
#include "sharding/settings.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace perflab::sharding {

bool LatencySettings::asked(const char* group) const {
  return std::find(groups.begin(), groups.end(), group) != groups.end();
}

ShardingSettings ShardingSettings::read(const Params& p) {
  ShardingSettings s;
  s.runner = RunnerSettings::from(p);
  s.sweep = p.get_bool("sweep");
  s.tests = p.get_subset("tests");
  s.variants = p.get_subset("variants");
  s.preset = p.get_choice("preset");
  s.depths = p.get_int_list("depths");
  s.compared_only = p.get_bool("compared_only");
  s.clients = static_cast<int>(p.get_int("clients"));
  s.requests = p.get_int("requests");
  s.keyspace = p.get_int("keyspace");
  s.data_size = static_cast<int>(p.get_int("data_size"));
  s.point_budget_s = p.get_double("point_budget_s");
  s.nodes = p.get_int("nodes");
  s.distribution = p.get_bool("distribution");
  s.distribution_keys = static_cast<int>(p.get_int("distribution_keys"));
  s.distribution_nodes = static_cast<int>(p.get_int("distribution_nodes"));
  s.keys.from = p.get_choice("keys_from");
  s.keys.file = p.get_string("keys_file");
  s.keys.match = p.get_string("keys_match");
  s.keys.scan_count = p.get_int("scan_count");
  s.keys.scan_max_calls = p.get_int("scan_max_calls");
  s.keys.key_names = p.get_bool("key_names");
  s.demonstration = p.get_choice("demonstration");
  s.demo_s = p.get_double("demo_s");
  s.reshard_slots = static_cast<int>(p.get_int("reshard_slots"));
  s.omission = p.get_bool("omission");
  s.omission_rate = p.get_double("omission_rate");
  s.omission_pause = std::chrono::milliseconds(p.get_int("omission_pause_ms"));
  s.omission_every =
      std::chrono::milliseconds(std::llround(p.get_double("omission_every_s") * 1000));
  s.omission_rounds = static_cast<int>(p.get_int("omission_rounds"));
  s.latency.groups = p.get_subset("latency");
  s.latency.rate = p.get_double("latency_rate");
  s.latency.rounds = static_cast<int>(p.get_int("latency_rounds"));
  s.latency.round_s = p.get_double("latency_s");
  s.latency.collapse_rate = p.get_double("collapse_rate");
  s.latency.collapse_depth = static_cast<int>(p.get_int("collapse_depth"));
  return s;
}

ShardingSettings ShardingSettings::from(const Params& p) {
  ShardingSettings s = read(p);
  if (s.omission && !s.uses_user_keys() && s.omission_pause * 2 > s.omission_every)
    throw ParamError("omission_pause_ms: a pause of " + std::to_string(s.omission_pause.count()) +
                     " ms must be at most half of omission_every_s");
  return s;
}

}  // namespace perflab::sharding
