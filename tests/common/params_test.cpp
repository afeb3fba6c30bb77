#include <gtest/gtest.h>

#include "common/params.h"
#include "common/run_io.h"

using namespace perflab;

namespace {
std::vector<ParamSpec> specs() {
  return {
      {"reps", ParamType::Int, "5", 1, 100, {}, "repetitions"},
      {"ratio", ParamType::Double, "0.5", 0, 1, {}, ""},
      {"reset", ParamType::Bool, "true", {}, {}, {}, ""},
      {"name", ParamType::String, "perflab", {}, {}, {}, ""},
      {"mode", ParamType::SubsetOf, "a,b", {}, {}, {"a", "b", "c"}, ""},
      {"preset", ParamType::OneOf, "sweep", {}, {}, {"sweep", "seed"}, ""},
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
  EXPECT_EQ(p.get_subset("mode"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.get_choice("preset"), "sweep");
  EXPECT_EQ(p.get_int_list("sizes"), (std::vector<std::int64_t>{1, 10, 100}));
}

TEST(Params, OverridesAreValidatedAndCanonical) {
  auto p = Params::resolve(specs(),
                           {{"reps", " 7 "}, {"reset", "off"}, {"sizes", "2, 3"}, {"mode", "c"}});
  EXPECT_EQ(p.get_int("reps"), 7);
  EXPECT_FALSE(p.get_bool("reset"));
  EXPECT_EQ(p.values().at("sizes"), "2,3");
  EXPECT_EQ(p.get_subset("mode"), (std::vector<std::string>{"c"}));
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
  expect_error({{"mode", "a,,b"}}, "empty choice");
  expect_error({{"mode", " "}}, "give at least one of: a, b, c");
  expect_error({{"preset", "seed,sweep"}}, "'preset': 'seed,sweep': give one of: sweep, seed");
  expect_error({{"preset", "lazy"}}, "'lazy' is not one of: sweep, seed");
  expect_error({{"sizes", "1,9000"}}, "outside");
  expect_error({{"nope", "1"}}, "unknown parameter 'nope'");
}

TEST(Params, ChoicesAreCanonical) {
  auto p = Params::resolve(specs(), {{"mode", " C, a ,c,A"}, {"preset", "SEED"}});
  EXPECT_EQ(p.values().at("mode"), "c,a");  // the order given, each once, spelt as in the spec
  EXPECT_EQ(p.get_subset("mode"), (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(p.get_choice("preset"), "seed");
}

TEST(Params, AccessorsCheckTheType) {
  auto p = Params::resolve(specs());
  EXPECT_THROW(p.get_int("mode"), ParamError);
  EXPECT_THROW(p.get_choice("mode"), ParamError);
  EXPECT_THROW(p.get_subset("preset"), ParamError);
  EXPECT_THROW(p.get_int_list("reps"), ParamError);
  EXPECT_THROW(p.get_int("nope"), ParamError);
  EXPECT_EQ(p.get_string("mode"), "a,b");  // the canonical text of any type
}

TEST(Params, RoundTripThroughARunFile) {
  auto p = Params::resolve(specs(), {{"mode", "c,a"}, {"preset", "seed"}, {"sizes", "3, 2"}});
  perflab::Run run;
  run.experiment = "x";
  run.params = p.values();
  const perflab::Run back = run_from_json(run_to_json(run));
  EXPECT_EQ(back.params, p.values());
  EXPECT_EQ(Params::resolve(specs(), back.params).values(), p.values());
}

TEST(Params, DescribedForAPerson) {
  const auto s = specs();
  EXPECT_EQ(describe_param(s[0]), "int, 1..100");
  EXPECT_EQ(describe_param(s[1]), "double, 0..1");
  EXPECT_EQ(describe_param(s[2]), "bool");
  EXPECT_EQ(describe_param(s[4]), "subset of: a, b, c");
  EXPECT_EQ(describe_param(s[5]), "one of: sweep | seed");
  EXPECT_EQ(describe_param(s[6]), "int-list, each 1..8191");
  ParamSpec budget{"point_budget_s", ParamType::Double, "1.5", 0.2, 600, {}, ""};
  EXPECT_EQ(param_range_text(budget), "0.2..600");  // the real minimum, not 0
  ParamSpec seed{"seed", ParamType::Int, "42", 0, 9007199254740992.0, {}, ""};
  EXPECT_EQ(param_range_text(seed), ">= 0");  // not 0..9.00719925474099e+15: no real bound
  ParamSpec low{"x", ParamType::Int, "1", 1, {}, {}, ""};
  EXPECT_EQ(param_range_text(low), ">= 1");
  EXPECT_EQ(format_bound(-0.125), "-0.125");
  // Labels and units for a form: derived from the name, unless the spec says.
  ParamSpec sample{"build_sample_ms", ParamType::Int, "5", 1, 100, {}, ""};
  EXPECT_EQ(param_label(sample), "Build sample");
  EXPECT_EQ(param_unit(sample), "ms");
  ParamSpec window{"server_cpu_window_ms", ParamType::Int, "5", 0, 100, {}, ""};
  EXPECT_EQ(param_label(window), "Server CPU window");
  EXPECT_EQ(param_label(seed), "Seed");
  EXPECT_EQ(param_unit(seed), "");
  EXPECT_EQ(param_unit(ParamSpec{"document_kb", ParamType::Int, "1", 1, 2, {}, ""}), "KB");
  EXPECT_EQ(param_label(budget), "Point budget s");
  budget.label = "Time budget per point";
  budget.unit = "s";
  EXPECT_EQ(param_label(budget), "Time budget per point");
  EXPECT_EQ(param_unit(budget), "s");
  try {
    Params::resolve({seed}, {{"seed", "-1"}});
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_NE(std::string(e.what()).find("outside [0, 9007199254740992]"), std::string::npos)
        << e.what();
  }
}

// A renamed parameter: a run file's values under its former name take today's; a value given
// anew under the former name is refused with today's name.
TEST(Params, FormerNamesOpenOldValuesAndAreRefusedAsNewOnes) {
  auto s = specs();
  s[0].former_names = {"repeat", "rounds"};
  EXPECT_EQ(with_current_names(s, {{"repeat", "7"}, {"ratio", "0.2"}, {"nope", "1"}}),
            (std::map<std::string, std::string>{{"reps", "7"}, {"ratio", "0.2"}, {"nope", "1"}}));
  // Both names: today's wins, whatever the order of the names.
  EXPECT_EQ(with_current_names(s, {{"rounds", "3"}, {"reps", "9"}}).at("reps"), "9");
  EXPECT_EQ(with_current_names(s, {{"repeat", "3"}, {"reps", "9"}}).at("reps"), "9");
  try {
    Params::resolve(s, {{"rounds", "7"}});
    FAIL() << "rounds=7 was taken";
  } catch (const ParamError& e) {
    EXPECT_STREQ(e.what(), "unknown parameter 'rounds': it is called 'reps' now");
  }
}
