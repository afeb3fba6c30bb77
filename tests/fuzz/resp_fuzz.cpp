// libFuzzer target for the proxy's RESP request parser and reply scanner (built with clang when
// present; run by CTest under the `fuzz` label for a bounded time).
//
// Input: one control byte, then the bytes a client (bit 0 clear) or a server (bit 0 set) sends.
// Bit 1: the client has not authenticated (Redis's smaller limits). Bits 2-7: the size of the
// pieces the stream arrives in. Checked, besides memory safety (ASan, UBSan):
//   - chunking: the stream fed in pieces gives the same commands (or replies) and the same
//     error as fed whole;
//   - a multibulk command is forwarded as received, so its bytes must be exactly the canonical
//     encoding of its arguments: nothing Redis would read differently can pass (leading zeros,
//     "-0", "+1" in a length...);
//   - each reply the scanner finds parses as one value of the same length, and writes back
//     byte for byte.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "proxy/resp.h"

using namespace perflab::proxy;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

// Feeds `s` in pieces of `piece` bytes to `parse(data)` (a ParseResult for the message at
// data[0]); `complete(raw)` describes each whole message. Returns the descriptions, then the
// error if one ends the stream.
template <typename Parse, typename Complete>
std::vector<std::string> feed(std::string_view s, std::size_t piece, Parse parse,
                              Complete complete) {
  std::vector<std::string> out;
  std::string buf;
  std::size_t off = 0;
  for (std::size_t at = 0; at < s.size();) {
    const std::size_t n = std::min(piece, s.size() - at);
    buf.append(s.substr(at, n));
    at += n;
    for (;;) {
      ParseResult r = parse(std::string_view(buf).substr(off));
      if (r.status == ParseStatus::Incomplete) break;
      if (r.status == ParseStatus::Error) {
        out.push_back("error " + r.error);
        return out;
      }
      check(r.consumed > 0 && off + r.consumed <= buf.size());
      out.push_back(complete(std::string_view(buf).substr(off, r.consumed)));
      off += r.consumed;
    }
  }
  return out;
}

std::vector<std::string> requests(std::string_view s, std::size_t piece, bool unauth) {
  RequestParser p;
  p.set_unauthenticated(unauth);
  std::vector<std::string_view> argv;
  return feed(
      s, piece, [&](std::string_view d) { return p.parse(d, argv); },
      [&](std::string_view raw) {
        std::string cmd = "cmd";
        for (auto a : argv) cmd.append("|").append(a);
        if (!raw.empty() && raw[0] == '*' && !argv.empty()) {
          std::string canonical;
          append_command(canonical, argv);
          check(canonical == raw);
        }
        return cmd;
      });
}

std::vector<std::string> replies(std::string_view s, std::size_t piece) {
  ReplyScanner sc;
  return feed(
      s, piece, [&](std::string_view d) { return sc.scan(d); },
      [&](std::string_view raw) {
        RespValue v;
        std::size_t used = 0;
        check(parse_reply(raw, v, &used) && used == raw.size());
        std::string back;
        append_value(back, v);
        check(back == raw);
        return std::string(raw);
      });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t control = data[0];
  const std::string_view s(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::size_t piece = (control >> 2) + 1;
  if (control & 1)
    check(replies(s, s.size() + 1) == replies(s, piece));
  else
    check(requests(s, s.size() + 1, control & 2) == requests(s, piece, control & 2));
  return 0;
}
