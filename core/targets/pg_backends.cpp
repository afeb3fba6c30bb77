// The server's backends seen from a connection: waiting for some to exit.
#include "targets/pg_backends.h"

#include <string>
#include <thread>

namespace perflab {

bool pg_await_backends_exit(PgConnection& admin, const std::vector<int>& pids,
                            std::chrono::milliseconds limit, std::stop_token stop) {
  if (pids.empty()) return true;
  std::string list = "{";
  for (int pid : pids) {
    if (list.size() > 1) list += ',';
    list += std::to_string(pid);
  }
  list += '}';
  PgParams params;
  params.add_text(list.c_str());
  const auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const PgResult left = admin.exec_params(
        "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1::int[])", params);
    if (left.value(0, 0) == "0") return true;
    if (stop.stop_requested() || std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace perflab
