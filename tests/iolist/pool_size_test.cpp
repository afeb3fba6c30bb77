// The pooled appends' pool size as a run parameter: listed with the others, refused with a
// clear message outside its range, and handed to the targets so the PgBouncer has that pool.
#include <gtest/gtest.h>

#include <algorithm>

#include "iolist/experiment.h"
#include "iolist/settings.h"
#include "runner/experiment.h"

using namespace perflab;

namespace {

std::string refusal(const Experiment& exp, const std::string& pool_size) {
  try {
    resolve_params(exp, {{"benchmarks", "pooled"}, {"pool_size", pool_size}});
  } catch (const ParamError& e) {
    return e.what();
  }
  return {};
}

// The run parameter of that name (the test fails without it).
ParamSpec spec_named(const Experiment& exp, const std::string& name) {
  const auto specs = exp.params();
  const auto it =
      std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == name; });
  if (it == specs.end()) {
    ADD_FAILURE() << "no parameter " << name;
    return {};
  }
  return *it;
}

}  // namespace

TEST(IoListPoolSize, IsARunParameterWithPgBouncersDefault) {
  const auto exp = make_iolist_experiment();
  const ParamSpec spec = spec_named(*exp, "pool_size");
  EXPECT_EQ(spec.type, ParamType::Int);
  EXPECT_EQ(spec.default_value, "20");
  EXPECT_NE(spec.help.find("PgBouncer"), std::string::npos) << spec.help;
  EXPECT_EQ(describe_param(spec), "int, 1..1000");
}

TEST(IoListPoolSize, GoesToTheTargetsWithThePooler) {
  const auto exp = make_iolist_experiment();
  const TargetNeeds needs =
      exp->needs(resolve_params(*exp, {{"benchmarks", "pooled"}, {"pool_size", "7"}}));
  EXPECT_TRUE(needs.pg_pooler);
  EXPECT_EQ(needs.pg_pool_size, 7);
  const TargetNeeds fallback = exp->needs(resolve_params(*exp, {{"benchmarks", "pooled"}}));
  EXPECT_EQ(fallback.pg_pool_size, 20);
}

TEST(IoListPoolSize, OutOfRangeIsRefusedNamingTheParameter) {
  const auto exp = make_iolist_experiment();
  EXPECT_EQ(refusal(*exp, "1"), "");
  EXPECT_EQ(refusal(*exp, "1000"), "");
  for (const char* bad : {"0", "-3", "1001"}) {
    const std::string why = refusal(*exp, bad);
    EXPECT_NE(why.find("parameter 'pool_size': " + std::string(bad) + " is outside [1, 1000]"),
              std::string::npos)
        << why;
  }
  const std::string why = refusal(*exp, "twenty");
  EXPECT_NE(why.find("parameter 'pool_size'"), std::string::npos) << why;
}

// How the pooled appends drive their clients: a parameter of its own, event-driven by default,
// read into the settings.
TEST(IoListPoolDriver, IsARunParameterDefaultingToTheEventDrivenPool) {
  const auto exp = make_iolist_experiment();
  const ParamSpec spec = spec_named(*exp, "pool_driver");
  EXPECT_EQ(spec.type, ParamType::OneOf);
  EXPECT_EQ(spec.default_value, "async");
  EXPECT_EQ(spec.choices, (std::vector<std::string>{"async", "threads"}));
  using iolist::IoListSettings;
  EXPECT_TRUE(IoListSettings::from(resolve_params(*exp, {{"benchmarks", "pooled"}})).pool_async);
  EXPECT_FALSE(IoListSettings::from(
                   resolve_params(*exp, {{"benchmarks", "pooled"}, {"pool_driver", "threads"}}))
                   .pool_async);
}
