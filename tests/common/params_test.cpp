#include <gtest/gtest.h>

#include "common/params.h"

using namespace perflab;

namespace {
std::vector<ParamSpec> specs() {
  return {
      {"reps", ParamType::Int, "5", 1, 100, {}, "repetitions"},
      {"ratio", ParamType::Double, "0.5", 0, 1, {}, ""},
      {"reset", ParamType::Bool, "true", {}, {}, {}, ""},
      {"name", ParamType::String, "perflab", {}, {}, {}, ""},
      {"mode", ParamType::Choice, "a,b", {}, {}, {"a", "b", "c"}, ""},
      {"sizes", ParamType::IntList, "1,10,100", 1, 8191, {}, ""},
  };
}
}  // namespace

TEST(Params, DefaultsResolve) {
  auto p = Params::resolve(specs());
  EXPECT_EQ(p.get_int("reps"), 5);
  EXPECT_DOUBLE_EQ(p.get_double("ratio"), 0.5);
  EXPECT_TRUE(p.get_bool("reset"));
  EXPECT_EQ(p.get_string("name"), "perflab");
  EXPECT_EQ(p.get_list("mode"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.get_int_list("sizes"), (std::vector<std::int64_t>{1, 10, 100}));
}

TEST(Params, OverridesAreValidatedAndCanonical) {
  auto p = Params::resolve(specs(),
                           {{"reps", " 7 "}, {"reset", "off"}, {"sizes", "2, 3"}, {"mode", "c"}});
  EXPECT_EQ(p.get_int("reps"), 7);
  EXPECT_FALSE(p.get_bool("reset"));
  EXPECT_EQ(p.values().at("sizes"), "2,3");
  EXPECT_EQ(p.get_list("mode"), (std::vector<std::string>{"c"}));
}

TEST(Params, BadInputNamesTheParameter) {
  auto expect_error = [](std::map<std::string, std::string> o, const std::string& needle) {
    try {
      Params::resolve(specs(), o);
      FAIL() << "no error for " << o.begin()->first;
    } catch (const ParamError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error({{"reps", "0"}}, "'reps': 0 is outside [1, 100]");
  expect_error({{"reps", "abc"}}, "not a whole number");
  expect_error({{"reps", "5x"}}, "not a whole number");
  expect_error({{"ratio", "2"}}, "outside");
  expect_error({{"reset", "maybe"}}, "not true or false");
  expect_error({{"mode", "a,z"}}, "'z' is not one of: a, b, c");
  expect_error({{"sizes", "1,9000"}}, "outside");
  expect_error({{"nope", "1"}}, "unknown parameter 'nope'");
}
