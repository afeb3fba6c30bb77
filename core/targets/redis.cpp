#include "targets/redis.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

namespace perflab {
namespace {

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

[[noreturn]] void bad_address(const std::string& text, const std::string& why) {
  throw std::invalid_argument("invalid Redis address '" + text + "': " + why);
}

int parse_port(const std::string& text, const std::string& port) {
  if (port.empty())
    bad_address(text, "missing port after ':' (expected host:port, e.g. 127.0.0.1:6379)");
  if (port.size() > 5 || !std::all_of(port.begin(), port.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      }))
    bad_address(text, "port '" + port + "' is not a number from 1 to 65535");
  int p = std::stoi(port);
  if (p < 1 || p > 65535) bad_address(text, "port " + port + " is out of range 1..65535");
  return p;
}

bool icontains(std::string hay, std::string needle) {
  auto lower = [](std::string& s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  lower(hay);
  lower(needle);
  return hay.find(needle) != std::string::npos;
}

// A reason a person understands, from a failed hiredis context.
std::string failure_reason(const redisContext* c, const RedisEndpoint& ep, long timeout_ms,
                           bool connecting) {
  std::string err = c->errstr;
  if (connecting && c->err == REDIS_ERR_OTHER &&
      (icontains(err, "not known") || icontains(err, "name resolution") ||
       icontains(err, "nodename") || icontains(err, "no address")))
    return "unknown host '" + ep.host + "' (" + err + ")";
  if (icontains(err, "refused"))
    return "connection refused (is a Redis server listening on " + ep.address() + "?)";
  if (icontains(err, "timed out") || icontains(err, "temporarily unavailable") ||
      icontains(err, "timeout"))
    return std::string(connecting ? "no connection" : "no reply") + " within " +
           std::to_string(timeout_ms) + " ms (timeout)";
  if (c->err == REDIS_ERR_EOF) return "server closed the connection";
  if (c->err == REDIS_ERR_PROTOCOL) return "protocol error, is this a Redis server? (" + err + ")";
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

struct ArgvBuf {
  std::vector<const char*> ptrs;
  std::vector<std::size_t> lens;
  explicit ArgvBuf(const std::vector<std::string_view>& argv) {
    ptrs.reserve(argv.size());
    lens.reserve(argv.size());
    for (auto a : argv) ptrs.push_back(a.data()), lens.push_back(a.size());
  }
};

timeval to_timeval(std::chrono::milliseconds t) {
  long ms = std::max<long>(1, static_cast<long>(t.count()));
  return timeval{ms / 1000, static_cast<suseconds_t>((ms % 1000) * 1000)};
}

}  // namespace

RedisEndpoint parse_redis_endpoint(const std::string& input) {
  std::string text = trim(input);
  if (text.empty()) bad_address(input, "empty (expected host:port, e.g. 127.0.0.1:6379)");
  RedisEndpoint ep;
  ep.port = 6379;
  if (text.front() == '[') {
    std::size_t close = text.find(']');
    if (close == std::string::npos) bad_address(text, "missing ']' after the IPv6 address");
    ep.host = text.substr(1, close - 1);
    if (ep.host.empty()) bad_address(text, "empty host between '[' and ']'");
    std::string rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') bad_address(text, "expected ':port' after ']'");
      ep.port = parse_port(text, rest.substr(1));
    }
    return ep;
  }
  std::size_t colon = text.find(':');
  if (colon != std::string::npos && text.find(':', colon + 1) != std::string::npos)
    bad_address(text, "IPv6 addresses need brackets, e.g. [::1]:6379");
  ep.host = text.substr(0, colon);
  if (ep.host.empty()) bad_address(text, "empty host (expected host:port, e.g. 127.0.0.1:6379)");
  if (std::any_of(ep.host.begin(), ep.host.end(),
                  [](char c) { return std::isspace(static_cast<unsigned char>(c)) || c == '/'; }))
    bad_address(text, "host '" + ep.host + "' contains blanks or '/'");
  if (colon != std::string::npos) ep.port = parse_port(text, text.substr(colon + 1));
  return ep;
}

