// The memory a process holds for itself, from /proc/<pid>/smaps (common/process_memory.h).
#include "common/process_memory.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace perflab {

namespace {

// A "Name:   123 kB" line's kibibytes, or -1 when it is not that field.
std::int64_t field_kib(const std::string& line, const char* name) {
  if (line.rfind(name, 0) != 0) return -1;
  std::istringstream fields(line.substr(line.find(':') + 1));
  std::int64_t v = -1;
  return fields >> v && v >= 0 ? v : -1;
}

// Whether a mapping's header line ("addr perms offset dev inode path") names a file.
bool maps_a_file(const std::string& header) {
  std::istringstream in(header);
  std::string skip, path;
  for (int i = 0; i < 5; ++i) in >> skip;
  in >> path;
  return !path.empty() && path[0] == '/' && path.rfind("/dev/zero", 0) != 0;
}

}  // namespace

std::int64_t process_private_bytes(int pid) {
  if (pid <= 0) return -1;
  std::ifstream f("/proc/" + std::to_string(pid) + "/smaps");
  if (!f) return -1;
  std::int64_t kib = 0;
  bool found = false, file = false;
  std::int64_t priv = 0, anon = 0;  // of the current mapping
  const auto close_mapping = [&] {
    kib += file ? std::min(priv, anon) : priv;
    priv = anon = 0;
  };
  for (std::string line; std::getline(f, line);) {
    if (line.empty()) continue;
    if (line.find(':') == std::string::npos || line.find(' ') < line.find(':')) {
      close_mapping();  // a mapping's header: "addr perms offset dev inode path"
      file = maps_a_file(line);
      continue;
    }
    if (std::int64_t v = field_kib(line, "Private_Clean:"); v >= 0) priv += v, found = true;
    if (std::int64_t v = field_kib(line, "Private_Dirty:"); v >= 0) priv += v, found = true;
    if (std::int64_t v = field_kib(line, "Anonymous:"); v >= 0) anon += v;
  }
  close_mapping();
  return found ? kib * 1024 : -1;
}

}  // namespace perflab
