#include "targets/redis.h"

#include <hiredis/hiredis.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>
#include <set>
#include <type_traits>
#include <utility>

#include "common/text.h"
#include "targets/io_wait.h"

namespace perflab {
namespace {

bool icontains(const std::string& hay, const std::string& needle) {
  return to_lower(hay).find(to_lower(needle)) != std::string::npos;
}

// A reason a person understands, from a failed connection or I/O call.
std::string failure_reason(const std::string& err, int code, const RedisEndpoint& ep,
                           long timeout_ms, bool connecting) {
  if (connecting && code == REDIS_ERR_OTHER &&
      (icontains(err, "not known") || icontains(err, "name resolution") ||
       icontains(err, "nodename") || icontains(err, "no address")))
    return "unknown host '" + ep.host + "' (" + err + ")";
  if (icontains(err, "refused"))
    return "connection refused (is a Redis server listening on " + ep.address() + "?)";
  if (icontains(err, "timed out") || icontains(err, "temporarily unavailable") ||
      icontains(err, "timeout"))
    return std::string(connecting ? "no connection" : "no reply") + " within " +
           std::to_string(timeout_ms) + " ms (timeout)";
  if (code == REDIS_ERR_EOF) return "server closed the connection";
  if (code == REDIS_ERR_PROTOCOL) return "protocol error, is this a Redis server? (" + err + ")";
  if (icontains(err, "unreachable")) return "host unreachable (" + err + ")";
  return (connecting ? "cannot connect: " : "I/O error: ") + err;
}

RedisReply convert(const redisReply* r) {
  RedisReply out;
  switch (r->type) {
    case REDIS_REPLY_STATUS:
      out.type = RedisReply::Type::Status;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      out.type = RedisReply::Type::Error;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_STRING:
      out.type = RedisReply::Type::String;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::Integer;
      out.integer = r->integer;
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::Array;
      out.elements.reserve(r->elements);
      for (std::size_t i = 0; i < r->elements; ++i) out.elements.push_back(convert(r->element[i]));
      break;
    default:
      out.type = RedisReply::Type::Nil;
      break;
  }
  return out;
}

// The deleter of a reply hiredis parsed, for std::unique_ptr.
struct ReplyFree {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};

struct ArgvBuf {
  std::vector<const char*> ptrs;
  std::vector<std::size_t> lens;
  explicit ArgvBuf(const std::vector<std::string_view>& argv) {
    ptrs.reserve(argv.size());
    lens.reserve(argv.size());
    for (auto a : argv) ptrs.push_back(a.data()), lens.push_back(a.size());
  }
};

}  // namespace

// ---- RedisClient ----

void RedisContextFree::operator()(redisContext* c) const {
  redisFree(c);
}

// Moved as its handle is: the moved-from client is closed.
static_assert(std::is_nothrow_move_constructible_v<RedisClient> &&
              std::is_nothrow_move_assignable_v<RedisClient>);

RedisClient::RedisClient(const RedisEndpoint& ep, std::chrono::milliseconds timeout,
                         std::stop_token stop)
    : ep_(ep), timeout_(std::max(timeout, std::chrono::milliseconds(1))), stop_(std::move(stop)) {
  const std::string prefix = "Redis at " + ep_.address() + ": ";
  const long timeout_ms = static_cast<long>(timeout_.count());
  // Non-blocking from the start: every wait, the connection's included, is a bounded one.
  // A throw below closes it (c_ is destroyed with the half-built client).
  c_.reset(redisConnectNonBlock(ep_.host.c_str(), ep_.port));
  if (!c_) throw RedisError(prefix + "cannot allocate a connection");
  if (c_->err)
    throw RedisError(prefix + failure_reason(c_->errstr, c_->err, ep_, timeout_ms, true));
  IoDeadline io(timeout_, stop_);
  if (io.wait(c_->fd, POLLOUT) == 0)
    throw RedisError(prefix + (io.stopped() ? std::string("stopped while connecting")
                                            : "no connection within " + std::to_string(timeout_ms) +
                                                  " ms (timeout)"));
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(c_->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
  if (err != 0)
    throw RedisError(prefix +
                     failure_reason(std::strerror(err), REDIS_ERR_IO, ep_, timeout_ms, true));
  if (!ep_.password.empty()) {
    RedisReply r = command({"AUTH", ep_.password});  // closes the connection when it throws
    if (r.type == RedisReply::Type::Error) throw RedisError(prefix + "auth failed (" + r.str + ")");
  }
}

void RedisClient::fail(const std::string& why) {
  // A context that failed (or was left with a half-sent pipeline) is not used again.
  c_.reset();
  throw RedisError("Redis at " + ep_.address() + ": " + why);
}

RedisReply RedisClient::command(const std::vector<std::string_view>& argv) {
  RedisReply r;
  exchange({&argv, 1}, &r);
  return r;
}

std::vector<RedisReply> RedisClient::pipeline(
    const std::vector<std::vector<std::string_view>>& cmds) {
  std::vector<RedisReply> out(cmds.size());
  exchange(cmds, out.data());
  return out;
}

void RedisClient::exchange(std::span<const std::vector<std::string_view>> cmds, RedisReply* out) {
  send(cmds);
  receive({out, cmds.size()});
}

void RedisClient::io_failure() {
  fail(failure_reason(c_->errstr, c_->err, ep_, static_cast<long>(timeout_.count()), false));
}

void RedisClient::wait_io(IoDeadline& io, short events) {
  if (io.wait(c_->fd, events) == 0)
    fail(io.stopped() ? std::string("stopped while waiting for the server")
                      : "no reply within " + std::to_string(timeout_.count()) + " ms (timeout)");
}

void RedisClient::send(std::span<const std::vector<std::string_view>> cmds) {
  if (!c_) throw RedisError("Redis at " + ep_.address() + ": not connected");
  for (const auto& cmd : cmds) {
    if (cmd.empty()) throw RedisError("Redis at " + ep_.address() + ": empty command");
    ArgvBuf buf(cmd);
    if (redisAppendCommandArgv(c_.get(), static_cast<int>(cmd.size()), buf.ptrs.data(),
                               buf.lens.data()) != REDIS_OK)
      io_failure();
  }
  IoDeadline io(timeout_, stop_);
  for (int done = 0; !done;) {
    if (redisBufferWrite(c_.get(), &done) != REDIS_OK) io_failure();
    if (!done) wait_io(io, POLLOUT);
  }
}

void RedisClient::receive(std::span<RedisReply> out) {
  if (!c_) throw RedisError("Redis at " + ep_.address() + ": not connected");
  IoDeadline io(timeout_, stop_);
  for (std::size_t got = 0; got < out.size();) {
    void* raw = nullptr;
    if (redisGetReplyFromReader(c_.get(), &raw) != REDIS_OK) io_failure();
    if (raw) {
      const std::unique_ptr<redisReply, ReplyFree> r(static_cast<redisReply*>(raw));
      out[got++] = convert(r.get());
      continue;
    }
    wait_io(io, POLLIN);
    if (redisBufferRead(c_.get()) != REDIS_OK) io_failure();
  }
}

std::string RedisClient::server_version() {
  RedisReply r = command({"INFO", "server"});
  if (r.type != RedisReply::Type::String) return {};
  return redis_info_field(r.str, "redis_version");
}

std::string redis_info_field(std::string_view info, std::string_view field) {
  const std::string key = std::string(field) + ":";
  std::size_t p = info.find(key);
  if (p == std::string_view::npos) return {};
  p += key.size();
  const std::size_t e = info.find_first_of("\r\n", p);
  return std::string(info.substr(p, e == std::string_view::npos ? std::string_view::npos : e - p));
}

}  // namespace perflab
