#include "common/endpoint.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

#include "common/text.h"

namespace perflab {
namespace {

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
  for (const auto& item : split_commas(text)) {
    if (item.empty())
      throw std::invalid_argument("empty entry in Redis node list '" + text +
                                  "' (expected host:port,host:port,...)");
    RedisEndpoint ep = parse_redis_endpoint(item);
    if (!seen.insert({ep.host, ep.port}).second)
      throw std::invalid_argument("Redis node " + ep.address() + " is listed twice in '" + text +
                                  "'");
    nodes.push_back(std::move(ep));
  }
  return nodes;
}

}  // namespace perflab
