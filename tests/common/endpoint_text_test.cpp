// Server addresses as users write them (common/endpoint.h), and the text helpers (common/text.h).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "common/endpoint.h"
#include "common/text.h"

using namespace perflab;

namespace {

std::string invalid_argument_message(const std::string& text) {
  try {
    parse_redis_endpoint(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for '" << text << "'";
  return {};
}

}  // namespace

TEST(Endpoint, Parses) {
  RedisEndpoint a = parse_redis_endpoint("10.0.0.5:7000");
  EXPECT_EQ(a.host, "10.0.0.5");
  EXPECT_EQ(a.port, 7000);
  RedisEndpoint b = parse_redis_endpoint(" [::1]:6380 ");
  EXPECT_EQ(b.host, "::1");
  EXPECT_EQ(b.port, 6380);
  RedisEndpoint c = parse_redis_endpoint("cache.local");
  EXPECT_EQ(c.host, "cache.local");
  EXPECT_EQ(c.port, 6379);
  EXPECT_EQ(c.address(), "cache.local:6379");
}

TEST(Endpoint, ClearErrors) {
  EXPECT_NE(invalid_argument_message(":6379").find("empty host"), std::string::npos);
  EXPECT_NE(invalid_argument_message("").find("empty"), std::string::npos);
  EXPECT_NE(invalid_argument_message("h:0").find("out of range 1..65535"), std::string::npos);
  EXPECT_NE(invalid_argument_message("h:65536").find("out of range"), std::string::npos);
  EXPECT_NE(invalid_argument_message("h:http").find("not a number"), std::string::npos);
  EXPECT_NE(invalid_argument_message("h:").find("missing port"), std::string::npos);
  EXPECT_NE(invalid_argument_message("::1:6379").find("brackets"), std::string::npos);
  EXPECT_NE(invalid_argument_message("[::1:6379").find("missing ']'"), std::string::npos);
  EXPECT_NE(invalid_argument_message("[]:6379").find("empty host"), std::string::npos);
  EXPECT_NE(invalid_argument_message("h:12x").find("'h:12x'"), std::string::npos);
}

TEST(Endpoint, Nodes) {
  auto nodes = parse_redis_nodes("127.0.0.1:7000, 127.0.0.1:7001,[::1]:7002");
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[1].port, 7001);
  EXPECT_EQ(nodes[2].host, "::1");
  EXPECT_THROW(parse_redis_nodes(""), std::invalid_argument);
  EXPECT_THROW(parse_redis_nodes("a:1,,b:2"), std::invalid_argument);
  EXPECT_THROW(parse_redis_nodes("a:1,"), std::invalid_argument);
  try {
    parse_redis_nodes("a:1,a:1");
    FAIL() << "duplicate accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("a:1 is listed twice"), std::string::npos) << e.what();
  }
}

TEST(Text, TrimSplitJoinCase) {
  EXPECT_EQ(trim("  a b \t\n"), "a b");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(split_commas("a, b ,c"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(split_commas("a,,b,"), (std::vector<std::string>{"a", "", "b", ""}));
  EXPECT_TRUE(split_commas("  ").empty());
  EXPECT_EQ(split_commas("one"), (std::vector<std::string>{"one"}));
  EXPECT_EQ(join({"a", "b", "c"}), "a,b,c");
  EXPECT_EQ(join({"", "b"}, ", "), ", b");
  EXPECT_EQ(join({}), "");
  EXPECT_EQ(to_lower("MGet-1"), "mget-1");
  EXPECT_EQ(to_upper("mget-1"), "MGET-1");
}
