// The sharding experiment's live demonstrations (resharding and failover under load) on managed
// Redis Clusters of their own, and Stop during one.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <stop_token>

#include "run_probes.h"
#include "runner/experiment.h"
#include "servers.h"
#include "sharding/experiment.h"
#include "targets/cluster.h"
#include "targets/redis.h"
#include "tiny_plan.h"

using namespace perflab;
using perflab::test::tiny;

namespace {

// The live demonstrations on a small run: points on a time axis, redirections seen during the
// resharding, the seconds until the killed master's slots take writes again, and "nothing lost".
TEST(ShardingExperiment, ReshardingAndFailoverDemonstrations) {
  auto p = tiny();
  p["sweep"] = "false";
  p["demonstration"] = "both";
  // A master is killed a quarter into the run: 12 s are left for its replica to be promoted
  // (cluster-node-timeout 1 s; a few seconds here), room for a loaded machine with ASan.
  p["demo_s"] = "16";
  p["reshard_slots"] = "40";
  Targets targets;
  perflab::Run run = execute(*make_sharding_experiment(), targets, p, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  EXPECT_EQ(run.group("sweep_set"), nullptr);
  auto finding = [&](const std::string& id) { return test::find_finding(run, id); };
  for (const char* g : {"reshard_rate", "reshard_redirects", "failover_rate"}) {
    const Group* group = run.group(g);
    ASSERT_NE(group, nullptr) << g;
    EXPECT_TRUE(group->numeric_x);
    EXPECT_EQ(group->x_label, "seconds");
  }
  const Series* rate = run.find_series("reshard_rate", "requests/s");
  ASSERT_NE(rate, nullptr);
  EXPECT_GE(rate->points.size(), 6u);
  ASSERT_NE(run.find_series("reshard_redirects", "MOVED/s"), nullptr);
  ASSERT_NE(finding("reshard.slots_moved"), nullptr);
  EXPECT_EQ(finding("reshard.slots_moved")->value, 40);
  // Counts read as whole numbers with their unit (main printed "40.00").
  EXPECT_TRUE(finding_sentence(*finding("reshard.slots_moved")).ends_with(": 40 slots"))
      << finding_sentence(*finding("reshard.slots_moved"));
  EXPECT_TRUE(finding_sentence(*finding("reshard.keys_lost")).ends_with(": 0 writes"))
      << finding_sentence(*finding("reshard.keys_lost"));
  EXPECT_GT(finding("reshard.moved")->value + finding("reshard.ask")->value, 0);
  ASSERT_NE(finding("reshard.keys_verified"), nullptr);
  EXPECT_GT(finding("reshard.keys_verified")->value, 100);
  EXPECT_EQ(finding("reshard.keys_lost")->value, 0);
  EXPECT_NE(finding("reshard.keys_verified")->text.find("nothing lost"), std::string::npos);

  ASSERT_NE(run.find_series("failover_rate", "errors/s"), nullptr);
  ASSERT_NE(finding("failover.errors"), nullptr);
  EXPECT_GT(finding("failover.errors")->value, 0);
  ASSERT_NE(finding("failover.recovery_s"), nullptr) << "no recovery within the run";
  EXPECT_GT(finding("failover.recovery_s")->value, 0);
  std::printf("failover recovered %.2f s after the kill\n", finding("failover.recovery_s")->value);
  EXPECT_EQ(finding("failover.keys_lost")->value, 0);
  EXPECT_GT(finding("failover.keys_verified")->value, 100);
  EXPECT_NE(finding("failover.keys_verified")->text.find("nothing lost"), std::string::npos);
  // The demonstration's keys are gone from the managed cluster it resharded.
  ClusterClient c(targets.managed_cluster()->seeds());
  for (const auto& m : c.masters()) {
    RedisClient node(m);
    EXPECT_TRUE(node.command({"KEYS", "perflab:demo:*"}).elements.empty()) << m.address();
  }
}

// Stop during a demonstration: the run ends promptly, cancelled, with the seconds measured.
TEST(ShardingExperiment, StopDuringADemonstrationKeepsItsSeconds) {
  auto p = tiny();
  p["sweep"] = "false";
  p["demonstration"] = "resharding";
  p["demo_s"] = "120";
  Targets targets;
  std::stop_source stop;
  test::StopLater later(
      stop, [&] { return targets.managed_cluster() != nullptr; }, std::chrono::seconds(4));
  perflab::Run run = execute(*make_sharding_experiment(), targets, p, {}, stop.get_token());
  ASSERT_TRUE(later.requested());
  EXPECT_EQ(run.status, RunStatus::Cancelled);
  EXPECT_LT(later.seconds_since_stop(), 60);  // proves the 120 s are not waited for
  const Series* rate = run.find_series("reshard_rate", "requests/s");
  ASSERT_NE(rate, nullptr);
  EXPECT_GE(rate->points.size(), 1u);
}

}  // namespace
