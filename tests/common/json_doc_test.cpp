// The run-file JSON reader (common/json_doc): it must read exactly what nlohmann::json reads,
// give numbers the same kinds and values, and refuse the rest with a line and column.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "common/json_doc.h"
#include "common/run_io.h"
#include "sample_run.h"

using namespace perflab;
using json_doc::Document;
using json_doc::Kind;
using json_doc::ParseError;

namespace {

// Both readers agree: accepted by both with the same value (dumped the same way), or refused
// by both.
void expect_same_as_nlohmann(const std::string& text) {
  const bool accepted = nlohmann::json::accept(text);
  try {
    const Document doc = Document::parse(text);
    ASSERT_TRUE(accepted) << "accepted what nlohmann refuses: " << text;
    EXPECT_EQ(doc.dump(doc.root()), nlohmann::json::parse(text).dump()) << text;
  } catch (const ParseError& e) {
    EXPECT_FALSE(accepted) << "refused what nlohmann accepts: " << text << "\n" << e.what();
  }
}

std::string refusal(const std::string& text) {
  try {
    Document::parse(text);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "accepted";
}

std::string run_refusal(const std::string& text) {
  try {
    run_from_json(text);
  } catch (const RunFormatError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST(JsonDoc, ReadsWhatNlohmannReads) {
  for (const char* text :
       {"{}", "[]", " [ 1 , 2 ] ", "null", "true", "false", "0", "-0", "-0.0", "1.5e3", "1E-3",
        "0.1", "123456789012345678", "-9223372036854775808", "-9223372036854775809",
        "18446744073709551615", "18446744073709551616", "123456789012345678901234567890", "1e400",
        "-1e400", "1e-400", "2.2250738585072014e-308", "0.30000000000000004", "9007199254740993",
        "9007199254740993.0", "1.7976931348623157e308", "4.9406564584124654e-324",
        "3.14159265358979323846264338327950288", "\"\"", "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"",
        "\"\\u00e9\\u20AC\\ud83d\\ude00\"", "\"\\u0000\"", "\"é€😀\"", "{\"a\":1,\"a\":2}",
        "{\"b\":1,\"a\":[true,null]}", "\xEF\xBB\xBF{}", "{\"k\\u0041\":\"v\"}",
        // refused by both
        "", " ", "{", "[1,]", "[1 2]", "{\"a\"}", "{\"a\":}", "{a:1}", "01", "1.", ".5", "+1", "-",
        "1e", "1e+", "0x10", "NaN", "Infinity", "tru", "nul", "\"abc", "\"\\x\"", "\"\\u12\"",
        "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"a\nb\"", "\"\x01\"", "\"\xC0\x80\"",
        "\"\xED\xA0\x80\"", "\"\xF4\x90\x80\x80\"", "\"\xFF\"", "\"\xE2\x82\"", "[] []", "{} x",
        "[\"a\"\x00]", "{\"a\":1,}", "'a'"}) {
    SCOPED_TRACE(text);
    expect_same_as_nlohmann(text);
  }
}

TEST(JsonDoc, NumbersKeepTheirKind) {
  const Document doc = Document::parse("[7, -7, 7.0, 18446744073709551616, 1e-400, 0.1]");
  const auto v = doc.children(doc.root());
  ASSERT_EQ(v.size(), 6u);
  EXPECT_EQ(v[0].kind(), Kind::Unsigned);
  EXPECT_EQ(v[0].as_uint64(), 7u);
  EXPECT_EQ(v[1].kind(), Kind::Integer);
  EXPECT_EQ(v[1].as_int64(), -7);
  EXPECT_EQ(v[2].kind(), Kind::Float);
  EXPECT_EQ(v[3].kind(), Kind::Float);  // beyond 64 bits
  EXPECT_DOUBLE_EQ(v[3].as_double(), 18446744073709551616.0);
  EXPECT_EQ(v[4].as_double(), 0.0);  // below the smallest double, as strtod gives
  EXPECT_EQ(refusal("[1e400]"), "line 1, column 2: number 1e400 is beyond the range of a double");
  EXPECT_EQ(v[5].as_double(), 0.1);
  EXPECT_STREQ(json_doc::type_name(v[0].kind()), "number");
}

TEST(JsonDoc, DuplicateKeysTakeTheLastAsNlohmannDoes) {
  const std::string text = R"({"a": 1, "b": 2, "a": 3})";
  const Document doc = Document::parse(text);
  ASSERT_NE(doc.find(doc.root(), "a"), nullptr);
  EXPECT_EQ(doc.find(doc.root(), "a")->as_uint64(), 3u);
  EXPECT_EQ(doc.find(doc.root(), "c"), nullptr);
  EXPECT_EQ(doc.dump(doc.root()), nlohmann::json::parse(text).dump());
  // In a run file: the last "experiment" is the one read.
  auto j = nlohmann::json::parse(run_to_json(sample_run()));
  std::string run_text = j.dump();
  run_text.insert(1, R"("experiment": "first",)");
  EXPECT_EQ(run_from_json(run_text).experiment, "iolist");
}

TEST(JsonDoc, LongKeysAreKept) {
  const std::string ks(70000, 'k');
  // As written in the text, and as read.
  const std::pair<std::string, std::string> names[] = {
      {ks, ks},
      {"\\u00e9" + ks, "\u00e9" + ks},
      {std::string(65535, 'k'), std::string(65535, 'k')}};
  for (const auto& [written, name] : names) {
    const std::string text = "{\"a\": 1, \"" + written + "\": [2], \"b\": 3}";
    expect_same_as_nlohmann(text);
    const Document doc = Document::parse(text);
    EXPECT_EQ(doc.key(doc.children(doc.root())[1]), name);
    ASSERT_NE(doc.find(doc.root(), name), nullptr);
    EXPECT_TRUE(doc.find(doc.root(), name)->is_array());
    EXPECT_EQ(doc.find(doc.root(), "b")->as_uint64(), 3u);
  }
}

TEST(JsonDoc, UnicodeEscapesAreDecoded) {
  const Document doc = Document::parse(R"({"caf\u00e9": "\ud83d\ude00 \u20ac\n"})");
  const auto members = doc.children(doc.root());
  ASSERT_EQ(members.size(), 1u);
  EXPECT_EQ(doc.key(members[0]), "café");
  EXPECT_EQ(doc.string(members[0]), "😀 €\n");
}

TEST(JsonDoc, DeepNestingIsBoundedNotACrash) {
  const std::size_t limit = json_doc::kMaxDepth;
  const std::string ok = std::string(limit, '[') + std::string(limit, ']');
  EXPECT_EQ(Document::parse(ok).root().kind(), Kind::Array);
  const std::string deep(1'000'000, '[');  // no recursion: refused at the limit, at once
  EXPECT_EQ(refusal(deep), "line 1, column " + std::to_string(limit + 1) + ": nested deeper than " +
                               std::to_string(limit) + " levels");
  // In a run file it is a one-line refusal.
  EXPECT_EQ(run_refusal("{\"params\": " + deep).rfind("not JSON: line 1, column ", 0), 0u);
}

TEST(JsonDoc, RefusalsNameLineAndColumn) {
  EXPECT_EQ(refusal("{\n  \"a\": 1,\n  \"b\" 2\n}"),
            "line 3, column 7: expected ':' after a member name, got '2'");
  EXPECT_EQ(refusal("[1, 2"), "line 1, column 6: unexpected end of input; expected ',' or ']'");
  EXPECT_EQ(refusal("[01]"),
            "line 1, column 3: expected ',' or ']' after an array element, got '1'");
  EXPECT_EQ(refusal("\"\\ud800\""),
            "line 1, column 2: a high surrogate \\u escape (U+D800..U+DBFF) must be followed by "
            "a low one");
}

TEST(JsonDoc, EveryTruncationOfARunFileIsRefused) {
  const std::string text = run_to_json(sample_run(), -1);
  ASSERT_EQ(run_from_json(text).experiment, "iolist");
  for (std::size_t n = 0; n < text.size(); ++n) {
    const std::string message = run_refusal(text.substr(0, n));
    ASSERT_EQ(message.rfind("not JSON: ", 0), 0u) << n << ": " << message;
  }
}

TEST(JsonDoc, ValidJsonOfAnotherShapeIsNotARun) {
  EXPECT_EQ(run_refusal("[1, 2]"), "not a Perflab run file (no \"schema\": \"perflab-run\")");
  EXPECT_EQ(run_refusal(R"({"schema": ["perflab-run"]})"),
            "not a Perflab run file (no \"schema\": \"perflab-run\")");
  EXPECT_EQ(run_refusal(R"({"schema": "perflab-run", "schema_version": 1, "experiment": 5})"),
            "field \"experiment\": expected a string, got number 5");
  EXPECT_EQ(run_refusal(R"({"schema": "perflab-run", "schema_version": 1, "experiment": "x",
                            "status": "finished", "series": {"a": 1}})"),
            "field \"series\": expected an array, got object {\"a\":1}");
  auto j = nlohmann::json::parse(run_to_json(sample_run()));
  std::string text = j.dump();
  const std::string samples = "\"samples\":[";
  text.insert(text.find(samples) + samples.size(), "1e400,");
  EXPECT_EQ(run_refusal(text).rfind("not JSON: line 1, column ", 0), 0u);
  EXPECT_NE(run_refusal(text).find(": number 1e400 is beyond the range of a double"),
            std::string::npos);
  j["params"]["caf\u00e9"] = 1;
  EXPECT_EQ(run_refusal(j.dump()), "field \"params.caf\u00e9\": expected a string, got number 1");
}

// Random damage to a run file: whatever nlohmann makes of it, the reader makes the same.
TEST(JsonDoc, DamagedFilesReadAsNlohmannReadsThem) {
  const std::string text = run_to_json(sample_run(), -1);
  std::mt19937 rng(13);
  const std::string alphabet = "{}[],:\"\\ 0123456789.eE+-truefalsnl\xC3\xA9\xFFu";
  for (int i = 0; i < 1000; ++i) {
    std::string t = text;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % t.size();
      switch (rng() % 3) {
        case 0:
          t[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          t.erase(at, 1 + rng() % 4);
          break;
        default:
          t.insert(at, 1, alphabet[rng() % alphabet.size()]);
      }
    }
    SCOPED_TRACE(i);
    expect_same_as_nlohmann(t);
  }
}
