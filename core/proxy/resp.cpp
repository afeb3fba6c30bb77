#include "proxy/resp.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace perflab::proxy {

namespace {

// Position of "\r\n" at or after from, or npos.
std::size_t find_crlf(std::string_view data, std::size_t from) {
  while (from < data.size()) {
    const void* p = std::memchr(data.data() + from, '\r', data.size() - from);
    if (!p) return std::string_view::npos;
    std::size_t i = static_cast<const char*>(p) - data.data();
    if (i + 1 >= data.size()) return std::string_view::npos;  // '\n' not here yet
    if (data[i + 1] == '\n') return i;
    from = i + 1;
  }
  return std::string_view::npos;
}

std::string printable(char c) {
  if (c >= 0x20 && c < 0x7f) return std::string(1, c);
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
  return buf;
}

ParseResult error(std::string msg) {
  return {ParseStatus::Error, 0, std::move(msg)};
}
ParseResult incomplete() {
  return {ParseStatus::Incomplete, 0, {}};
}
ParseResult complete(std::size_t n) {
  return {ParseStatus::Complete, n, {}};
}

}  // namespace

bool parse_int64(std::string_view s, std::int64_t& out) {
  // Redis's string2ll: "0", or an optional '-' and a first digit 1-9; no '+', no leading zero,
  // no "-0", nothing else on the line.
  if (s.empty() || s.size() > 20) return false;
  if (s == "0") {
    out = 0;
    return true;
  }
  std::size_t i = s[0] == '-' ? 1 : 0;
  if (i >= s.size() || s[i] < '1' || s[i] > '9') return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

// ---------------------------------------------------------------------------------------------
// Requests

void RequestParser::reset() {
  in_multibulk_ = false;
  expected_ = 0;
  pos_ = 0;
  args_.clear();
}

ParseResult RequestParser::parse_inline(std::string_view data,
                                        std::vector<std::string_view>& argv) {
  std::size_t nl = data.find('\n');
  if (nl == std::string_view::npos) {
    if (data.size() > limits_.max_inline_len)
      return error("Protocol error: too big inline request");
    return incomplete();
  }
  if (nl > limits_.max_inline_len) return error("Protocol error: too big inline request");
  std::string_view line = data.substr(0, nl);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  argv.clear();
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) argv.push_back(line.substr(start, i - start));
  }
  return complete(nl + 1);
}

ParseResult RequestParser::parse(std::string_view data, std::vector<std::string_view>& argv) {
  if (!in_multibulk_) {
    if (data.empty()) return incomplete();
    if (data[0] != '*') {
      ParseResult r = parse_inline(data, argv);
      if (r.status != ParseStatus::Incomplete) reset();
      return r;
    }
    std::size_t crlf = find_crlf(data, 1);
    if (crlf == std::string_view::npos) {
      if (data.size() > limits_.max_inline_len) {
        reset();
        return error("Protocol error: too big mbulk count string");
      }
      return incomplete();
    }
    std::int64_t n = 0;
    if (!parse_int64(data.substr(1, crlf - 1), n) || n > limits_.max_multibulk_len) {
      reset();
      return error("Protocol error: invalid multibulk length");
    }
    if (unauthenticated_ && n > 10) {
      reset();
      return error("Protocol error: unauthenticated multibulk length");
    }
    if (n <= 0) {  // "*0" and "*-1" are empty commands, skipped as Redis does
      argv.clear();
      reset();
      return complete(crlf + 2);
    }
    in_multibulk_ = true;
    expected_ = n;
    pos_ = crlf + 2;
    args_.clear();
    args_.reserve(static_cast<std::size_t>(std::min<std::int64_t>(n, 1024)));
  }
  while (static_cast<std::int64_t>(args_.size()) < expected_) {
    if (pos_ >= data.size()) return incomplete();
    if (data[pos_] != '$') {
      std::string msg = "Protocol error: expected '$', got '" + printable(data[pos_]) + "'";
      reset();
      return error(std::move(msg));
    }
    std::size_t crlf = find_crlf(data, pos_ + 1);
    if (crlf == std::string_view::npos) {
      if (data.size() - pos_ > limits_.max_inline_len) {
        reset();
        return error("Protocol error: too big bulk count string");
      }
      return incomplete();
    }
    std::int64_t len = 0;
    if (!parse_int64(data.substr(pos_ + 1, crlf - pos_ - 1), len) || len < 0 ||
        len > limits_.max_bulk_len) {
      reset();
      return error("Protocol error: invalid bulk length");
    }
    if (unauthenticated_ && len > 16384) {
      reset();
      return error("Protocol error: unauthenticated bulk length");
    }
    std::size_t body = crlf + 2;
    std::size_t need = body + static_cast<std::size_t>(len) + 2;
    if (data.size() < need) return incomplete();
    if (data[need - 2] != '\r' || data[need - 1] != '\n') {
      reset();
      return error("Protocol error: expected CRLF after bulk argument");
    }
    args_.emplace_back(body, static_cast<std::size_t>(len));
    pos_ = need;
  }
  argv.clear();
  argv.reserve(args_.size());
  for (auto [off, len] : args_) argv.push_back(data.substr(off, len));
  std::size_t consumed = pos_;
  reset();
  return complete(consumed);
}

