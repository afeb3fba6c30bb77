// RESP2 parser, scanner and writer.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "proxy/resp.h"

using namespace perflab::proxy;

namespace {

std::vector<std::string> strs(const std::vector<std::string_view>& v) {
  return {v.begin(), v.end()};
}

// Parses all commands of a stream given whole.
std::vector<std::vector<std::string>> parse_all(const std::string& s, RespLimits l = {}) {
  RequestParser p(l);
  std::vector<std::vector<std::string>> out;
  std::vector<std::string_view> argv;
  std::size_t off = 0;
  while (off < s.size()) {
    ParseResult r = p.parse(std::string_view(s).substr(off), argv);
    if (r.status != ParseStatus::Complete) break;
    out.push_back(strs(argv));
    off += r.consumed;
  }
  return out;
}

}  // namespace

TEST(RequestParser, MultibulkCommand) {
  RequestParser p;
  std::vector<std::string_view> argv;
  std::string s = "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nva\r\nl\r\n";
  ParseResult r = p.parse(s, argv);
  ASSERT_EQ(r.status, ParseStatus::Complete);
  EXPECT_EQ(r.consumed, s.size());
  EXPECT_EQ(strs(argv), (std::vector<std::string>{"SET", "key", "va\r\nl"}));
  // Zero-copy: the arguments point into the input.
  EXPECT_EQ(argv[1].data(), s.data() + 17);
}

TEST(RequestParser, InlineAndEmptyCommands) {
  auto cmds = parse_all("PING\r\n  GET   k1 \r\n\r\n*0\r\nECHO x\n");
  ASSERT_EQ(cmds.size(), 5u);
  EXPECT_EQ(cmds[0], (std::vector<std::string>{"PING"}));
  EXPECT_EQ(cmds[1], (std::vector<std::string>{"GET", "k1"}));
  EXPECT_TRUE(cmds[2].empty());
  EXPECT_TRUE(cmds[3].empty());
  EXPECT_EQ(cmds[4], (std::vector<std::string>{"ECHO", "x"}));
}

TEST(RequestParser, SplitAtEveryByteBoundary) {
  const std::string s =
      "*3\r\n$3\r\nSET\r\n$10\r\nkey:000042\r\n$12\r\nhello\r\nworld\r\n"
      "*2\r\n$3\r\nGET\r\n$0\r\n\r\nPING\r\n";
  const std::vector<std::vector<std::string>> want = {
      {"SET", "key:000042", "hello\r\nworld"}, {"GET", ""}, {"PING"}};
  ASSERT_EQ(parse_all(s), want);
  for (std::size_t cut = 0; cut <= s.size(); ++cut) {
    // The stream arrives as s[0, cut) and then the rest: every command must come out whole.
    RequestParser p;
    std::vector<std::vector<std::string>> got;
    std::vector<std::string_view> argv;
    std::string buf;
    std::size_t off = 0;
    for (const std::string& chunk : {s.substr(0, cut), s.substr(cut)}) {
      buf += chunk;
      for (;;) {
        ParseResult r = p.parse(std::string_view(buf).substr(off), argv);
        ASSERT_NE(r.status, ParseStatus::Error) << "cut " << cut << ": " << r.error;
        if (r.status == ParseStatus::Incomplete) break;
        got.push_back(strs(argv));
        off += r.consumed;
      }
    }
    EXPECT_EQ(got, want) << "cut at byte " << cut;
  }
}

TEST(RequestParser, ByteByByte) {
  const std::string s = "*2\r\n$4\r\nMGET\r\n$1\r\na\r\n";
  RequestParser p;
  std::vector<std::string_view> argv;
  for (std::size_t n = 0; n < s.size(); ++n)
    ASSERT_EQ(p.parse(std::string_view(s).substr(0, n), argv).status, ParseStatus::Incomplete) << n;
  ParseResult r = p.parse(s, argv);
  ASSERT_EQ(r.status, ParseStatus::Complete);
  EXPECT_EQ(strs(argv), (std::vector<std::string>{"MGET", "a"}));
}

TEST(RequestParser, ProtocolErrors) {
  auto err = [](const std::string& s, RespLimits l = {}) {
    RequestParser p(l);
    std::vector<std::string_view> argv;
    ParseResult r = p.parse(s, argv);
    return r.status == ParseStatus::Error ? r.error : std::string("no error");
  };
  EXPECT_EQ(err("*1\r\n:5\r\n"), "Protocol error: expected '$', got ':'");
  EXPECT_EQ(err("*x\r\n"), "Protocol error: invalid multibulk length");
  EXPECT_EQ(err("*1\r\n$-3\r\n"), "Protocol error: invalid bulk length");
  EXPECT_EQ(err("*1\r\n$abc\r\n"), "Protocol error: invalid bulk length");
  EXPECT_EQ(err("*1\r\n$3\r\nabcX\r\n"), "Protocol error: expected CRLF after bulk argument");
  RespLimits small;
  small.max_bulk_len = 16;
  small.max_multibulk_len = 4;
  small.max_inline_len = 32;
  EXPECT_EQ(err("*1\r\n$17\r\n", small), "Protocol error: invalid bulk length");
  EXPECT_EQ(err("*1\r\n$16\r\n", small), "no error");  // incomplete, within limits
  EXPECT_EQ(err("*5\r\n", small), "Protocol error: invalid multibulk length");
  EXPECT_EQ(err(std::string(40, 'a'), small), "Protocol error: too big inline request");
  EXPECT_EQ(err("*" + std::string(40, '1'), small), "Protocol error: too big mbulk count string");
  // Redis's default limit: 512 MB bulks.
  EXPECT_EQ(err("*1\r\n$536870913\r\n"), "Protocol error: invalid bulk length");
}

