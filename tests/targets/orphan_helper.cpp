// Starts one managed server, prints "<helper pid> <server pid> <server folder>" and waits to be
// killed. The parent-death test SIGKILLs this process and expects the server to die with it.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>

#include "targets/managed_postgres.h"
#include "targets/managed_redis.h"

int main(int argc, char** argv) {
  try {
    bool pg = argc > 1 && std::strcmp(argv[1], "postgres") == 0;
    std::unique_ptr<perflab::ManagedPostgres> p;
    std::unique_ptr<perflab::ManagedRedis> r;
    pid_t server = -1;
    std::string dir;
    if (pg) {
      p = std::make_unique<perflab::ManagedPostgres>(perflab::ManagedPostgresOptions{
          .max_connections = 20, .durable = false, .shared_buffers = "16MB"});
      server = p->pid();
      dir = p->data_dir().string();
    } else {
      r = std::make_unique<perflab::ManagedRedis>();
      server = r->pid();
      dir = r->dir().string();
    }
    std::printf("%d %d %s\n", static_cast<int>(getpid()), static_cast<int>(server), dir.c_str());
    std::fflush(stdout);
    for (;;) pause();
  } catch (const std::exception& e) {
    std::printf("error %s\n", e.what());
    return 1;
  }
}