// ---------------------------------------------------------------------------------------------
// Replies

void ReplyScanner::reset() {
  pos_ = 0;
  stack_.clear();
}

ParseResult ReplyScanner::scan(std::string_view data) {
  const std::size_t max_line = std::max<std::size_t>(limits_.max_inline_len, 1 << 20);
  for (;;) {
    if (pos_ >= data.size()) return incomplete();
    char type = data[pos_];
    std::size_t crlf = find_crlf(data, pos_ + 1);
    if (crlf == std::string_view::npos) {
      if (data.size() - pos_ > max_line) {
        reset();
        return error("Protocol error: too big reply line");
      }
      return incomplete();
    }
    std::string_view line = data.substr(pos_ + 1, crlf - pos_ - 1);
    std::int64_t n = 0;
    switch (type) {
      case '+':
      case '-':
        pos_ = crlf + 2;
        break;
      case ':':
        if (!parse_int64(line, n)) {
          reset();
          return error("Protocol error: invalid integer reply");
        }
        pos_ = crlf + 2;
        break;
      case '$': {
        if (!parse_int64(line, n) || n < -1 || n > limits_.max_bulk_len) {
          reset();
          return error("Protocol error: invalid bulk length");
        }
        if (n == -1) {
          pos_ = crlf + 2;
          break;
        }
        std::size_t need = crlf + 2 + static_cast<std::size_t>(n) + 2;
        if (data.size() < need) return incomplete();
        if (data[need - 2] != '\r' || data[need - 1] != '\n') {
          reset();
          return error("Protocol error: expected CRLF after bulk reply");
        }
        pos_ = need;
        break;
      }
      case '*':
        if (!parse_int64(line, n) || n < -1) {
          reset();
          return error("Protocol error: invalid multibulk length");
        }
        pos_ = crlf + 2;
        if (n > 0) {
          if (static_cast<int>(stack_.size()) >= limits_.max_reply_depth) {
            reset();
            return error("Protocol error: reply nested too deeply");
          }
          stack_.push_back(n);
          continue;  // its elements follow
        }
        break;
      default: {
        std::string msg = "Protocol error: invalid type byte '" + printable(type) + "'";
        reset();
        return error(std::move(msg));
      }
    }
    // One element finished: close every array it completes.
    while (!stack_.empty()) {
      if (--stack_.back() > 0) break;
      stack_.pop_back();
    }
    if (stack_.empty()) {
      std::size_t consumed = pos_;
      reset();
      return complete(consumed);
    }
  }
}

