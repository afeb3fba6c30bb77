// The sharding article's figures, written once in the experiment (no server).
#include <gtest/gtest.h>

#include "sharding/experiment.h"

using namespace perflab;

TEST(ShardingArticle, PublishedTablesAndTheCollapse) {
  const Article a = make_sharding_experiment()->article();
  EXPECT_NE(a.source.find("seed 002"), std::string::npos);
  ASSERT_EQ(a.tables.size(), 3u);
  const ArticleTable& t = a.tables[0];
  EXPECT_EQ(t.unit, "requests/s");
  ASSERT_EQ(t.rows.size(), 4u);
  EXPECT_EQ(t.rows[1], (std::vector<std::string>{"lazy", "2", "195.46", "196.31", "196.29"}));
  EXPECT_EQ(t.rows[3],
            (std::vector<std::string>{"strict", "2", "25906.74", "25839.79", "12285.01"}));
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_NE(a.notes[0].find("≈ 0.0098 for SET"), std::string::npos) << a.notes[0];
}
