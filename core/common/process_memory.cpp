// The memory a process holds for itself, from /proc/<pid>/smaps_rollup (common/process_memory.h).
#include "common/process_memory.h"

#include <fstream>
#include <sstream>
#include <string>

namespace perflab {

std::int64_t process_private_bytes(int pid) {
  if (pid <= 0) return -1;
  std::ifstream f("/proc/" + std::to_string(pid) + "/smaps_rollup");
  if (!f) return -1;
  std::int64_t kib = 0;
  bool found = false;
  for (std::string line; std::getline(f, line);) {
    if (line.rfind("Private_Clean:", 0) != 0 && line.rfind("Private_Dirty:", 0) != 0) continue;
    std::istringstream fields(line.substr(line.find(':') + 1));
    std::int64_t v = -1;
    if (!(fields >> v) || v < 0) return -1;
    kib += v;
    found = true;
  }
  return found ? kib * 1024 : -1;
}

}  // namespace perflab
