// The sharding lecture plan end to end on managed Redis: the collapse through the proxy and the
// key distribution, with their headline findings.
#include <gtest/gtest.h>

#include "run_probes.h"
#include "runner/experiment.h"
#include "servers.h"
#include "sharding/experiment.h"

using namespace perflab;

TEST(ShardingLecturePlan, ShowsTheCollapseAndTheKeyDistribution) {
  auto exp = make_sharding_experiment();
  const perflab::Run run = execute(*exp, test::shared_targets(), {{"plan", "lecture"}}, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  for (const char* g : {"dist_nodes", "dist_moved", "sweep_set"})
    EXPECT_NE(run.group(g), nullptr) << g;
  EXPECT_EQ(run.group("sweep_mset"), nullptr);
  for (const char* s : {"direct redis", "coalesced+nodelay", "per-reply, no nodelay (lazy)"})
    for (const char* depth : {"1", "2", "16"})
      EXPECT_NE(run.find_point("sweep_set", s, depth), nullptr) << s << " -P " << depth;
  test::expect_plan_shown(*exp, run, "lecture");
}
