// The sharding experiment's parameters: typed, validated before a run starts (no server).
#include <gtest/gtest.h>

#include "runner/experiment.h"
#include "sharding/experiment.h"
#include "targets/targets.h"

using namespace perflab;

namespace {

std::string refusal(const std::map<std::string, std::string>& params) {
  auto exp = make_sharding_experiment();
  Targets targets;  // managed: nothing starts unless a run asks for a server
  try {
    execute(*exp, targets, params, {}, {});
  } catch (const ParamError& e) {
    EXPECT_TRUE(targets.describe().empty()) << "a server was started";
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return {};
}

}  // namespace

TEST(ShardingParams, TestsAndVariantsAreSubsets) {
  const auto specs = make_sharding_experiment()->params();
  const Params p = Params::resolve(specs, {{"tests", "MGET, set,set"}, {"variants", "per-reply"}});
  EXPECT_EQ(p.get_subset("tests"), (std::vector<std::string>{"mget", "set"}));
  EXPECT_EQ(p.get_subset("variants"), (std::vector<std::string>{"per-reply"}));
  const Params d = Params::resolve(specs);
  EXPECT_EQ(d.get_subset("tests"), (std::vector<std::string>{"set", "get", "mset"}));
  EXPECT_EQ(d.get_subset("variants").size(), 9u);
  EXPECT_EQ(d.get_choice("preset"), "sweep");
}

TEST(ShardingParams, BadValuesAreRefusedBeforeTheRunStarts) {
  EXPECT_NE(refusal({{"tests", "set,lpush"}}).find("'lpush' is not one of: set, get, mset, mget"),
            std::string::npos);
  EXPECT_NE(refusal({{"variants", "direct,lazy"}}).find("'lazy' is not one of: direct,"),
            std::string::npos);
  EXPECT_NE(refusal({{"tests", ""}}).find("give at least one of"), std::string::npos);
  // One of, not a subset: the article's preset or the sweep, never both.
  EXPECT_NE(refusal({{"preset", "seed,sweep"}}).find("'preset'"), std::string::npos);
}

TEST(ShardingParams, AnOmissionPauseLongerThanHalfItsPeriodFailsBeforeAnyServer) {
  Targets targets;
  const perflab::Run run = execute(*make_sharding_experiment(), targets,
                                   {{"sweep", "false"},
                                    {"omission", "true"},
                                    {"omission_pause_ms", "1000"},
                                    {"omission_every_s", "1.5"}},
                                   {}, {});
  EXPECT_EQ(run.status, RunStatus::Failed);
  EXPECT_NE(run.message.find("a pause of 1000 ms must be at most half of omission_every_s"),
            std::string::npos)
      << run.message;
  EXPECT_TRUE(targets.describe().empty()) << "a server was started";
  EXPECT_TRUE(run.groups.empty());  // nothing measured, not even the key distribution
}
