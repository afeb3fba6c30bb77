// The caching lecture plan end to end on managed PostgreSQL and Redis: every tier, native and
// protobuf, with the headline findings.
#include <gtest/gtest.h>

#include "caching/experiment.h"
#include "run_probes.h"
#include "runner/experiment.h"
#include "servers.h"

using namespace perflab;

TEST(CachingLecturePlan, ShowsEveryTierNativeAndProtobuf) {
  auto exp = make_caching_experiment();
  const perflab::Run run = execute(*exp, test::shared_targets(), {{"plan", "lecture"}}, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  for (const char* g : {"document_wall", "list_wall", "document_cpu", "list_cpu",
                        "document_get_parts", "list_get_parts_us", "decode_time"})
    EXPECT_NE(run.group(g), nullptr) << g;
  // The stores on the same bytes lead, and the article's claim stands beside the whole gets.
  ASSERT_GE(run.findings.size(), 4u);
  EXPECT_EQ(run.findings[0].id, "document.redis_vs_postgres.fetch");
  for (const auto& f : run.findings)
    if (f.id == "document.redis_vs_postgres.time") {
      EXPECT_EQ(f.comparison.subject, "PostgreSQL + protobuf");
      EXPECT_TRUE(f.claim.has_value());
    }
  EXPECT_EQ(run.group("aside_hit_ratio"), nullptr);  // the cache-aside sweep is left out
  test::expect_plan_shown(*exp, run, "lecture");
}
