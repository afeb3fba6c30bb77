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
  EXPECT_EQ(d.get_subset("variants").size(), 8u);  // all but per-reply+nodelay, compared nowhere
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

// The user's keys asked for wrongly: the run fails before anything, with a line saying what to
// change; nothing measured, no server started or asked.
TEST(ShardingParams, UserKeysAskedForWronglyFailBeforeAnything) {
  const auto failure = [](const std::map<std::string, std::string>& params,
                          const TargetsConfig& cfg) {
    Targets targets(cfg);
    const perflab::Run run = execute(*make_sharding_experiment(), targets, params, {}, {});
    EXPECT_EQ(run.status, RunStatus::Failed);
    EXPECT_TRUE(targets.describe().empty()) << "a server was started";
    EXPECT_TRUE(run.groups.empty());
    EXPECT_TRUE(run.targets.empty());
    return run.message;
  };
  TargetsConfig none, users;
  users.redis_nodes = {{"127.0.0.1", 1, {}}};  // nothing listens there: never asked
  const auto says = [](const std::string& message, const std::string& part) {
    return message.find(part) != std::string::npos ? ::testing::AssertionSuccess()
                                                   : ::testing::AssertionFailure() << message;
  };
  EXPECT_TRUE(says(failure({{"keys_from", "file"}}, none), "keys_file: give the file of keys"));
  EXPECT_TRUE(says(failure({{"keys_from", "file"}, {"keys_file", "/nonexistent/keys"}}, none),
                   "keys_file: cannot read '/nonexistent/keys'"));
  EXPECT_TRUE(says(failure({{"keys_from", "file"}, {"keys_file", "/dev/null"}}, none),
                   "keys_file: '/dev/null' holds no key"));
  EXPECT_TRUE(says(failure({{"keys_from", "redis"}}, none), "give it (--redis HOST:PORT"));
  TargetsConfig both = users;
  both.redis_cluster = users.redis_nodes;
  EXPECT_TRUE(says(failure({{"keys_from", "redis"}}, both), "not both"));
  EXPECT_TRUE(says(failure({{"keys_from", "redis"}, {"omission", "true"}}, users),
                   "omission: keys_from=redis reads the user's keys"));
  EXPECT_TRUE(says(failure({{"keys_from", "redis"}, {"demonstration", "resharding"}}, users),
                   "leave demonstration=none"));
  EXPECT_TRUE(says(failure({{"keys_from", "redis"}, {"distribution", "false"}}, users),
                   "leaves nothing to do"));
  EXPECT_TRUE(says(failure({{"keys_file", "/tmp/keys"}}, none), "read only with keys_from=file"));
  EXPECT_TRUE(says(failure({{"keys_from", "file"}, {"keys_match", "user:*"}}, none),
                   "used only with keys_from=redis"));
  EXPECT_NE(refusal({{"keys_from", "kafka"}}).find("'kafka' is not one of: synthetic, redis, file"),
            std::string::npos);
  EXPECT_NE(refusal({{"distribution_nodes", "1"}}).find("distribution_nodes"), std::string::npos);
}

// A run on the user's keys needs no target: the user's Redis is read over connections of its
// own, never claimed (a claim writes Perflab's mark).
TEST(ShardingParams, TheUsersKeysNeedNoTarget) {
  auto exp = make_sharding_experiment();
  for (const char* from : {"redis", "file"}) {
    const TargetNeeds n = exp->needs(resolve_params(*exp, {{"keys_from", from}}));
    EXPECT_EQ(n.redis_nodes, 0u) << from;
    EXPECT_FALSE(n.redis_cluster) << from;
    EXPECT_FALSE(n.postgres) << from;
  }
  EXPECT_GT(exp->needs(resolve_params(*exp, {})).redis_nodes, 0u);
}
