#pragma once
// Noise on the machine: snapshots of the load average (/proc/loadavg) and of the CPU time
// counters (/proc/stat) taken before and after a run, and the judgements made from them:
// "the machine was busy" and "this point is noisy" (its coefficient of variation is high).
// Parsing is pure (tested on sample text); read_machine_snapshot() is the thin reader of /proc.
#include <cstdint>
#include <optional>
#include <string_view>

namespace perflab {

// /proc/loadavg: "0.52 0.58 0.59 2/467 12345" — run-queue averages over 1, 5 and 15 minutes
// and runnable/total scheduling entities.
struct LoadAverage {
  double one = 0, five = 0, fifteen = 0;
  int runnable = 0, entities = 0;
};
std::optional<LoadAverage> parse_loadavg(std::string_view text);

// The aggregate "cpu" line of /proc/stat, in clock ticks since boot (guest time is already
// part of user/nice and is not added again).
struct CpuTimes {
  std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                steal = 0;
  std::uint64_t total() const {
    return user + nice + system + idle + iowait + irq + softirq + steal;
  }
};
std::optional<CpuTimes> parse_proc_stat(std::string_view text);

struct MachineSnapshot {
  std::optional<LoadAverage> load;  // absent where /proc cannot be read
  std::optional<CpuTimes> cpu;
  int cores = 0;  // online CPUs
};
// Reads /proc/loadavg and /proc/stat now.
MachineSnapshot read_machine_snapshot();

struct NoiseThresholds {
  // Load from others before the run: the 1-minute load average per core. Only the snapshot
  // before counts: the run's own clients and servers raise the load after it.
  double load_per_core = 0.5;
  // Time the hypervisor gave this VM's CPUs to someone else during the run (steal), as a
  // share of all CPU time. Steal is never the run's own doing.
  double steal_share = 0.05;
  double cv = 0.10;  // a point whose CV is above this is noisy (pyperf warns at 10%)
};

struct MachineNoise {
  std::optional<double> load_per_core_before, load_per_core_after;
  std::optional<double> steal_share;  // during the run, from the two CPU snapshots
  bool loaded = false;                // load_per_core_before above its threshold
  bool stolen = false;                // steal_share above its threshold
  bool busy() const { return loaded || stolen; }
};
MachineNoise judge_machine(const MachineSnapshot& before, const MachineSnapshot& after,
                           const NoiseThresholds& t = {});

// A point whose coefficient of variation is above the threshold.
inline bool noisy_point(double cv, const NoiseThresholds& t = {}) {
  return cv > t.cv;
}

}  // namespace perflab
