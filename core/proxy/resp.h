#pragma once
// RESP2: an incremental request parser (what clients send: multibulk or inline commands), an
// incremental reply scanner (what servers send back), a reply tree for merging, and writers.
//
// Both parsers are zero-copy: arguments and reply parts are string_views into the caller's
// buffer, valid as long as that buffer is unchanged. Both are resumable: when the data ends in
// the middle of a message they return Incomplete and remember how far they got, so a large
// message arriving in many reads is scanned once, not once per read. The caller passes the same
// buffer start again (with more bytes appended) until the message is Complete.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace perflab::proxy {

// Limits, with Redis's names and defaults.
struct RespLimits {
  std::int64_t max_bulk_len = 512LL * 1024 * 1024;  // proto-max-bulk-len
  std::int64_t max_multibulk_len = 1024 * 1024;     // elements in one command
  std::size_t max_inline_len = 64 * 1024;           // an inline command or a header line
  int max_reply_depth = 64;                         // nested arrays in a reply
};

enum class ParseStatus { Complete, Incomplete, Error };

struct ParseResult {
  ParseStatus status = ParseStatus::Incomplete;
  std::size_t consumed = 0;  // bytes of the message when Complete (Incomplete: 0)
  std::string error;         // Redis-like: "Protocol error: invalid multibulk length"
};

// Parses client commands: "*N\r\n$L\r\n...\r\n" or an inline "GET key\r\n".
class RequestParser {
 public:
  explicit RequestParser(RespLimits limits = {}) : limits_(limits) {}

  // Parses the command starting at data[0]. On Complete, argv holds its arguments (views into
  // data) and consumed its length; an empty argv means an empty command to skip ("*0", a blank
  // line). On Incomplete, call again with the same start and more bytes. On Error, the stream
  // cannot be resynchronised: reply with the error and close the connection.
  ParseResult parse(std::string_view data, std::vector<std::string_view>& argv);
  void reset();
  // Before a client has authenticated, Redis (7) takes at most 10 arguments of at most 16 KiB
  // each ("Protocol error: unauthenticated multibulk length" / "... bulk length"): a stranger
  // cannot make the server buffer 512 MB. Off by default.
  void set_unauthenticated(bool on) { unauthenticated_ = on; }

 private:
  ParseResult parse_inline(std::string_view data, std::vector<std::string_view>& argv);
  RespLimits limits_;
  bool unauthenticated_ = false;
  // Resumable multibulk state; offsets relative to the command start.
  bool in_multibulk_ = false;
  std::int64_t expected_ = 0;                              // arguments announced by "*N"
  std::size_t pos_ = 0;                                    // next byte to look at
  std::vector<std::pair<std::size_t, std::size_t>> args_;  // (offset, length)
};

// Finds where one complete reply ends, resumably, without building anything.
class ReplyScanner {
 public:
  explicit ReplyScanner(RespLimits limits = {}) : limits_(limits) {}
  ParseResult scan(std::string_view data);
  void reset();

 private:
  RespLimits limits_;
  std::size_t pos_ = 0;
  std::vector<std::int64_t> stack_;  // elements still to read, per open array
};

// A reply as a tree of views into a buffer (for merging MGET parts, broadcast replies, tests).
struct RespValue {
  enum class Type { Status, Error, Integer, Bulk, Nil, Array, NilArray } type = Type::Nil;
  std::string_view str;  // Status, Error, Bulk
  std::int64_t integer = 0;
  std::vector<RespValue> elements;
  std::string_view raw;  // the bytes of this value, header included
};

// Parses exactly one complete reply at data[0] (as found by ReplyScanner). Returns false on a
// malformed or incomplete reply.
bool parse_reply(std::string_view data, RespValue& out, std::size_t* consumed = nullptr);

// Writers: append RESP2 to a buffer.
void append_status(std::string& out, std::string_view s);
void append_error(std::string& out, std::string_view msg);  // msg without '-', e.g. "ERR ..."
void append_integer(std::string& out, std::int64_t v);
void append_bulk(std::string& out, std::string_view s);
void append_nil(std::string& out);
void append_array_header(std::string& out, std::int64_t n);
void append_command(std::string& out, const std::vector<std::string_view>& argv);

// Sends one command on a connected non-blocking socket and returns its complete reply (setup
// exchanges: AUTH, CLUSTER SLOTS). wait(POLLIN or POLLOUT) blocks until the socket is ready, or
// throws (a deadline, a stop). Throws std::runtime_error when the connection fails or closes.
std::string exchange_command(int fd, const std::vector<std::string_view>& argv,
                             const std::function<void(short)>& wait);
// Serialises a parsed value back (used for merged arrays; equals .raw for parsed input).
void append_value(std::string& out, const RespValue& v);

// Parses a decimal integer exactly as Redis does (string2ll): "0", or an optional '-' and digits
// without a leading zero; false for "+1", "01", "-0", " 1", "" or an overflow. Lengths a proxy
// forwards must be read as the server will read them.
bool parse_int64(std::string_view s, std::int64_t& out);

}  // namespace perflab::proxy