// Lengths read exactly as Redis reads them (string2ll): anything Redis would refuse is refused
// here, before a byte of it reaches a backend connection other clients share.
TEST(RequestParser, LengthsAsRedisReadsThem) {
  auto status = [](const std::string& s) {
    RequestParser p;
    std::vector<std::string_view> argv;
    ParseResult r = p.parse(s, argv);
    return r.status == ParseStatus::Error      ? r.error
           : r.status == ParseStatus::Complete ? "ok"
                                               : "more";
  };
  const std::string ping = "$4\r\nPING\r\n";
  EXPECT_EQ(status("*1\r\n" + ping), "ok");
  for (const char* bad : {"*01\r\n", "*+1\r\n", "*-0\r\n", "* 1\r\n", "*1 \r\n", "*\r\n", "*00\r\n",
                          "*-\r\n", "*1a\r\n", "*99999999999999999999\r\n"})
    EXPECT_EQ(status(std::string(bad) + ping), "Protocol error: invalid multibulk length") << bad;
  for (const char* bad : {"$04\r\n", "$+4\r\n", "$-0\r\n", "$ 4\r\n", "$\r\n", "$4.0\r\n"})
    EXPECT_EQ(status(std::string("*1\r\n") + bad + "PING\r\n"),
              "Protocol error: invalid bulk length")
        << bad;
  EXPECT_EQ(status("*1\r\n$0\r\n\r\n"), "ok");  // "0" itself is a number
  std::int64_t v = 0;
  EXPECT_TRUE(parse_int64("-12", v));
  EXPECT_EQ(v, -12);
  EXPECT_TRUE(parse_int64("9223372036854775807", v));
  for (const char* bad : {"", "-", "+1", "01", "-0", "-01", "1 ", "9223372036854775808"})
    EXPECT_FALSE(parse_int64(bad, v)) << bad;
}

TEST(RequestParser, UnauthenticatedLimitsAsRedis) {
  RequestParser p;
  p.set_unauthenticated(true);
  std::vector<std::string_view> argv;
  EXPECT_EQ(p.parse("*11\r\n", argv).error, "Protocol error: unauthenticated multibulk length");
  EXPECT_EQ(p.parse("*2\r\n$4\r\nAUTH\r\n$16385\r\n", argv).error,
            "Protocol error: unauthenticated bulk length");
  ASSERT_EQ(p.parse("*2\r\n$4\r\nAUTH\r\n$3\r\npwd\r\n", argv).status, ParseStatus::Complete);
  p.set_unauthenticated(false);
  EXPECT_EQ(p.parse("*11\r\n", argv).status, ParseStatus::Incomplete);
}

// The chunking property: a stream of commands cut into pieces anywhere gives the same commands
// (or the same error at the same command) as the stream given whole. Random streams of valid
// and broken frames, cut at random places, fed as the proxy feeds them.
TEST(RequestParser, ChunkingEquivalence) {
  std::mt19937 rng(20240611);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const std::vector<std::string> pieces = {"*1\r\n$4\r\nPING\r\n",
                                           "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
                                           "*0\r\n",
                                           "*-1\r\n",
                                           "GET key\r\n",
                                           "\r\n",
                                           "*3\r\n$3\r\nSET\r\n$0\r\n\r\n$5\r\na\r\nbc\r\n",
                                           "*1\r\n$01\r\nx\r\n",
                                           "*02\r\n",
                                           "*1\r\n:1\r\n",
                                           "*1\r\n$2\r\nabX\r\n"};
  for (int round = 0; round < 2000; ++round) {
    std::string s;
    for (int i = 0, n = 1 + pick(6); i < n; ++i)
      s += pieces[static_cast<std::size_t>(pick(static_cast<int>(pieces.size())))];
    // Whole.
    auto run = [&](const std::vector<std::size_t>& cuts) {
      RequestParser p;
      std::vector<std::string> got;
      std::vector<std::string_view> argv;
      std::string buf;
      std::size_t off = 0, prev = 0;
      std::vector<std::size_t> ends = cuts;
      ends.push_back(s.size());
      for (std::size_t end : ends) {
        buf += s.substr(prev, end - prev);
        prev = end;
        for (;;) {
          ParseResult r = p.parse(std::string_view(buf).substr(off), argv);
          if (r.status == ParseStatus::Incomplete) break;
          if (r.status == ParseStatus::Error) {
            got.push_back("error: " + r.error);
            return got;
          }
          std::string cmd = "[";
          for (auto a : argv) cmd += std::string(a) + "|";
          got.push_back(cmd + "]");
          off += r.consumed;
        }
      }
      return got;
    };
    const auto whole = run({});
    std::vector<std::size_t> cuts;
    for (std::size_t i = 1; i < s.size(); ++i)
      if (pick(4) == 0) cuts.push_back(i);
    EXPECT_EQ(run(cuts), whole) << s;
  }
}

