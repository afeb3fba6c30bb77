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
// Reads /proc/stat now; nullopt where it cannot be read.
std::optional<CpuTimes> read_cpu_times();

struct MachineSnapshot {
  std::optional<LoadAverage> load;  // absent where /proc cannot be read
  std::optional<CpuTimes> cpu;
  int cores = 0;  // online CPUs
};
// Reads /proc/loadavg and /proc/stat now.
MachineSnapshot read_machine_snapshot();

struct NoiseThresholds {
  // Load from others before the run. Measured as the share of all CPUs busy over a short window
  // just before the run (busy_share_before), where it exists: a build or a server start that
  // just ended is not in it, as it is in the 1-minute load average for a minute after. The load
  // average per core is the judge only where no window was measured.
  double busy_share = 0.5;
  double load_per_core = 0.5;
  // Time the hypervisor gave this VM's CPUs to someone else during the run (steal), as a
  // share of all CPU time. Steal is never the run's own doing.
  double steal_share = 0.05;
  double cv = 0.10;  // a point whose CV is above this is noisy (pyperf warns at 10%)
};

struct MachineNoise {
  std::optional<double> load_per_core_before, load_per_core_after;
  // Share of all CPUs busy (not idle, not waiting for I/O) in the window just before the run.
  std::optional<double> busy_share_before;
  std::optional<double> steal_share;  // during the run, from the two CPU snapshots
  bool loaded = false;  // busy_share_before (or, without it, load_per_core_before) too high
  bool stolen = false;  // steal_share above its threshold
  bool busy() const { return loaded || stolen; }
};
// `window_start`: a snapshot taken a moment before `before` (the window before the run); without
// one the load average judges.
MachineNoise judge_machine(const MachineSnapshot& before, const MachineSnapshot& after,
                           const NoiseThresholds& t = {},
                           const MachineSnapshot* window_start = nullptr);

// The share of all CPUs busy between two snapshots; nullopt without both or without time between.
std::optional<double> busy_share(const MachineSnapshot& from, const MachineSnapshot& to);

// All CPUs' clock ticks between two readings, and those of them idle (or waiting for I/O: no
// thread ready to run); nullopt when the counters went back.
struct IdleTicks {
  std::uint64_t idle = 0, all = 0;
};
std::optional<IdleTicks> idle_ticks(const CpuTimes& from, const CpuTimes& to);

// A point whose coefficient of variation is above the threshold.
inline bool noisy_point(double cv, const NoiseThresholds& t = {}) {
  return cv > t.cv;
}

}  // namespace perflab
