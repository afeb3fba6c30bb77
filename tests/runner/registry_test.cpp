// Every experiment of the registry, its parameters and plans: one name per idea (the same
// `repetitions` and `warmup` everywhere, no name used twice, a former name only as such), and
// every plan's values and headlines name parameters that exist and take those values.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "registry/registry.h"
#include "runner/plan.h"
#include "runner/settings.h"

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

// The runner declares its parameters once (runner/settings.h): every experiment holds each of
// them exactly once under the runner's name, with its own defaults and ranges where they differ.
TEST(Registry, EveryExperimentTakesTheRunnersParametersOnce) {
  const std::map<std::string, std::vector<std::string>> expected{
      // id: repetitions default, max; warmup default, max
      {"iolist", {"10", "1000", "1", "100"}},
      {"sharding", {"6", "100", "0", "100"}},
      {"caching", {"200", "100000", "20", "100000"}}};
  for (const auto& exp : all_experiments()) {
    SCOPED_TRACE(exp->id());
    const auto specs = exp->params();
    for (const auto& name : runner_param_names())
      EXPECT_EQ(std::count_if(specs.begin(), specs.end(),
                              [&](const ParamSpec& s) { return s.name == name; }),
                1)
          << name;
    const auto it = expected.find(exp->id());
    if (it == expected.end()) continue;
    const ParamSpec* reps = find_spec(specs, "repetitions");
    const ParamSpec* warmup = find_spec(specs, "warmup");
    ASSERT_TRUE(reps && warmup);
    EXPECT_EQ(reps->default_value, it->second[0]);
    EXPECT_EQ(reps->max, std::stod(it->second[1]));
    EXPECT_EQ(warmup->default_value, it->second[2]);
    EXPECT_EQ(warmup->max, std::stod(it->second[3]));
    const RunnerSettings s = RunnerSettings::from(Params::resolve(specs));
    EXPECT_EQ(s.repetitions, std::stoi(it->second[0]));
    EXPECT_EQ(s.warmup, std::stoi(it->second[2]));
    EXPECT_DOUBLE_EQ(s.threshold, 0.02);
    EXPECT_EQ(s.precision, 0.0);
    EXPECT_EQ(s.precision_budget_s, 60.0);
  }
}

// `repetitions` and `warmup` go after the parameter named (first for ""), the statistics last.
TEST(Registry, RunnerParametersGoWhereTheExperimentPutsThem) {
  const std::vector<ParamSpec> own{{.name = "a"}, {.name = "b"}};
  const RepetitionDefaults d{.repetitions = "3",
                             .repetitions_max = 10,
                             .repetitions_help = "r",
                             .warmup = "0",
                             .warmup_max = 5,
                             .warmup_help = "w"};
  auto names = [](const std::vector<ParamSpec>& specs) {
    std::vector<std::string> out;
    for (const auto& s : specs) out.push_back(s.name);
    return out;
  };
  const std::vector<std::string> stats{"threshold", "precision", "precision_budget_s", "verdicts",
                                       "budget_s"};
  auto expect = [&](std::vector<std::string> head) {
    head.insert(head.end(), stats.begin(), stats.end());
    return head;
  };
  EXPECT_EQ(names(with_runner_params(own, "a", d)), expect({"a", "repetitions", "warmup", "b"}));
  EXPECT_EQ(names(with_runner_params(own, "", d)), expect({"repetitions", "warmup", "a", "b"}));
  EXPECT_THROW(with_runner_params(own, "c", d), std::logic_error);
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