TEST(RequestParser, ResetsAfterError) {
  RequestParser p;
  std::vector<std::string_view> argv;
  EXPECT_EQ(p.parse("*1\r\n?", argv).status, ParseStatus::Error);
  ParseResult r = p.parse("*1\r\n$4\r\nPING\r\n", argv);
  ASSERT_EQ(r.status, ParseStatus::Complete);
  EXPECT_EQ(strs(argv), (std::vector<std::string>{"PING"}));
}

TEST(ReplyScanner, FindsEachReply) {
  const std::string s =
      "+OK\r\n-ERR bad\r\n:42\r\n$5\r\nhello\r\n$-1\r\n*-1\r\n*0\r\n"
      "*3\r\n$1\r\na\r\n*2\r\n:1\r\n$-1\r\n+x\r\n";
  std::vector<std::string> want = {
      "+OK\r\n", "-ERR bad\r\n", ":42\r\n", "$5\r\nhello\r\n",
      "$-1\r\n", "*-1\r\n",      "*0\r\n",  "*3\r\n$1\r\na\r\n*2\r\n:1\r\n$-1\r\n+x\r\n"};
  for (std::size_t cut = 0; cut <= s.size(); ++cut) {
    ReplyScanner sc;
    std::vector<std::string> got;
    std::string buf;
    std::size_t off = 0;
    for (const std::string& chunk : {s.substr(0, cut), s.substr(cut)}) {
      buf += chunk;
      for (;;) {
        ParseResult r = sc.scan(std::string_view(buf).substr(off));
        ASSERT_NE(r.status, ParseStatus::Error) << r.error;
        if (r.status == ParseStatus::Incomplete) break;
        got.push_back(buf.substr(off, r.consumed));
        off += r.consumed;
      }
    }
    EXPECT_EQ(got, want) << "cut at byte " << cut;
  }
}

TEST(ReplyScanner, Errors) {
  ReplyScanner sc;
  ParseResult r = sc.scan("!oops\r\n");
  ASSERT_EQ(r.status, ParseStatus::Error);
  EXPECT_EQ(r.error, "Protocol error: invalid type byte '!'");
  RespLimits l;
  l.max_bulk_len = 10;
  ReplyScanner small(l);
  EXPECT_EQ(small.scan("$11\r\n").status, ParseStatus::Error);
  EXPECT_EQ(small.scan(":12a\r\n").status, ParseStatus::Error);
  l.max_reply_depth = 2;
  ReplyScanner shallow(l);
  EXPECT_EQ(shallow.scan("*1\r\n*1\r\n*1\r\n:1\r\n").status, ParseStatus::Error);
}

TEST(ParseReply, TreeAndRoundTrip) {
  const std::string s = "*4\r\n$3\r\nfoo\r\n$-1\r\n:-7\r\n*2\r\n+OK\r\n-ERR x\r\n";
  RespValue v;
  std::size_t consumed = 0;
  ASSERT_TRUE(parse_reply(s, v, &consumed));
  EXPECT_EQ(consumed, s.size());
  ASSERT_EQ(v.type, RespValue::Type::Array);
  ASSERT_EQ(v.elements.size(), 4u);
  EXPECT_EQ(v.elements[0].str, "foo");
  EXPECT_EQ(v.elements[1].type, RespValue::Type::Nil);
  EXPECT_EQ(v.elements[2].integer, -7);
  EXPECT_EQ(v.elements[3].elements[1].type, RespValue::Type::Error);
  EXPECT_EQ(v.elements[0].raw, "$3\r\nfoo\r\n");
  std::string out;
  append_value(out, v);
  EXPECT_EQ(out, s);
  EXPECT_FALSE(parse_reply("$5\r\nab\r\n", v));
}

TEST(Writer, Formats) {
  std::string out;
  append_status(out, "OK");
  append_error(out, "ERR a\r\nb");
  append_integer(out, -12);
  append_bulk(out, "hi");
  append_nil(out);
  append_command(out, {"GET", "k"});
  EXPECT_EQ(out, "+OK\r\n-ERR a  b\r\n:-12\r\n$2\r\nhi\r\n$-1\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n");
}
