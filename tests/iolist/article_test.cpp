// The IO-list article's figures, written once in the experiment (no server).
#include <gtest/gtest.h>

#include "iolist/experiment.h"

using namespace perflab;

TEST(IoListArticle, PublishedTablesAsInTheArticle) {
  const Article a = make_iolist_experiment()->article();
  EXPECT_NE(a.source.find("Benchfella"), std::string::npos);
  ASSERT_EQ(a.tables.size(), 2u);
  const ArticleTable& t = a.tables[0];
  EXPECT_EQ(t.columns, (std::vector<std::string>{"benchmark", "before", "after", "ratio"}));
  ASSERT_EQ(t.rows.size(), 6u);
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"append events, single writer", "15787.46",
                                                 "12239.92", "0.78"}));
  EXPECT_EQ(t.rows[2], (std::vector<std::string>{"append events, 100 concurrent writers",
                                                 "1495547.00", "1116299.00", "0.75"}));
  EXPECT_EQ(t.rows[4], (std::vector<std::string>{"read events, 10 concurrent readers", "20172.47",
                                                 "20102.93", "1.00"}));
  EXPECT_EQ(a.tables[1].rows.at(0),
            (std::vector<std::string>{"append 100 events", "24479.62", "9738.10", "0.40"}));
}
