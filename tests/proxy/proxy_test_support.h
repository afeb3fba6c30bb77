#pragma once
// What the proxy's integration tests share: four managed shard nodes and a single Redis for
// reference replies, a proxy in front of them, reply printing, a raw TCP client, the
// conformance script.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/key_slot.h"
#include "proxy/pool_config.h"
#include "proxy/proxy.h"
#include "proxy/routing.h"
#include "servers.h"
#include "targets/child_process.h"
#include "targets/cluster.h"
#include "targets/managed_redis.h"
#include "targets/managed_redis_cluster.h"
#include "targets/owned_folder.h"
#include "targets/redis.h"
#include "targets/server_binary.h"
#include "targets/server_start.h"

namespace perflab::proxy::support {

using Cmd = std::vector<std::string>;

// Four shard nodes and one separate single Redis for reference replies.
struct Servers {
  std::vector<RedisEndpoint> shards;
  RedisEndpoint single;
};

inline const Servers& servers() {
  static Servers s = [] {
    RedisTarget t = test::shared_targets().redis(5);
    Servers r;
    r.shards.assign(t.nodes.begin(), t.nodes.begin() + 4);
    r.single = t.nodes[4];
    return r;
  }();
  return s;
}

inline std::unique_ptr<Proxy> make_proxy(const std::vector<RedisEndpoint>& nodes,
                                         WriteStrategy w = WriteStrategy::Coalesced,
                                         bool nodelay = true, RespLimits limits = {},
                                         bool shared = true) {
  ProxyOptions o;
  o.shared_backends = shared;
  o.port = 0;
  o.nodes = nodes;
  o.write = w;
  o.nodelay = nodelay;
  o.limits = limits;
  o.log_level = LogLevel::Error;
  auto p = std::make_unique<Proxy>(o);
  p->start();
  return p;
}

inline RedisEndpoint at(int port) {
  return {"127.0.0.1", port, {}};
}

inline RedisReply run(RedisClient& c, const Cmd& cmd) {
  std::vector<std::string_view> v(cmd.begin(), cmd.end());
  return c.command(v);
}

inline std::string show(const RedisReply& r) {
  switch (r.type) {
    case RedisReply::Type::Status:
      return "+" + r.str;
    case RedisReply::Type::Error:
      return "-" + r.str;
    case RedisReply::Type::Integer:
      return ":" + std::to_string(r.integer);
    case RedisReply::Type::Nil:
      return "nil";
    case RedisReply::Type::String:
      return "\"" + r.str + "\"";
    case RedisReply::Type::Array: {
      std::string s = "[";
      for (const auto& e : r.elements) s += show(e) + " ";
      return s + "]";
    }
  }
  return "?";
}

// A raw TCP client, for bytes the Redis clients would never send.
class Raw {
 public:
  explicit Raw(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
      throw std::runtime_error("connect failed");
  }
  ~Raw() {
    if (fd_ >= 0) ::close(fd_);
  }
  // Ends what this side sends (FIN): the peer reads end of stream, and keeps reading it.
  void half_close() { ::shutdown(fd_, SHUT_WR); }
  void send(const std::string& s) {
    ASSERT_EQ(::send(fd_, s.data(), s.size(), MSG_NOSIGNAL), (ssize_t)s.size());
  }
  // Reads until `want` bytes, end of stream or 5 s of silence; eof tells whether it closed.
  std::string read(std::size_t want, bool* eof = nullptr) {
    std::string out;
    if (eof) *eof = false;
    while (out.size() < want) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 5000) <= 0) break;
      char buf[4096];
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        if (eof) *eof = true;
        break;
      }
      out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
  }
  // Whether anything (bytes or end of stream) is there to read right now.
  bool readable_now() {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0;
  }
  bool closed_by_peer() {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) return false;
    char b;
    return ::recv(fd_, &b, 1, 0) == 0;
  }

 private:
  int fd_ = -1;
};

inline std::string run_process(const std::string& cmd, int* status = nullptr) {
  std::string out;
  FILE* f = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!f) return out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  int st = ::pclose(f);
  if (status) *status = st;
  return out;
}

// The conformance script: strings, lists, hashes, sets, MGET across nodes, DEL counts, MSET,
// hash tags, errors.
inline const std::vector<Cmd>& script() {
  static const std::vector<Cmd> s = {
      {"PING"},
      {"ECHO", "hello"},
      {"SET", "a", "1"},
      {"GET", "a"},
      {"GET", "missing"},
      {"INCR", "a"},
      {"INCRBY", "a", "10"},
      {"APPEND", "s", "hello"},
      {"APPEND", "s", " world"},
      {"STRLEN", "s"},
      {"GETRANGE", "s", "1", "3"},
      {"SETNX", "a", "2"},
      {"SETEX", "e", "100", "v"},
      {"TTL", "e"},
      {"TYPE", "a"},
      {"MSET", "k1", "v1", "k2", "v2", "k3", "v3", "k4", "v4", "k5", "v5", "k6", "v6"},
      {"MGET", "k1", "k2", "missing", "k3", "k4", "k5", "k6", "a"},
      {"EXISTS", "k1", "k2", "nope", "k3", "k1"},
      {"DEL", "k1", "k2", "nope"},
      {"EXISTS", "k1", "k2", "k3"},
      {"UNLINK", "k3", "k4", "k5"},
      {"MGET", "k1", "k6"},
      {"MSETNX", "n1{m}", "1", "n2{m}", "2", "n3{m}", "3"},  // one node: MSETNX stays atomic
      {"MGET", "n1{m}", "n2{m}", "n3{m}"},
      {"LPUSH", "l", "a", "b", "c"},
      {"RPUSH", "l", "d"},
      {"LRANGE", "l", "0", "-1"},
      {"LLEN", "l"},
      {"LPOP", "l"},
      {"RPOP", "l"},
      {"LINDEX", "l", "0"},
      {"HSET", "h", "f1", "v1", "f2", "v2"},
      {"HGET", "h", "f1"},
      {"HGETALL", "h"},
      {"HMGET", "h", "f1", "nope", "f2"},
      {"HINCRBY", "h", "n", "5"},
      {"HDEL", "h", "f1"},
      {"HLEN", "h"},
      {"SADD", "set", "x", "y", "z", "x"},
      {"SCARD", "set"},
      {"SISMEMBER", "set", "y"},
      {"ZADD", "z", "1", "a", "2", "b"},
      {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
      {"ZSCORE", "z", "b"},
      {"MSET", "user{7}", "alice", "cart{7}", "apple", "{7}x", "x"},
      {"MGET", "user{7}", "cart{7}", "{7}x"},
      {"RPUSH", "q{t}", "1"},
      {"BLPOP", "q2{t}", "q{t}", "1"},
      {"GET", "l"},    // WRONGTYPE, from the node
      {"GET"},         // arity
      {"MSET", "k1"},  // arity
      {"SET", "a"},    // arity, from the node
      {"DEL", "a", "s", "e", "l", "h", "set", "z", "n1{m}", "n2{m}", "n3{m}", "user{7}", "cart{7}",
       "{7}x"},
      {"DBSIZE"},
  };
  return s;
}

inline void flush_all(const RedisEndpoint& ep) {
  RedisClient c(ep);
  c.command({"FLUSHALL"});
}

}  // namespace perflab::proxy::support
