// perflab-proxy: the sharding proxy as a standalone daemon (a thin main over core/proxy).
//
//   perflab-proxy --port 8090 --nodes=127.0.0.1:8081,127.0.0.1:8082 [--bind 127.0.0.1]
//                 [--requirepass-file F] [--password-file F] [--allow-admin]
//                 [--hash=crc32a] [--distribution=modula] [--hash-tag=trailing]
//                 [--config nutcracker.yml --pool alpha] [--backend-timeout MS] [--stats-port P]
//                 [--write=coalesced|per-reply] [--nodelay=on|off] [--log-file F] ...
#include <signal.h>

#include <iostream>
#include <string>
#include <vector>

#include "cli11/command_line.h"
#include "common/endpoint.h"
#include "proxy/pool_config.h"
#include "proxy/proxy.h"

namespace {

namespace px = perflab::proxy;

px::Proxy* g_proxy = nullptr;

extern "C" void on_signal(int sig) {
  if (!g_proxy) return;
  if (sig == SIGHUP)
    g_proxy->reopen_log();
  else if (sig == SIGTTIN)
    g_proxy->change_log_level(+1);
  else if (sig == SIGTTOU)
    g_proxy->change_log_level(-1);
  else
    g_proxy->request_stop();
}

// A crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL): logged by name with one write, then the default
// action (a core dump) happens, as twemproxy does. SA_RESETHAND restored the default already.
extern "C" void on_fatal_signal(int sig) {
  if (g_proxy) g_proxy->log_fatal_signal(sig);
  ::raise(sig);
}

// The options, as the command line gives them; options() turns them into ProxyOptions.
struct Args {
  int port = 8090;
  std::string bind = "127.0.0.1";
  std::string nodes, cluster;
  std::string config, pool;
  std::string hash = "crc32a", distribution = "modula", hash_tag = "trailing";
  std::string password, password_file, requirepass, requirepass_file;
  std::string protected_mode = "yes";
  bool allow_admin = false;
  int db = 0;
  std::string write = "coalesced";
  std::string nodelay = "on";
  std::string backends = "shared";
  std::string log_level = "info";
  std::string log_file;
  int backend_timeout_ms = px::ProxyOptions{}.backend_timeout_ms;
  int stats_port = -1;
  std::int64_t max_bulk_len = px::RespLimits{}.max_bulk_len;
  std::int64_t max_multibulk_len = px::RespLimits{}.max_multibulk_len;
  std::int64_t max_client_pending_bytes =
      static_cast<std::int64_t>(px::ProxyOptions{}.max_client_pending_bytes);
  std::int64_t max_client_memory = static_cast<std::int64_t>(px::ProxyOptions{}.max_client_memory);
  int client_timeout_ms = px::ProxyOptions{}.client_timeout_ms;

