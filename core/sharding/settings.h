#pragma once
// The sharding experiment's settings: every parameter of a run read once, in one place
// (ShardingSettings::from), for the sweep, the key distribution, the latency groups and the
// demonstrations alike.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/params.h"
#include "runner/settings.h"

namespace perflab::sharding {

// The open-loop latency groups (parameter `latency` and the ones beside it).
struct LatencySettings {
  std::vector<std::string> groups;  // `latency`: none, spectra, collapse, hockey
  double rate = 0;                  // latency_rate (0: from Redis direct's maximum)
  int rounds = 0;                   // latency_rounds
  double round_s = 0;               // latency_s
  double collapse_rate = 0;
  int collapse_depth = 0;

  bool asked(const char* group) const;  // whether `latency` names this group
};

// The user's keys (keys_from other than synthetic) and how they are read.
struct UserKeysSettings {
  std::string from;   // keys_from: synthetic, redis, file
  std::string file;   // keys_file
  std::string match;  // keys_match
  std::int64_t scan_count = 0, scan_max_calls = 0;
  bool key_names = false;
};

struct ShardingSettings {
  RunnerSettings runner;  // repetitions and warmup: the sweep's rounds per point
  // The sweep: its tests and variants (tokens, in order), depths (the preset's or `depths`).
  bool sweep = true;
  std::vector<std::string> tests, variants;
  std::string preset;
  std::vector<std::int64_t> depths;
  // At a depth where the findings compare variants, only those are measured (compared_only).
  bool compared_only = false;
  // The load of every point (and of the latency groups).
  int clients = 0;
  std::int64_t requests = 0, keyspace = 0;
  int data_size = 0;
  double point_budget_s = 0;
  std::int64_t nodes = 0;
  // The key distribution: synthetic keys over distribution_nodes, or the user's.
  bool distribution = false;
  int distribution_keys = 0, distribution_nodes = 0;
  UserKeysSettings keys;
  // The demonstrations: Redis Cluster's (demonstration, demo_s, reshard_slots) and the
  // coordinated omission's.
  std::string demonstration;
  double demo_s = 0;
  int reshard_slots = 0;
  bool omission = false;
  double omission_rate = 0;
  std::chrono::milliseconds omission_pause{0}, omission_every{0};
  int omission_rounds = 0;
  LatencySettings latency;

  bool uses_user_keys() const { return keys.from != "synthetic"; }
  bool reshards() const { return demonstration == "resharding" || demonstration == "both"; }

  // The parameters as a run takes them: throws ParamError when an omission pause is longer than
  // half of its period (with the user's keys check_user_keys refuses the omission first).
  static ShardingSettings from(const Params& p);
  // The same without that check, for Experiment::needs (which never refuses).
  static ShardingSettings read(const Params& p);
};

}  // namespace perflab::sharding
