// perflab-proxy: the sharding proxy as a standalone daemon (a thin main over core/sharding).
//
//   perflab-proxy --port 8090 --nodes=127.0.0.1:8081,127.0.0.1:8082 [--bind 127.0.0.1]
//                 [--password P] [--write=coalesced|per-reply] [--nodelay=on|off]
//                 [--log-level=error|warn|info|debug] [--max-bulk-len N] [--max-multibulk-len N]
#include <signal.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/endpoint.h"
#include "sharding/proxy.h"

namespace {

perflab::sharding::Proxy* g_proxy = nullptr;

extern "C" void on_signal(int) {
  if (g_proxy) g_proxy->request_stop();
}

const char* kUsage =
    "Usage: perflab-proxy --port N --nodes=host:port,host:port,... [--bind ADDR]\n"
    "                     [--password P] [--write=coalesced|per-reply] [--nodelay=on|off]\n"
    "                     [--log-level=error|warn|info|debug] [--max-bulk-len BYTES]\n"
    "                     [--max-multibulk-len N] [--max-client-pending-bytes BYTES]\n"
    "                     [--backend-connections=shared|per-client]\n"
    "A sharding proxy for Redis: node = crc32(key) mod N in --nodes order; a key ending in\n"
    "{tag} hashes the tag only. Password: also from the PERFLAB_PROXY_PASSWORD environment.\n";

long long to_number(const std::string& opt, const std::string& v, long long lo, long long hi) {
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0 || x < lo || x > hi)
    throw std::invalid_argument(opt + ": expected a number in [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "], got '" + v + "'");
  return x;
}

perflab::sharding::ProxyOptions parse(int argc, char** argv, bool& help) {
  perflab::sharding::ProxyOptions o;
  bool have_nodes = false;
  if (const char* pw = std::getenv("PERFLAB_PROXY_PASSWORD")) o.password = pw;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string name = a, value;
    bool inline_value = false;
    if (auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      inline_value = true;
    }
    auto need = [&]() -> std::string {
      if (inline_value) return value;
      if (i + 1 >= argc) throw std::invalid_argument(name + " needs a value");
      return argv[++i];
    };
    if (name == "--help" || name == "-h") {
      help = true;
      return o;
    } else if (name == "--port") {
      o.port = static_cast<int>(to_number(name, need(), 0, 65535));
    } else if (name == "--bind") {
      o.bind = need();
    } else if (name == "--nodes") {
      o.nodes = perflab::parse_redis_nodes(need());
      have_nodes = true;
    } else if (name == "--password") {
      o.password = need();
    } else if (name == "--write") {
      o.write = perflab::sharding::parse_write_strategy(need());
    } else if (name == "--nodelay") {
      std::string v = need();
      if (v == "on")
        o.nodelay = true;
      else if (v == "off")
        o.nodelay = false;
      else
        throw std::invalid_argument("--nodelay: expected on or off, got '" + v + "'");
    } else if (name == "--backend-connections") {
      std::string v = need();
      if (v == "shared")
        o.shared_backends = true;
      else if (v == "per-client")
        o.shared_backends = false;
      else
        throw std::invalid_argument("--backend-connections: expected shared or per-client, got '" +
                                    v + "'");
    } else if (name == "--log-level") {
      o.log_level = perflab::sharding::parse_log_level(need());
    } else if (name == "--max-bulk-len") {
      o.limits.max_bulk_len = to_number(name, need(), 1, 1LL << 40);
    } else if (name == "--max-multibulk-len") {
      o.limits.max_multibulk_len = to_number(name, need(), 1, 1LL << 31);
    } else if (name == "--max-client-pending-bytes") {
      o.max_client_pending_bytes =
          static_cast<std::size_t>(to_number(name, need(), 1024, 1LL << 40));
    } else {
      throw std::invalid_argument("unknown option '" + a + "'");
    }
  }
  if (!have_nodes || o.nodes.empty())
    throw std::invalid_argument("--nodes=host:port,... is required");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  perflab::sharding::ProxyOptions opts;
  bool help = false;
  try {
    opts = parse(argc, argv, help);
  } catch (const std::exception& e) {
    std::cerr << "perflab-proxy: " << e.what() << " (see --help)\n";
    return 2;
  }
  if (help) {
    std::cout << kUsage;
    return 0;
  }
  try {
    perflab::sharding::Proxy proxy(std::move(opts));
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
    std::cerr << "perflab-proxy: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "perflab-proxy: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
