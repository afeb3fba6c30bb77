// Every experiment of the registry, its parameters and plans: one name per idea (the same
// `repetitions` and `warmup` everywhere, no name used twice, a former name only as such), and
// every plan's values and headlines name parameters that exist and take those values.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "registry.h"
#include "runner/plan.h"

using namespace perflab;

namespace {

const ParamSpec* find_spec(const std::vector<ParamSpec>& specs, const std::string& name) {
  const auto it =
      std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == name; });
  return it == specs.end() ? nullptr : &*it;
}

}  // namespace

TEST(Registry, RepetitionsAndWarmupMeanTheSameInEveryExperiment) {
  for (const auto& exp : all_experiments()) {
    SCOPED_TRACE(exp->id());
    const auto specs = exp->params();
    const ParamSpec* reps = find_spec(specs, "repetitions");
    const ParamSpec* warmup = find_spec(specs, "warmup");
    ASSERT_NE(reps, nullptr);
    ASSERT_NE(warmup, nullptr);
    EXPECT_EQ(reps->type, ParamType::Int);
    EXPECT_EQ(warmup->type, ParamType::Int);
    EXPECT_EQ(reps->min, 1.0);    // at least one measured repetition
    EXPECT_EQ(warmup->min, 0.0);  // none unmeasured is allowed
  }
}

TEST(Registry, EachNameIsOneParameter) {
  for (const auto& exp : all_experiments()) {
    SCOPED_TRACE(exp->id());
    std::set<std::string> names;
    for (const auto& s : exp->params()) {
      EXPECT_TRUE(names.insert(s.name).second) << s.name;
      for (const auto& former : s.former_names) EXPECT_TRUE(names.insert(former).second) << former;
      EXPECT_NO_THROW(validate_param(s, s.default_value)) << s.name;
    }
  }
}

TEST(Registry, PlansNameParametersThatTakeTheirValues) {
  for (const auto& exp : all_experiments()) {
    const auto specs = exp->params();
    for (const auto& plan : exp->plans()) {
      SCOPED_TRACE(exp->id() + " plan " + plan.name);
      for (const auto& [name, value] : plan.values) {
        const ParamSpec* spec = find_spec(specs, name);
        ASSERT_NE(spec, nullptr) << name;
        EXPECT_NO_THROW(validate_param(*spec, value)) << name << "=" << value;
      }
      for (const auto& h : plan.headlines)
        for (const auto& name : h.settled_by) EXPECT_NE(find_spec(specs, name), nullptr) << name;
      EXPECT_NO_THROW(resolve_params(*exp, {{"plan", plan.name}}));
    }
  }
}

// A sharding run file written before `repeat` became `repetitions` runs again with its value;
// a new value under the old name is refused with the name to use.
TEST(Registry, ARenamedParameterOpensFromOldRunFilesOnly) {
  const auto exp = make_experiment("sharding");
  ASSERT_TRUE(exp);
  const auto old_file = with_current_names(exp->params(), {{"repeat", "7"}, {"nodes", "2"}});
  EXPECT_EQ(old_file, (std::map<std::string, std::string>{{"repetitions", "7"}, {"nodes", "2"}}));
  EXPECT_EQ(resolve_params(*exp, old_file).get_int("repetitions"), 7);
  try {
    resolve_params(*exp, {{"repeat", "7"}});
    FAIL() << "repeat=7 was taken";
  } catch (const ParamError& e) {
    EXPECT_STREQ(e.what(), "unknown parameter 'repeat': it is called 'repetitions' now");
  }
}
