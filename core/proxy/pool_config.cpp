#include "proxy/pool_config.h"

#include <yaml.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "common/text.h"
#include "proxy/resp.h"

namespace perflab::proxy {

namespace {

[[noreturn]] void bad(const std::string& msg) {
  throw std::invalid_argument(msg);
}

// A value of the pool's mapping: a scalar, or a list of scalars (servers).
struct Value {
  std::string scalar;
  std::vector<std::string> list;
  bool is_list = false;
};

using Pools = std::map<std::string, std::map<std::string, Value>>;
using PoolOrder = std::vector<std::string>;

std::string scalar_of(yaml_node_t* n, const std::string& where) {
  if (!n || n->type != YAML_SCALAR_NODE) bad(where + ": expected a value");
  return {reinterpret_cast<const char*>(n->data.scalar.value), n->data.scalar.length};
}

// The file's pools, with libyaml's document API.
void load(const std::string& text, Pools& pools, PoolOrder& order) {
  yaml_parser_t parser;
  yaml_document_t doc;
  if (!yaml_parser_initialize(&parser)) bad("cannot start the YAML parser");
  std::unique_ptr<yaml_parser_t, void (*)(yaml_parser_t*)> pguard(&parser, yaml_parser_delete);
  yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()),
                               text.size());
  if (!yaml_parser_load(&parser, &doc)) {
    std::string why = parser.problem ? parser.problem : "not YAML";
    bad("not a nutcracker configuration: " + why + " at line " +
        std::to_string(parser.problem_mark.line + 1));
  }
  std::unique_ptr<yaml_document_t, void (*)(yaml_document_t*)> dguard(&doc, yaml_document_delete);
  yaml_node_t* root = yaml_document_get_root_node(&doc);
  if (!root) bad("empty configuration: no pool");
  if (root->type != YAML_MAPPING_NODE) bad("not a nutcracker configuration: expected pools");
  for (auto* p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; ++p) {
    const std::string name = scalar_of(yaml_document_get_node(&doc, p->key), "pool name");
    yaml_node_t* body = yaml_document_get_node(&doc, p->value);
    if (!body || body->type != YAML_MAPPING_NODE) bad("pool " + name + ": expected settings");
    auto& settings = pools[name];
    order.push_back(name);
    for (auto* q = body->data.mapping.pairs.start; q < body->data.mapping.pairs.top; ++q) {
      const std::string key = scalar_of(yaml_document_get_node(&doc, q->key), name);
      yaml_node_t* v = yaml_document_get_node(&doc, q->value);
      Value val;
      if (v && v->type == YAML_SEQUENCE_NODE) {
        val.is_list = true;
        for (auto* i = v->data.sequence.items.start; i < v->data.sequence.items.top; ++i)
          val.list.push_back(
              scalar_of(yaml_document_get_node(&doc, *i), "pool " + name + ", " + key));
      } else {
        val.scalar = scalar_of(v, "pool " + name + ", " + key);
      }
      settings[key] = std::move(val);
    }
  }
}

std::int64_t number(const std::string& pool, const std::string& key, const std::string& v) {
  std::int64_t n = 0;
  if (!parse_int64(v, n)) bad("pool " + pool + ": " + key + " '" + v + "' is not a number");
  return n;
}

bool boolean(const std::string& pool, const std::string& key, const std::string& v) {
  if (v == "true") return true;
  if (v == "false") return false;
  bad("pool " + pool + ": " + key + " '" + v + "' is not true or false");
}

// "host:port:weight [name]", split from the end as twemproxy does.
void add_server(PoolConfig& c, const std::string& line) {
  const std::string where = "pool " + c.name + ", server '" + line + "'";
  if (!line.empty() && line[0] == '/') bad(where + ": unix sockets are not supported");
  std::string spec = line, name;
  if (auto sp = line.rfind(' '); sp != std::string::npos) {
    spec = trim(line.substr(0, sp));
    name = trim(line.substr(sp + 1));
  }
  const auto c2 = spec.rfind(':');
  const auto c1 = c2 == std::string::npos || c2 == 0 ? std::string::npos : spec.rfind(':', c2 - 1);
  if (c1 == std::string::npos) bad(where + ": expected host:port:weight [name]");
  const std::string host = spec.substr(0, c1);
  const std::string port_text = spec.substr(c1 + 1, c2 - c1 - 1);
  const std::int64_t port = number(c.name, "server port", port_text);
  const std::int64_t weight = number(c.name, "server weight", spec.substr(c2 + 1));
  if (port < 1 || port > 65535) bad(where + ": port out of range");
  if (weight < 1) bad(where + ": weight must be at least 1");
  RedisEndpoint ep;
  ep.host = host;
  ep.port = static_cast<int>(port);
  c.nodes.push_back(ep);
  // twemproxy's ketama name: the given one, else "host:port" ("host" alone for port 11211).
  if (name.empty()) name = port == 11211 ? host : host + ":" + port_text;
  c.servers.push_back({name, static_cast<int>(weight)});
}

// The name of the pool asked for: `pool`, or the only pool of the file.
std::string pick_pool(const Pools& pools, const PoolOrder& order, const std::string& pool) {
  if (order.empty()) bad("no pool in the configuration");
  std::string want = pool;
  if (want.empty()) {
    if (order.size() > 1) bad("the configuration has pools " + join(order, ", ") + ": pick one");
    want = order.front();
  }
  if (pools.find(want) == pools.end())
    bad("no pool '" + want + "' in the configuration (it has " + join(order, ", ") + ")");
  return want;
}