  // Throws std::invalid_argument for what the command line cannot check alone.
  px::ProxyOptions options(const CLI::App& app) const {
    px::ProxyOptions o;
    auto given = [&](const char* opt) { return app.count(opt) > 0; };
    if (!cluster.empty()) {
      // A Redis Cluster upstream: its masters and slot map are read when the proxy starts.
      for (const char* other : {"--nodes", "--config", "--hash", "--distribution", "--hash-tag"})
        if (given(other))
          throw std::invalid_argument(std::string("--cluster and ") + other +
                                      " exclude each other: the cluster's slot map routes");
      o.cluster = perflab::parse_redis_nodes(cluster);
    } else if (!config.empty()) {
      // The pool as twemproxy would run it; what the command line gives explicitly wins.
      px::PoolConfig pc = px::read_nutcracker_pool(config, pool);
      o.pool = pc.name;
      o.nodes = pc.nodes;
      o.servers = pc.servers;
      o.routing = pc.routing;
      o.bind = pc.listen_host.empty() ? bind : pc.listen_host;
      o.port = pc.listen_port;
      o.backend_timeout_ms = pc.timeout_ms;
      o.requirepass = pc.redis_auth;  // twemproxy's redis_auth: clients and servers alike
      o.password = pc.redis_auth;
      o.db = pc.redis_db;
      for (const auto& n : pc.notes) std::cerr << "perflab-proxy: note: " << n << "\n";
      if (given("--nodes")) throw std::invalid_argument("--nodes and --config exclude each other");
    } else {
      if (nodes.empty())
        throw std::invalid_argument("--nodes is required (or --config, or --cluster)");
      o.nodes = perflab::parse_redis_nodes(nodes);
      o.routing.hash = px::parse_hash_function(hash);
      o.routing.distribution = px::parse_distribution(distribution);
      o.routing.tag = px::HashTag::parse(hash_tag);
    }
    if (config.empty() || given("--port")) o.port = port;
    if (config.empty() || given("--bind")) o.bind = bind;
    if (config.empty() || given("--backend-timeout")) o.backend_timeout_ms = backend_timeout_ms;
    if (config.empty() || given("--db")) o.db = db;
    if (given("--hash")) o.routing.hash = px::parse_hash_function(hash);
    if (given("--distribution")) o.routing.distribution = px::parse_distribution(distribution);
    if (given("--hash-tag")) o.routing.tag = px::HashTag::parse(hash_tag);
    if (!password_file.empty()) o.password = perflab::cli::read_secret_file(password_file);
    if (!password.empty()) o.password = password;
    if (!requirepass_file.empty()) o.requirepass = perflab::cli::read_secret_file(requirepass_file);
    if (!requirepass.empty()) o.requirepass = requirepass;
    o.protected_mode = protected_mode == "yes";
    o.allow_admin = allow_admin;
    o.write = px::parse_write_strategy(write);
    o.nodelay = nodelay == "on";
    o.shared_backends = backends == "shared";
    o.log_level = px::parse_log_level(log_level);
    o.log_file = log_file;
    o.stats_port = stats_port;
    o.limits.max_bulk_len = max_bulk_len;
    o.limits.max_multibulk_len = max_multibulk_len;
    o.max_client_pending_bytes = static_cast<std::size_t>(max_client_pending_bytes);
    o.max_client_memory = static_cast<std::size_t>(max_client_memory);
    o.client_timeout_ms = client_timeout_ms;
    return o;
  }
};

void add_options(CLI::App& app, Args& a) {
  using perflab::cli::convertible;
  app.add_option("--port", a.port, "port to listen on (0: any free port)")
      ->check(CLI::Range(0, 65535));
  app.add_option("--bind", a.bind, "address to listen on");
  app.add_option("--nodes", a.nodes, "the Redis nodes, host:port,host:port,... (in routing order)")
      ->check(convertible(perflab::parse_redis_nodes, "HOST:PORT,..."));
  app.add_option("--cluster", a.cluster,
                 "seed nodes of a Redis Cluster, host:port,...: route by its slot map, follow "
                 "MOVED and ASK (instead of --nodes)")
      ->check(convertible(perflab::parse_redis_nodes, "HOST:PORT,..."));
  app.add_option("--config", a.config,
                 "a twemproxy (nutcracker) YAML configuration: serve one of its pools exactly as "
                 "twemproxy routes it (servers, weights, hash, distribution, hash_tag, timeout, "
                 "redis_auth, redis_db, listen)");
  app.add_option("--pool", a.pool, "the pool of --config to serve (needed when it has several)");
  app.add_option("--hash", a.hash, "key hash, as twemproxy names them")
      ->check(convertible(px::parse_hash_function, "HASH"));
  app.add_option("--distribution", a.distribution, "modula or ketama, as twemproxy")
      ->check(convertible(px::parse_distribution, "DIST"));
  app.add_option("--hash-tag", a.hash_tag,
                 "trailing: a key ending in {tag} hashes the tag (RedisSharding); two characters "
                 "such as {}: twemproxy's hash_tag; none: the whole key")
      ->check(convertible(px::HashTag::parse, "TAG"));
  app.add_option("--requirepass-file", a.requirepass_file,
                 "file whose first line is the password clients must AUTH with (also "
                 "PERFLAB_PROXY_REQUIREPASS); without one, only loopback clients are served "
                 "unless --protected-mode=no");
  app.add_option("--requirepass", a.requirepass,
                 "the client password on the command line (visible in ps: hidden at start, with "
                 "a warning; prefer --requirepass-file)")
      ->envname("PERFLAB_PROXY_REQUIREPASS");
  app.add_option("--password-file", a.password_file,
                 "file whose first line is the password for the backends' AUTH (also "
                 "PERFLAB_PROXY_PASSWORD); never shown to clients");
  app.add_option("--password", a.password,
                 "the backend password on the command line (visible in ps: hidden at start, with "
                 "a warning; prefer --password-file)")
      ->envname("PERFLAB_PROXY_PASSWORD");
  app.add_option("--protected-mode", a.protected_mode,
                 "yes: without a client password, serve only loopback clients (as Redis)")
      ->check(CLI::IsMember({"yes", "no"}));
  app.add_flag("--allow-admin", a.allow_admin,
               "forward administrative commands (CONFIG, DEBUG, SHUTDOWN, REPLICAOF, MODULE, ACL, "
               "CLIENT, ...) to every node; refused otherwise. For a trusted lab only");
  app.add_option("--db", a.db, "database SELECTed on every backend connection (redis_db)")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--backend-timeout", a.backend_timeout_ms,
                 "ms without a reply byte from a node while requests wait before they fail and its "
                 "connection is reset (twemproxy's timeout:); its next requests wait, unsent, "
                 "until it answers a PING with anything but BUSY; 0: wait for ever")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--stats-port", a.stats_port,
                 "port serving statistics as JSON (twemproxy's format) to whoever connects, on "
                 "--bind; -1: none")
      ->check(CLI::Range(-1, 65535));
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
  app.add_option("--log-level", a.log_level,
                 "what is logged; SIGTTIN raises it, SIGTTOU lowers it by one")
      ->check(CLI::IsMember({"error", "warn", "info", "debug"}));
  app.add_option("--log-file", a.log_file, "log to this file instead of stderr; SIGHUP reopens it");
  app.add_option("--max-bulk-len", a.max_bulk_len, "largest bulk string a client may send")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  app.add_option("--max-multibulk-len", a.max_multibulk_len, "most arguments in one command")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 31));
  app.add_option("--max-client-pending-bytes", a.max_client_pending_bytes,
                 "replies a client may hold in the proxy (queued, waiting for order, expected) "
                 "before the proxy stops reading it; over twice that, not reading for 1 s, it is "
                 "disconnected")
      ->check(CLI::Range(std::int64_t{1024}, std::int64_t{1} << 40));
  app.add_option("--max-client-memory", a.max_client_memory,
                 "bytes all clients together may hold (commands arriving, replies waiting; "
                 "Redis's maxmemory-clients); past it the clients holding the most are "
                 "disconnected, logged and counted (clients_evicted). 0: no bound")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 50));
  app.add_option("--client-timeout", a.client_timeout_ms,
                 "ms a client may stay silent (sending and reading nothing, no reply awaited, a "
                 "half-sent command included) before it is closed (Redis's timeout); 0: never")
      ->check(CLI::Range(0, 1 << 30));
}

}  // namespace

