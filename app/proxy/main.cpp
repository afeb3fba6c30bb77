// perflab-proxy: the sharding proxy as a standalone daemon (a thin main over core/sharding).
//
//   perflab-proxy --port 8090 --nodes=127.0.0.1:8081,127.0.0.1:8082 [--bind 127.0.0.1]
//                 [--password P] [--write=coalesced|per-reply] [--nodelay=on|off]
//                 [--log-level=error|warn|info|debug] [--max-bulk-len N] [--max-multibulk-len N]
#include <signal.h>

#include <iostream>
#include <string>
#include <vector>

#include "cli11/command_line.h"
#include "common/endpoint.h"
#include "sharding/proxy.h"

namespace {

perflab::sharding::Proxy* g_proxy = nullptr;

extern "C" void on_signal(int) {
  if (g_proxy) g_proxy->request_stop();
}

// The options, as the command line gives them; options() turns them into ProxyOptions.
struct Args {
  int port = 8090;
  std::string bind = "127.0.0.1";
  std::string nodes;
  std::string password;
  std::string write = "coalesced";
  std::string nodelay = "on";
  std::string backends = "shared";
  std::string log_level = "info";
  std::int64_t max_bulk_len = perflab::sharding::RespLimits{}.max_bulk_len;
  std::int64_t max_multibulk_len = perflab::sharding::RespLimits{}.max_multibulk_len;
  std::int64_t max_client_pending_bytes =
      static_cast<std::int64_t>(perflab::sharding::ProxyOptions{}.max_client_pending_bytes);

  perflab::sharding::ProxyOptions options() const {
    perflab::sharding::ProxyOptions o;
    o.port = port;
    o.bind = bind;
    o.nodes = perflab::parse_redis_nodes(nodes);
    o.password = password;
    o.write = perflab::sharding::parse_write_strategy(write);
    o.nodelay = nodelay == "on";
    o.shared_backends = backends == "shared";
    o.log_level = perflab::sharding::parse_log_level(log_level);
    o.limits.max_bulk_len = max_bulk_len;
    o.limits.max_multibulk_len = max_multibulk_len;
    o.max_client_pending_bytes = static_cast<std::size_t>(max_client_pending_bytes);
    return o;
  }
};

void add_options(CLI::App& app, Args& a) {
  using perflab::cli::convertible;
  app.add_option("--port", a.port, "port to listen on (0: any free port)")
      ->check(CLI::Range(0, 65535));
  app.add_option("--bind", a.bind, "address to listen on");
  app.add_option("--nodes", a.nodes, "the Redis nodes, host:port,host:port,... (in routing order)")
      ->required()
      ->check(convertible(perflab::parse_redis_nodes, "HOST:PORT,..."));
  app.add_option("--password", a.password, "password for the backends' AUTH")
      ->envname("PERFLAB_PROXY_PASSWORD");
  app.add_option("--write", a.write,
                 "coalesced: one send per socket per loop turn; per-reply: one send per reply and "
                 "per forwarded command (the original collapse)")
      ->check(CLI::IsMember({"coalesced", "per-reply"}));
  app.add_option("--nodelay", a.nodelay, "TCP_NODELAY on client and backend sockets")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--backend-connections", a.backends,
                 "shared: one connection per node for every client (as twemproxy); per-client: "
                 "connections of its own for each client (as RedisSharding)")
      ->check(CLI::IsMember({"shared", "per-client"}));
  app.add_option("--log-level", a.log_level, "what goes to stderr")
      ->check(CLI::IsMember({"error", "warn", "info", "debug"}));
  app.add_option("--max-bulk-len", a.max_bulk_len, "largest bulk string a client may send")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  app.add_option("--max-multibulk-len", a.max_multibulk_len, "most arguments in one command")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 31));
  app.add_option("--max-client-pending-bytes", a.max_client_pending_bytes,
                 "output a slow client may have queued before the proxy stops reading from it")
      ->check(CLI::Range(std::int64_t{1024}, std::int64_t{1} << 40));
}

}  // namespace

int main(int argc, char** argv) {
  namespace cli = perflab::cli;
  CLI::App app(
      "A sharding proxy for Redis: node = crc32(key) mod N in --nodes order; a key ending in "
      "{tag} hashes the tag only. The password may also come from PERFLAB_PROXY_PASSWORD.",
      "perflab-proxy");
  cli::setup(app);
  Args args;
  add_options(app, args);
  if (auto rc = cli::parse(app, argc, argv)) return *rc;
  try {
    perflab::sharding::Proxy proxy(args.options());
    g_proxy = &proxy;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);
    proxy.run();
    g_proxy = nullptr;
  } catch (const std::invalid_argument& e) {
    return cli::fail(app, cli::kExitUsage, e.what());
  } catch (const std::exception& e) {
    return cli::fail(app, cli::kExitFailed, e.what());
  }
  return cli::kExitOk;
}