std::vector<RedisEndpoint> parse_redis_nodes(const std::string& text) {
  std::vector<RedisEndpoint> nodes;
  if (trim(text).empty())
    throw std::invalid_argument("no Redis nodes given (expected host:port,host:port,...)");
  std::set<std::pair<std::string, int>> seen;
  std::size_t pos = 0;
  while (true) {
    std::size_t comma = text.find(',', pos);
    std::string item = trim(std::string_view(text).substr(
        pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (item.empty())
      throw std::invalid_argument("empty entry in Redis node list '" + text +
                                  "' (expected host:port,host:port,...)");
    RedisEndpoint ep = parse_redis_endpoint(item);
    if (!seen.insert({ep.host, ep.port}).second)
      throw std::invalid_argument("Redis node " + ep.address() + " is listed twice in '" + text +
                                  "'");
    nodes.push_back(std::move(ep));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return nodes;
}

// ---- RedisClient ----

RedisClient::RedisClient(const RedisEndpoint& ep, std::chrono::milliseconds timeout) : ep_(ep) {
  const std::string prefix = "Redis at " + ep_.address() + ": ";
  timeval tv = to_timeval(timeout);
  c_ = redisConnectWithTimeout(ep_.host.c_str(), ep_.port, tv);
  if (!c_) throw RedisError(prefix + "cannot allocate a connection");
  if (c_->err) {
    std::string why = failure_reason(c_, ep_, static_cast<long>(timeout.count()), true);
    redisFree(std::exchange(c_, nullptr));
    throw RedisError(prefix + why);
  }
  if (redisSetTimeout(c_, tv) != REDIS_OK) {
    std::string why = failure_reason(c_, ep_, static_cast<long>(timeout.count()), true);
    redisFree(std::exchange(c_, nullptr));
    throw RedisError(prefix + why);
  }
  if (!ep_.password.empty()) {
    RedisReply r;
    try {
      r = command({"AUTH", ep_.password});
    } catch (...) {
      redisFree(std::exchange(c_, nullptr));
      throw;
    }
    if (r.type == RedisReply::Type::Error) {
      redisFree(std::exchange(c_, nullptr));
      throw RedisError(prefix + "auth failed (" + r.str + ")");
    }
  }
}

RedisClient::RedisClient(RedisClient&& o) noexcept
    : c_(std::exchange(o.c_, nullptr)), ep_(std::move(o.ep_)) {}

RedisClient& RedisClient::operator=(RedisClient&& o) noexcept {
  if (this != &o) {
    if (c_) redisFree(c_);
    c_ = std::exchange(o.c_, nullptr);
    ep_ = std::move(o.ep_);
  }
  return *this;
}

RedisClient::~RedisClient() {
  if (c_) redisFree(c_);
}

namespace {
long timeout_ms_of(const redisContext* c) {
  return c->timeout ? c->timeout->tv_sec * 1000 + c->timeout->tv_usec / 1000 : 0;
}
}  // namespace

RedisReply RedisClient::command(const std::vector<std::string_view>& argv) {
  const std::string prefix = "Redis at " + ep_.address() + ": ";
  if (!c_) throw RedisError(prefix + "not connected");
  if (argv.empty()) throw RedisError(prefix + "empty command");
  ArgvBuf buf(argv);
  auto* r = static_cast<redisReply*>(
      redisCommandArgv(c_, static_cast<int>(argv.size()), buf.ptrs.data(), buf.lens.data()));
  if (!r) throw RedisError(prefix + failure_reason(c_, ep_, timeout_ms_of(c_), false));
  RedisReply out = convert(r);
  freeReplyObject(r);
  return out;
}

std::vector<RedisReply> RedisClient::pipeline(
    const std::vector<std::vector<std::string_view>>& cmds) {
  const std::string prefix = "Redis at " + ep_.address() + ": ";
  if (!c_) throw RedisError(prefix + "not connected");
  for (const auto& cmd : cmds) {
    if (cmd.empty()) throw RedisError(prefix + "empty command in pipeline");
    ArgvBuf buf(cmd);
    if (redisAppendCommandArgv(c_, static_cast<int>(cmd.size()), buf.ptrs.data(),
                               buf.lens.data()) != REDIS_OK)
      throw RedisError(prefix + failure_reason(c_, ep_, timeout_ms_of(c_), false));
  }
  std::vector<RedisReply> out;
  out.reserve(cmds.size());
  for (std::size_t i = 0; i < cmds.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(c_, &raw) != REDIS_OK || !raw)
      throw RedisError(prefix + failure_reason(c_, ep_, timeout_ms_of(c_), false));
    auto* r = static_cast<redisReply*>(raw);
    out.push_back(convert(r));
    freeReplyObject(r);
  }
  return out;
}

std::string RedisClient::server_version() {
  RedisReply r = command({"INFO", "server"});
  if (r.type != RedisReply::Type::String) return {};
  const std::string key = "redis_version:";
  std::size_t p = r.str.find(key);
  if (p == std::string::npos) return {};
  p += key.size();
  std::size_t e = r.str.find_first_of("\r\n", p);
  return r.str.substr(p, e == std::string::npos ? std::string::npos : e - p);
}

}  // namespace perflab
