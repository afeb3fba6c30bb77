#pragma once
// A server frozen as a network partition looks to its clients (SIGSTOP to it and to every process
// it forked): what the tests of every bound and the stop benchmark hold a run against.
#include <sys/types.h>

#include <vector>

namespace perflab {

// The processes whose parent is `parent` (from /proc/<pid>/stat): a server's forked children, or
// the servers a process started.
std::vector<pid_t> children_of(pid_t parent);

// Freezes a server: SIGSTOP to the process and to every process it forked (PostgreSQL's backends
// are group leaders of their own), so the kernel still accepts and acknowledges, but nothing
// answers. Thawed (SIGCONT) when the guard goes.
class Freeze {
 public:
  explicit Freeze(pid_t server);
  ~Freeze();
  Freeze(const Freeze&) = delete;
  Freeze& operator=(const Freeze&) = delete;
  void thaw();

 private:
  std::vector<pid_t> pids_;
};

}  // namespace perflab
