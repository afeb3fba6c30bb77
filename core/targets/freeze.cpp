// A server frozen as a network partition looks to its clients (freeze.h).
#include "targets/freeze.h"

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace perflab {

std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(it->path() / "stat");
    std::string stat;
    std::getline(f, stat);
    const auto close = stat.rfind(')');  // the command name may hold blanks and parentheses
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    char state = 0;
    long ppid = 0;
    if (rest >> state >> ppid && ppid == parent) out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

Freeze::Freeze(pid_t server) {
  // The parent first, so it forks nothing new meanwhile.
  if (kill(server, SIGSTOP) == 0) pids_.push_back(server);
  for (pid_t child : children_of(server))
    if (kill(child, SIGSTOP) == 0) pids_.push_back(child);
}

Freeze::~Freeze() {
  thaw();
}

void Freeze::thaw() {
  for (pid_t p : pids_) kill(p, SIGCONT);
  pids_.clear();
}

}  // namespace perflab
