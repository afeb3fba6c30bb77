#pragma once
// A Redis connection for experiments and tests: a thin RAII wrapper over hiredis.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/endpoint.h"

struct redisContext;

namespace perflab {
class IoDeadline;
}

namespace perflab {

class RedisError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A reply, converted from hiredis' redisReply.
struct RedisReply {
  enum class Type { Status, Error, Integer, Nil, String, Array } type = Type::Nil;
  std::string str;  // Status, Error, String
  std::int64_t integer = 0;
  std::vector<RedisReply> elements;  // Array
  bool operator==(const RedisReply&) const = default;
};

// The deleter of a hiredis connection, for std::unique_ptr: redisFree.
struct RedisContextFree {
  void operator()(redisContext* c) const;
};

// Every command (or pipeline) is answered within the client's timeout or fails, and the
// connection is closed: a frozen server or a partition ends the wait. A stop request (the stop
// token given at construction) is seen within kStopSlice; what is in flight then gets
// kStopGrace (targets/io_wait.h), so a cleanup after a stop still works on a healthy server.
// Movable; a moved-from client is closed.
class RedisClient {
 public:
  // Connects (and AUTHs when a password is given) within timeout; throws RedisError naming
  // the endpoint and the reason (refused, unknown host, auth failed, timeout).
  explicit RedisClient(const RedisEndpoint& ep,
                       std::chrono::milliseconds timeout = std::chrono::seconds(5),
                       std::stop_token stop = {});

  // One command, binary-safe arguments. Error replies are returned, not thrown; I/O failures
  // throw RedisError.
  RedisReply command(const std::vector<std::string_view>& argv);
  // Sends all commands, then reads all replies (a pipeline).
  std::vector<RedisReply> pipeline(const std::vector<std::vector<std::string_view>>& cmds);
  // A pipeline in two halves, so that pipelines to several servers are in flight at once (the
  // cluster client): send() writes the commands, receive() reads that many replies. Between
  // them, no other command on this client. Each half is bounded by the timeout.
  void send(std::span<const std::vector<std::string_view>> cmds);
  void receive(std::span<RedisReply> out);
  std::string server_version();  // INFO server -> redis_version
  const RedisEndpoint& endpoint() const { return ep_; }

 private:
  [[noreturn]] void fail(const std::string& why);
  void exchange(std::span<const std::vector<std::string_view>> cmds, RedisReply* out);
  [[noreturn]] void io_failure();
  void wait_io(IoDeadline& io, short events);
  std::unique_ptr<redisContext, RedisContextFree> c_;  // null once closed (also when moved from)
  RedisEndpoint ep_;
  std::chrono::milliseconds timeout_;
  std::stop_token stop_;
};

// One field of the text INFO and CLUSTER INFO answer with ("redis_version" of INFO server ->
// "7.0.15"); empty when the text has none.
std::string redis_info_field(std::string_view info, std::string_view field);

}  // namespace perflab
