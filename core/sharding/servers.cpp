// The servers a sharding run measures: twemproxy as a child process, perflab-proxy per write
// strategy, the run's Redis nodes and cluster, and the cleanup of the keys written there.
#include "sharding/servers.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "targets/child_process.h"
#include "targets/owned_folder.h"
#include "targets/server_binary.h"
#include "targets/server_start.h"
#include "targets/targets.h"

namespace perflab::sharding {

namespace fs = std::filesystem;

namespace {

bool port_accepts(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

// twemproxy (nutcracker) as a child process, configured to route like RedisSharding:
// crc32a (the full IEEE CRC-32) and modula over the nodes in order.
class Twemproxy {
 public:
  // Starts nutcracker and waits (up to 5 s, or until a stop request) until it listens.
  Twemproxy(const fs::path& binary, const std::vector<RedisEndpoint>& nodes, std::stop_token stop)
      : dir_("perflab-twemproxy-"), port_(free_loopback_port()) {
    const int stats_port = free_loopback_port();
    {
      std::ofstream y(dir_.path() / "nutcracker.yml");
      y << "perflab:\n"
        << "  listen: 127.0.0.1:" << port_ << "\n"
        << "  hash: crc32a\n"
        << "  distribution: modula\n"
        << "  redis: true\n"
        << "  preconnect: true\n"
        << "  auto_eject_hosts: false\n"
        << "  server_connections: 1\n"
        << "  timeout: 5000\n"
        << "  servers:\n";
      for (const auto& n : nodes) y << "   - " << n.host << ":" << n.port << ":1\n";
    }
    ChildProcessOptions opts;
    opts.args = {"-c", (dir_.path() / "nutcracker.yml").string(),
                 "-o", (dir_.path() / "nutcracker.log").string(),
                 "-p", (dir_.path() / "nutcracker.pid").string(),
                 "-s", std::to_string(stats_port),
                 "-a", "127.0.0.1",
                 "-v", "4"};
    opts.output = dir_.path() / "stdout.log";
    proc_ = std::make_unique<ChildProcess>(binary, std::move(opts));
    for (int i = 0; i < 100; ++i) {  // up to 5 s
      if (port_accepts(port_)) return;
      if (!proc_->running())
        throw std::runtime_error("nutcracker " + describe_exit_status(*proc_->exit_status()) +
                                 " at start");
      if (stop.stop_requested()) throw Cancelled{};
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    throw std::runtime_error("nutcracker did not start listening within 5 s");
  }
  int port() const { return port_; }

 private:
  TempFolder dir_;  // destroyed last: the process is stopped before its folder goes
  int port_ = 0;
  std::unique_ptr<ChildProcess> proc_;
};

KeyCleanup::~KeyCleanup() {
  for (std::size_t i = 0; i < t_.nodes.size(); ++i) {
    try {
      // A healthy server answers a cleanup in milliseconds; a frozen one is not waited for long.
      RedisClient c(t_.nodes[i], std::min(t_.timeout, std::chrono::milliseconds(1000)), stop_);
      clean(c);
    } catch (...) {
      // Best effort: a node that went away or froze keeps nothing worth waiting for.
    }
  }
}

namespace {
// Up to this keyspace the keys are deleted by name; beyond it by a SCAN of their shape.
constexpr std::int64_t kByName = 1'000'000;
}  // namespace

void KeyCleanup::clean(RedisClient& c) const {
  std::vector<std::string> batch;
  auto flush = [&] {
    if (batch.empty()) return;
    std::vector<std::string_view> del{"UNLINK"};
    for (const auto& k : batch) del.push_back(k);
    c.command(del);
    batch.clear();
  };
  if (keyspace_ == 0) {
    batch.push_back(key_prefix_ + std::string(kBenchKeyPlaceholder));
  } else if (keyspace_ <= kByName) {
    for (std::int64_t k = 0; k < keyspace_; ++k) {
      batch.push_back(bench_key(key_prefix_, k));
      if (batch.size() == 1000) flush();
    }
  } else {
    std::string pattern = redis_glob_escape(key_prefix_);
    for (int d = 0; d < 12; ++d) pattern += "[0-9]";
    std::string cursor = "0";
    do {
      RedisReply r = c.command({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
      if (r.type != RedisReply::Type::Array || r.elements.size() != 2) break;
      cursor = r.elements[0].str;
      for (const auto& k : r.elements[1].elements)
        if (std::stoll(k.str.substr(key_prefix_.size())) < keyspace_) batch.push_back(k.str);
      flush();
    } while (cursor != "0");
  }
  flush();
}

ClusterKeyCleanup::~ClusterKeyCleanup() {
  if (!t_) return;
  try {
    const auto timeout = std::min(t_->timeout, std::chrono::milliseconds(1000));
    ClusterClient cluster(t_->seeds, timeout, stop_);
    for (RedisEndpoint m : cluster.masters()) {
      m.password = t_->seeds.front().password;
      RedisClient c(m, timeout, stop_);
      const std::string pattern = redis_glob_escape(key_prefix_) + "*";
      std::string cursor = "0";
      do {
        RedisReply r = c.command({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
        if (r.type != RedisReply::Type::Array || r.elements.size() != 2) break;
        cursor = r.elements[0].str;
        std::vector<std::vector<std::string_view>> unlink;
        for (const auto& k : r.elements[1].elements) unlink.push_back({"UNLINK", k.str});
        if (!unlink.empty()) c.pipeline(unlink);
      } while (cursor != "0");
    }
  } catch (...) {
    // Best effort, as KeyCleanup.
  }
}

namespace {

std::unique_ptr<proxy::Proxy> start_proxy(const std::vector<RedisEndpoint>& nodes, const Variant& v,
                                          bool cluster) {
  proxy::ProxyOptions o;
  o.port = 0;
  (cluster ? o.cluster : o.nodes) = nodes;
  o.password = nodes.front().password;
  o.write = v.write;
  o.nodelay = v.nodelay;
  o.log_level = proxy::LogLevel::Warn;
  auto proxy = std::make_unique<proxy::Proxy>(o);
  proxy->start();
  return proxy;
}

// twemproxy, or why it is left out of this run (a finding says so).
std::unique_ptr<Twemproxy> start_twemproxy(const RedisTarget& target, std::stop_token stop,
                                           std::string& why_not) {
  std::optional<fs::path> bin;
  try {
    bin = find_server_binary("nutcracker");
  } catch (const std::exception&) {
  }
  if (!bin) {
    why_not = "nutcracker is not installed (Debian package nutcracker)";
    return nullptr;
  }
  if (!target.nodes.front().password.empty()) {
    why_not = "the nodes need a password";
    return nullptr;
  }
  try {
    return std::make_unique<Twemproxy>(*bin, target.nodes, stop);
  } catch (const std::exception& e) {
    why_not = e.what();
    return nullptr;
  }
}

}  // namespace

ServersUnderTest start_servers(RunContext& ctx, const RedisTarget& target,
                               const std::optional<RedisClusterTarget>& cluster,
                               const std::vector<Variant>& variants) {
  ServersUnderTest s;
  s.cluster = cluster;
  for (const Variant& v : variants) {
    if (v.kind == VariantKind::RedisBenchmarkCluster) {
      std::string why_not;
      try {
        find_server_binary("redis-benchmark");
      } catch (const std::exception&) {
        why_not = "redis-benchmark is not installed (Debian package redis-tools)";
      }
      if (why_not.empty() && !cluster->managed)
        why_not =
            "its keys (key:{tag}:...) are not under Perflab's prefix, so it runs only on "
            "a managed cluster";
      if (!why_not.empty()) {
        ctx.add_finding(note_finding({"redis_benchmark_cluster.skipped", "",
                                      "redis-benchmark --cluster left out: " + why_not, ""}));
        continue;
      }
    }
    if (v.kind == VariantKind::ProxyOverCluster) {
      s.proxies[v.token] = start_proxy(cluster->seeds, v, true);
      s.ports[v.token] = s.proxies[v.token]->port();
    } else if (uses_cluster(v)) {
      s.ports[v.token] = cluster->seeds.front().port;
    } else if (v.kind == VariantKind::Direct) {
      s.ports[v.token] = target.nodes.front().port;
    } else if (v.kind == VariantKind::Proxy) {
      s.proxies[v.token] = start_proxy(target.nodes, v, false);
      s.ports[v.token] = s.proxies[v.token]->port();
    } else {
      std::string why_not;
      s.twem = start_twemproxy(target, ctx.stop_token(), why_not);
      if (!s.twem) {
        ctx.add_finding(
            note_finding({"twemproxy.skipped", "", "twemproxy left out: " + why_not, ""}));
        continue;
      }
      s.ports[v.token] = s.twem->port();
    }
    s.variants.push_back(v);
  }
  return s;
}

ServersUnderTest::ServersUnderTest() = default;
ServersUnderTest::ServersUnderTest(ServersUnderTest&&) noexcept = default;
ServersUnderTest::~ServersUnderTest() = default;

bool cluster_client(const Variant& v) {
  return v.kind == VariantKind::Cluster || v.kind == VariantKind::RedisBenchmarkCluster;
}

BenchOptions variant_bench_options(BenchOptions base, const ServersUnderTest& s, const Variant& v,
                                   const std::string& direct_host) {
  base.host = v.kind == VariantKind::Direct ? direct_host : "127.0.0.1";
  base.port = s.ports.at(v.token);
  if (cluster_client(v)) {
    base.cluster = true;
    base.host = s.cluster->seeds.front().host;
    base.password = s.cluster->seeds.front().password;
  }
  return base;
}

namespace {

RedisTarget started_nodes(RunContext& ctx, const TargetNeeds& need, double progress) {
  ctx.progress(progress, "starting Redis nodes");
  RedisTarget target = ctx.targets().redis(need.redis_nodes, ctx.stop_token());
  for (const auto& t : ctx.targets().describe()) ctx.add_target(t);
  return target;
}

std::optional<RedisClusterTarget> started_cluster(RunContext& ctx, const TargetNeeds& need,
                                                  double progress) {
  if (!need.redis_cluster) return std::nullopt;
  ctx.progress(progress, "starting the Redis Cluster");
  RedisClusterTarget cluster = ctx.targets().redis_cluster(ctx.stop_token());
  for (const auto& t : ctx.targets().describe()) ctx.add_target(t);
  return cluster;
}

}  // namespace

RunServers::RunServers(RunContext& ctx, const TargetNeeds& need, const std::string& key_suffix,
                       std::int64_t keyspace, double nodes_progress, double cluster_progress)
    : target(started_nodes(ctx, need, nodes_progress)),
      key_prefix(target.prefix + key_suffix),
      cleanup(target, key_prefix, keyspace, ctx.stop_token()),
      cluster(started_cluster(ctx, need, cluster_progress)),
      cluster_cleanup(cluster, key_prefix, ctx.stop_token()) {}

}  // namespace perflab::sharding
