// The IO-list lecture plan end to end on a managed PostgreSQL: its charts and headline findings.
#include <gtest/gtest.h>

#include "iolist/experiment.h"
#include "run_probes.h"
#include "runner/experiment.h"
#include "servers.h"

using namespace perflab;

TEST(IoListLecturePlan, ShowsTheBuildAndTheSingleWriterAppends) {
  auto exp = make_iolist_experiment();
  Targets targets(test::isolated_pg(test::unique_name("perflab_lecture")));
  const perflab::Run run = execute(*exp, targets, {{"plan", "lecture"}}, {}, {});
  ASSERT_EQ(run.status, RunStatus::Finished) << run.message;
  for (const char* g : {"build_time", "build_allocs", "append", "append_breakdown"})
    EXPECT_NE(run.group(g), nullptr) << g;
  EXPECT_EQ(run.group("read"), nullptr);  // what teaches nothing in a minute is left out
  for (const char* b : {"interpolate", "iolist"}) {
    EXPECT_NE(run.find_point("append", b, "single writer"), nullptr) << b;
    EXPECT_NE(run.find_point("build_time", b, "100"), nullptr) << b;
  }
  EXPECT_EQ(run.find_series("append", "prepared"), nullptr);
  test::expect_plan_shown(*exp, run, "lecture");
}
