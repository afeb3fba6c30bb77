#include "common/machine_noise.h"

#include <algorithm>

#include <charconv>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace perflab {

namespace {
// The whitespace-separated words of a line.
std::vector<std::string> fields(std::string_view line) {
  std::istringstream in{std::string(line)};
  return {std::istream_iterator<std::string>(in), std::istream_iterator<std::string>()};
}

template <class T>
bool number(std::string_view s, T& out) {
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && p == end;
}

std::string slurp(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}
}  // namespace

std::optional<LoadAverage> parse_loadavg(std::string_view text) {
  const auto line = text.substr(0, text.find('\n'));
  const auto f = fields(line);
  if (f.size() < 4) return std::nullopt;
  LoadAverage l;
  if (!number(f[0], l.one) || !number(f[1], l.five) || !number(f[2], l.fifteen))
    return std::nullopt;
  const std::string_view queue = f[3];
  const auto slash = queue.find('/');
  if (slash == std::string_view::npos || !number(queue.substr(0, slash), l.runnable) ||
      !number(queue.substr(slash + 1), l.entities))
    return std::nullopt;
  return l;
}

std::optional<CpuTimes> parse_proc_stat(std::string_view text) {
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const auto line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    const auto f = fields(line);
    if (f.empty() || f[0] != "cpu") continue;  // "cpu0", "cpu1" ... are single CPUs
    // user nice system idle [iowait irq softirq [steal [guest guest_nice]]]: older kernels
    // have fewer columns; the four first are always there.
    if (f.size() < 5) return std::nullopt;
    CpuTimes c;
    std::uint64_t* const slots[] = {&c.user,   &c.nice, &c.system,  &c.idle,
                                    &c.iowait, &c.irq,  &c.softirq, &c.steal};
    for (std::size_t i = 0; i < 8 && i + 1 < f.size(); ++i)
      if (!number(f[i + 1], *slots[i])) return std::nullopt;
    return c;
  }
  return std::nullopt;
}

std::optional<CpuTimes> read_cpu_times() {
  return parse_proc_stat(slurp("/proc/stat"));
}

MachineSnapshot read_machine_snapshot() {
  MachineSnapshot s;
  s.load = parse_loadavg(slurp("/proc/loadavg"));
  s.cpu = read_cpu_times();
  s.cores = static_cast<int>(std::thread::hardware_concurrency());
  return s;
}

std::optional<IdleTicks> idle_ticks(const CpuTimes& from, const CpuTimes& to) {
  const auto idle = [](const CpuTimes& c) { return c.idle + c.iowait; };
  if (to.total() < from.total() || idle(to) < idle(from)) return std::nullopt;
  IdleTicks t{idle(to) - idle(from), to.total() - from.total()};
  if (t.idle > t.all) return std::nullopt;
  return t;
}

std::optional<double> busy_share(const MachineSnapshot& from, const MachineSnapshot& to) {
  if (!from.cpu || !to.cpu) return std::nullopt;
  const auto t = idle_ticks(*from.cpu, *to.cpu);
  if (!t || t->all == 0) return std::nullopt;
  return std::clamp(1 - double(t->idle) / double(t->all), 0.0, 1.0);
}

MachineNoise judge_machine(const MachineSnapshot& before, const MachineSnapshot& after,
                           const NoiseThresholds& t, const MachineSnapshot* window_start) {
  MachineNoise m;
  if (window_start) m.busy_share_before = busy_share(*window_start, before);
  const int cores = before.cores > 0 ? before.cores : after.cores;
  if (cores > 0) {
    if (before.load) m.load_per_core_before = before.load->one / cores;
    if (after.load) m.load_per_core_after = after.load->one / cores;
  }
  if (before.cpu && after.cpu && after.cpu->total() > before.cpu->total() &&
      after.cpu->steal >= before.cpu->steal)
    m.steal_share = static_cast<double>(after.cpu->steal - before.cpu->steal) /
                    static_cast<double>(after.cpu->total() - before.cpu->total());
  m.loaded = m.busy_share_before
                 ? *m.busy_share_before > t.busy_share
                 : m.load_per_core_before && *m.load_per_core_before > t.load_per_core;
  m.stolen = m.steal_share && *m.steal_share > t.steal_share;
  return m;
}

}  // namespace perflab
