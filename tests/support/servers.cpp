#include "servers.h"

#include <unistd.h>

#include <atomic>
#include <memory>

namespace perflab::test {

Targets& shared_targets() {
  static std::unique_ptr<Targets> targets = [] {
    TargetsConfig cfg;
    cfg.managed_pg.durable = false;
    return std::make_unique<Targets>(cfg);
  }();
  return *targets;
}

TargetsConfig isolated_pg(const std::string& schema) {
  TargetsConfig cfg;
  cfg.pg_conninfo = shared_targets().postgres().conninfo;
  cfg.pg_schema = schema;
  return cfg;
}

std::string unique_name(const std::string& base) {
  static std::atomic<int> counter{0};
  return base + "_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
}

}  // namespace perflab::test