int main(int argc, char** argv) {
  namespace cli = perflab::cli;
  CLI::App app(
      "A sharding proxy for Redis. Default routing is RedisSharding's: node = crc32(key) mod N "
      "in --nodes order, a key ending in {tag} hashes the tag only; --config serves a "
      "twemproxy pool as twemproxy routes it.",
      "perflab-proxy");
  cli::setup(app);
  Args args;
  add_options(app, args);
  auto rc = cli::parse(app, argc, argv);
  // Passwords given on the command line leave /proc/PID/cmdline now.
  for (const auto& o : cli::hide_option_values(argc, argv, {"--password", "--requirepass"}))
    std::cerr << "perflab-proxy: warning: " << o
              << " on the command line was visible to other users (ps); use " << o
              << "-file or the environment\n";
  if (rc) return *rc;
  try {
    perflab::proxy::return_large_buffers_when_freed();
    perflab::proxy::Proxy proxy(args.options(app));
    g_proxy = &proxy;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGTTIN, SIGTTOU}) sigaction(sig, &sa, nullptr);
    struct sigaction fatal {};
    fatal.sa_handler = on_fatal_signal;
    sigemptyset(&fatal.sa_mask);
    fatal.sa_flags = SA_RESETHAND;
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigaction(sig, &fatal, nullptr);
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