namespace {

bool parse_value(std::string_view data, std::size_t& pos, RespValue& out, int depth) {
  if (pos >= data.size() || depth > 512) return false;
  std::size_t start = pos;
  std::size_t crlf = find_crlf(data, pos + 1);
  if (crlf == std::string_view::npos) return false;
  char type = data[pos];
  std::string_view line = data.substr(pos + 1, crlf - pos - 1);
  pos = crlf + 2;
  out.elements.clear();
  out.integer = 0;
  out.str = {};
  std::int64_t n = 0;
  switch (type) {
    case '+':
      out.type = RespValue::Type::Status;
      out.str = line;
      break;
    case '-':
      out.type = RespValue::Type::Error;
      out.str = line;
      break;
    case ':':
      out.type = RespValue::Type::Integer;
      if (!parse_int64(line, out.integer)) return false;
      break;
    case '$':
      if (!parse_int64(line, n) || n < -1) return false;
      if (n == -1) {
        out.type = RespValue::Type::Nil;
        break;
      }
      if (data.size() < pos + static_cast<std::size_t>(n) + 2) return false;
      out.type = RespValue::Type::Bulk;
      out.str = data.substr(pos, static_cast<std::size_t>(n));
      pos += static_cast<std::size_t>(n) + 2;
      break;
    case '*':
      if (!parse_int64(line, n) || n < -1) return false;
      if (n == -1) {
        out.type = RespValue::Type::NilArray;
        break;
      }
      out.type = RespValue::Type::Array;
      out.elements.resize(static_cast<std::size_t>(n));
      for (auto& e : out.elements)
        if (!parse_value(data, pos, e, depth + 1)) return false;
      break;
    default:
      return false;
  }
  out.raw = data.substr(start, pos - start);
  return true;
}

}  // namespace

bool parse_reply(std::string_view data, RespValue& out, std::size_t* consumed) {
  std::size_t pos = 0;
  if (!parse_value(data, pos, out, 0)) return false;
  if (consumed) *consumed = pos;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Writers

namespace {
void append_line(std::string& out, char type, std::int64_t v) {
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  out.push_back(type);
  out.append(buf, p);
  out.append("\r\n", 2);
}
}  // namespace

void append_status(std::string& out, std::string_view s) {
  out.push_back('+');
  out.append(s);
  out.append("\r\n", 2);
}

void append_error(std::string& out, std::string_view msg) {
  out.push_back('-');
  // An error line cannot hold CR or LF.
  for (char c : msg) out.push_back(c == '\r' || c == '\n' ? ' ' : c);
  out.append("\r\n", 2);
}

void append_integer(std::string& out, std::int64_t v) {
  append_line(out, ':', v);
}

void append_bulk(std::string& out, std::string_view s) {
  append_line(out, '$', static_cast<std::int64_t>(s.size()));
  out.append(s);
  out.append("\r\n", 2);
}

void append_nil(std::string& out) {
  out.append("$-1\r\n", 5);
}

void append_array_header(std::string& out, std::int64_t n) {
  append_line(out, '*', n);
}

void append_command(std::string& out, const std::vector<std::string_view>& argv) {
  append_array_header(out, static_cast<std::int64_t>(argv.size()));
  for (auto a : argv) append_bulk(out, a);
}

std::string exchange_command(int fd, const std::vector<std::string_view>& argv,
                             const std::function<void(short)>& wait) {
  std::string out;
  append_command(out, argv);
  for (std::size_t off = 0; off < out.size();) {
    const ssize_t n = ::send(fd, out.data() + off, out.size() - off, MSG_NOSIGNAL);
    if (n > 0)
      off += static_cast<std::size_t>(n);
    else if (n < 0 && (errno == EAGAIN || errno == EINTR))
      wait(POLLOUT);
    else
      throw std::runtime_error(std::string("send: ") + std::strerror(errno));
  }
  std::string in;
  ReplyScanner scanner;
  for (;;) {
    char buf[16384];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n > 0) {
      in.append(buf, static_cast<std::size_t>(n));
      const ParseResult r = scanner.scan(in);
      if (r.status == ParseStatus::Complete) return in.substr(0, r.consumed);
      if (r.status == ParseStatus::Error) throw std::runtime_error(r.error);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      wait(POLLIN);
    } else {
      throw std::runtime_error("the server closed the connection");
    }
  }
}

void append_value(std::string& out, const RespValue& v) {
  switch (v.type) {
    case RespValue::Type::Status:
      append_status(out, v.str);
      break;
    case RespValue::Type::Error:
      out.push_back('-');
      out.append(v.str);
      out.append("\r\n", 2);
      break;
    case RespValue::Type::Integer:
      append_integer(out, v.integer);
      break;
    case RespValue::Type::Bulk:
      append_bulk(out, v.str);
      break;
    case RespValue::Type::Nil:
      append_nil(out);
      break;
    case RespValue::Type::NilArray:
      out.append("*-1\r\n", 5);
      break;
    case RespValue::Type::Array:
      append_array_header(out, static_cast<std::int64_t>(v.elements.size()));
      for (const auto& e : v.elements) append_value(out, e);
      break;
  }
}

}  // namespace perflab::proxy
