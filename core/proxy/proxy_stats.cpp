// The proxy's counters: read from any thread (a snapshot), and shown as twemproxy's stats JSON and
// as an INFO-like text; readers of the statistics port.
#include <unistd.h>

#include <ctime>

#include <nlohmann/json.hpp>

#include "common/run.h"
#include "proxy/proxy.h"
#include "proxy/proxy_impl.h"

namespace perflab::proxy {

namespace {

// Pool counters: twemproxy's names first, then the proxy's own.
template <typename F>
void each_pool_field(const ProxyStats& s, F f) {
  f("client_eof", s.client_eof);
  f("client_err", s.client_err);
  f("client_connections", s.clients_connected);
  f("server_ejects", 0);  // servers are never ejected: their keys get errors instead
  f("forward_error", s.forward_error);
  f("fragments", s.fragments);
  f("requests", s.requests);
  f("clients_refused", s.clients_refused);
  f("protocol_errors", s.protocol_errors);
  f("auth_failures", s.auth_failures);
  f("refused_commands", s.refused_commands);
  f("client_limit_closes", s.client_limit_closes);
  f("client_memory", s.client_memory);
  f("clients_evicted", s.clients_evicted);
  f("clients_rested", s.clients_rested);
  f("replies_held", s.replies_held);
  f("client_timeouts", s.client_timeouts);
  f("backend_failures", s.backend_failures);
  f("backend_timeouts", s.backend_timeouts);
}

template <typename F>
void each_server_field(const ServerStats& v, F f) {
  f("server_eof", v.server_eof);
  f("server_err", v.server_err);
  f("server_timedout", v.server_timedout);
  f("server_connections", v.server_connections);
  f("server_ejected_at", 0);
  f("requests", v.requests);
  f("request_bytes", v.request_bytes);
  f("responses", v.responses);
  f("response_bytes", v.response_bytes);
  f("in_queue_bytes", v.in_queue_bytes);
  f("out_queue", v.out_queue);
}

}  // namespace

std::string stats_json(const ProxyStats& s, const std::string& source, std::int64_t timestamp) {
  nlohmann::ordered_json j;
  j["service"] = "perflab-proxy";
  j["source"] = source;
  j["version"] = perflab_version();
  j["uptime"] = s.uptime_s;
  j["timestamp"] = timestamp;
  j["total_connections"] = s.clients_accepted;
  j["curr_connections"] = s.clients_connected;
  nlohmann::ordered_json pool;
  each_pool_field(s, [&](const char* k, std::uint64_t v) { pool[k] = v; });
  for (const auto& v : s.servers) {
    nlohmann::ordered_json srv;
    each_server_field(v, [&](const char* k, std::uint64_t x) { srv[k] = x; });
    pool[v.name] = std::move(srv);
  }
  j[s.pool] = std::move(pool);
  return j.dump() + "\n";
}

std::string stats_info(const ProxyStats& s) {
  std::string out =
      "# Proxy\r\nservice:perflab-proxy\r\nversion:" + std::string(perflab_version()) +
      "\r\nuptime_in_seconds:" + std::to_string(s.uptime_s) +
      "\r\ntotal_connections:" + std::to_string(s.clients_accepted) +
      "\r\ncurr_connections:" + std::to_string(s.clients_connected) + "\r\n";
  out += "\r\n# Pool " + s.pool + "\r\n";
  each_pool_field(s, [&](const char* k, std::uint64_t v) {
    out.append(k).append(":").append(std::to_string(v)).append("\r\n");
  });
  for (const auto& v : s.servers) {
    out += "\r\n# Server " + v.name + "\r\n";
    each_server_field(v, [&](const char* k, std::uint64_t x) {
      out.append(k).append(":").append(std::to_string(x)).append("\r\n");
    });
  }
  return out;
}

ProxyStats Proxy::Impl::snapshot() const {
  ProxyStats s;
  s.pool = opts.pool;
  s.uptime_s = (wall_ns() - started_ns) / 1000000000;
  s.clients_accepted = st.clients_accepted.get();
  s.clients_connected = st.clients_connected.get();
  s.clients_refused = st.clients_refused.get();
  s.client_eof = st.client_eof.get();
  s.client_err = st.client_err.get();
  s.requests = st.requests.get();
  s.fragments = st.fragments.get();
  s.forward_error = st.forward_error.get();
  s.protocol_errors = st.protocol_errors.get();
  s.auth_failures = st.auth_failures.get();
  s.refused_commands = st.refused_commands.get();
  s.client_limit_closes = st.client_limit_closes.get();
  s.client_memory = memory.held();
  s.clients_evicted = st.clients_evicted.get();
  s.clients_rested = st.clients_rested.get();
  s.replies_held = st.replies_held.get();
  s.client_timeouts = st.client_timeouts.get();
  s.backend_failures = st.backend_failures.get();
  s.backend_timeouts = st.backend_timeouts.get();
  for (std::size_t i = 0; i < st.servers.size(); ++i) {
    const ServerCounters& c = *st.servers[i];
    ServerStats v;
    v.name = opts.servers.empty() ? node_addrs.names[i] : opts.servers[i].name;
    v.server_eof = c.eof.get();
    v.server_err = c.err.get();
    v.server_timedout = c.timedout.get();
    v.server_connections = c.connections.get();
    v.requests = c.requests.get();
    v.request_bytes = c.request_bytes.get();
    v.responses = c.responses.get();
    v.response_bytes = c.response_bytes.get();
    v.in_queue_bytes = c.in_queue_bytes.get();
    v.out_queue = c.out_queue.get();
    s.servers.push_back(std::move(v));
  }
  return s;
}

// Readers of the statistics port are sent the counters as JSON, then closed (flush does).
void Proxy::Impl::accept_stats() {
  std::vector<Conn*> fresh;
  stats.accept(
      poller,
      [&] {
        char host[256] = "";
        ::gethostname(host, sizeof host - 1);
        return stats_json(snapshot(), host, static_cast<std::int64_t>(std::time(nullptr)));
      },
      fresh);
  for (Conn* r : fresh) flush(*r);
}

}  // namespace perflab::proxy