void set_listen(PoolConfig& c, const std::string& s) {
  const auto colon = s.rfind(':');
  if (s.empty() || s[0] == '/' || colon == std::string::npos)
    bad("pool " + c.name + ": listen '" + s + "' is not host:port (unix sockets unsupported)");
  c.listen_host = s.substr(0, colon);
  const std::int64_t p = number(c.name, "listen port", s.substr(colon + 1));
  if (p < 0 || p > 65535) bad("pool " + c.name + ": listen port out of range");
  c.listen_port = static_cast<int>(p);
}

// Settings twemproxy has that perflab-proxy reads but does not honour: a note each.
void note_unhonoured(PoolConfig& c, const std::string& key, const std::string& s) {
  if (key == "auto_eject_hosts") {
    if (boolean(c.name, key, s))
      c.notes.push_back(
          "auto_eject_hosts: true is not honoured: a failed server is not ejected, its keys get "
          "errors until it is back (keys never move)");
  } else if (key == "server_connections") {
    if (number(c.name, key, s) > 1)
      c.notes.push_back("server_connections: " + s +
                        " is not honoured: one shared connection per server");
  } else if (key == "backlog" || key == "client_connections" || key == "preconnect" ||
             key == "server_retry_timeout" || key == "server_failure_limit" ||
             key == "tcpkeepalive" || key == "reuseport") {
    c.notes.push_back(key + " is not honoured");
  } else {
    bad("pool " + c.name + ": unknown setting '" + key + "'");
  }
}

// One setting of the pool (not servers); `redis` is set by "redis: true".
void apply_setting(PoolConfig& c, const std::string& key, const std::string& s, bool& redis) {
  const std::string& want = c.name;
  if (key == "listen") {
    set_listen(c, s);
  } else if (key == "hash") {
    c.routing.hash = parse_hash_function(s);
  } else if (key == "distribution") {
    c.routing.distribution = parse_distribution(s);
  } else if (key == "hash_tag") {
    if (s.size() != 2) bad("pool " + want + ": hash_tag '" + s + "' is not two characters");
    c.routing.tag = HashTag::parse(s);
  } else if (key == "timeout") {
    const std::int64_t t = number(want, key, s);
    c.timeout_ms = t > 0 ? static_cast<int>(std::min<std::int64_t>(t, 1 << 30)) : 0;
  } else if (key == "redis") {
    redis = boolean(want, key, s);
  } else if (key == "redis_auth") {
    c.redis_auth = s;
  } else if (key == "redis_db") {
    const std::int64_t db = number(want, key, s);
    if (db < 0) bad("pool " + want + ": redis_db below 0");
    c.redis_db = static_cast<int>(db);
  } else {
    note_unhonoured(c, key, s);
  }
}

// twemproxy sorts a pool's servers by name (shorter names first, then byte order) when it
// checks them for duplicates, and distributes over that order, not the file's.
void sort_servers_as_twemproxy(PoolConfig& c) {
  std::vector<std::size_t> idx(c.nodes.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  auto before = [&](std::size_t a, std::size_t b) {
    const std::string &x = c.servers[a].name, &y = c.servers[b].name;
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  };
  std::sort(idx.begin(), idx.end(), before);
  for (std::size_t i = 0; i + 1 < idx.size(); ++i)
    if (c.servers[idx[i]].name == c.servers[idx[i + 1]].name)
      bad("pool " + c.name + " has servers with the same name '" + c.servers[idx[i]].name + "'");
  std::vector<RedisEndpoint> nodes;
  std::vector<PoolServer> servers;
  for (std::size_t i : idx) {
    nodes.push_back(c.nodes[i]);
    servers.push_back(c.servers[i]);
  }
  c.nodes = std::move(nodes);
  c.servers = std::move(servers);
}

}  // namespace

PoolConfig parse_nutcracker_pool(const std::string& yaml, const std::string& pool) {
  Pools pools;
  PoolOrder order;
  load(yaml, pools, order);
  PoolConfig c;
  c.name = pick_pool(pools, order, pool);
  c.routing.hash = HashFunction::Fnv1a_64;
  c.routing.distribution = Distribution::Ketama;
  c.routing.tag.rule = HashTag::Rule::None;
  bool redis = false;
  for (const auto& [key, v] : pools.at(c.name)) {
    if (key == "servers") {
      if (!v.is_list) bad("pool " + c.name + ": servers must be a list");
      for (const auto& line : v.list) add_server(c, line);
      continue;
    }
    if (v.is_list) bad("pool " + c.name + ": " + key + " must be a single value");
    apply_setting(c, key, v.scalar, redis);
  }
  if (!redis)
    bad("pool " + c.name + " is not a Redis pool (redis: true): memcached is not supported");
  if (c.nodes.empty()) bad("pool " + c.name + " has no servers");
  sort_servers_as_twemproxy(c);
  return c;
}

PoolConfig read_nutcracker_pool(const std::string& path, const std::string& pool) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad("cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  try {
    return parse_nutcracker_pool(ss.str(), pool);
  } catch (const std::invalid_argument& e) {
    bad(path + ": " + e.what());
  }
}

}  // namespace perflab::proxy
