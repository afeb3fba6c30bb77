// ExpectedProgress: the fraction done grows with the parts' expected seconds, revised or not.
#include <gtest/gtest.h>

#include <cmath>

#include "runner/expected_progress.h"

using namespace perflab;

TEST(ExpectedProgress, PartsCountForTheirExpectedSeconds) {
  ExpectedProgress p(0.1, 0.9);
  p.add(1.0);
  p.add(3.0);
  p.add(4.0);
  EXPECT_DOUBLE_EQ(p.at(0), 0.1);
  EXPECT_DOUBLE_EQ(p.at(0, 0.5), 0.15);  // half of a part of 1 s in 8 s: 1/16 of the 0.8
  EXPECT_DOUBLE_EQ(p.at(1), 0.2);
  EXPECT_DOUBLE_EQ(p.at(1, 1.0), 0.5);
  EXPECT_DOUBLE_EQ(p.at(2, 0.5), 0.7);
  EXPECT_DOUBLE_EQ(p.at(3), 0.9);  // past the last part: all of it
}

TEST(ExpectedProgress, ARevisedExpectationSharesWhatIsLeft) {
  // Four parts of 1 s expected; after the first, the last two turn out to take a tenth of it.
  ExpectedProgress p;
  for (int i = 0; i < 4; ++i) p.add(1.0);
  EXPECT_DOUBLE_EQ(p.at(0, 1.0), 0.25);
  p.expect(0, 100.0);  // begun already: its share stays
  p.expect(2, 0.1);
  p.expect(3, 0.1);
  // The 0.75 left goes 1 : 0.1 : 0.1 to the parts left, so the fraction keeps pace with time.
  EXPECT_DOUBLE_EQ(p.at(1), 0.25);
  EXPECT_NEAR(p.at(2), 0.25 + 0.75 / 1.2, 1e-12);
  EXPECT_NEAR(p.at(3), 0.25 + 0.75 * 1.1 / 1.2, 1e-12);
  EXPECT_NEAR(p.at(3, 1.0), 1.0, 1e-12);
}

TEST(ExpectedProgress, NeverBackwardsNorPastItsEnd) {
  ExpectedProgress p(0, 0.97);
  p.add(2.0);
  p.add(NAN);  // none expected: counts for nothing
  p.add(-1.0);
  p.add(2.0);
  EXPECT_DOUBLE_EQ(p.at(3), 0.485);       // the parts skipped have ended
  EXPECT_DOUBLE_EQ(p.at(0, 1.0), 0.485);  // an earlier part: where the current one began
  EXPECT_DOUBLE_EQ(p.at(3, 2.0), 0.97);
  EXPECT_DOUBLE_EQ(p.at(7), 0.97);
  ExpectedProgress none(0.2, 0.8);
  none.add(0);
  none.add(0);
  EXPECT_DOUBLE_EQ(none.at(1), 0.5);  // nothing expected of any: alike
  EXPECT_DOUBLE_EQ(ExpectedProgress(0.3, 1).at(0), 0.3);
}

TEST(ExpectedProgress, AMovedEndIsSharedByThePartsNotBegun) {
  // Two parts of 1 s; once the first has begun, the span is found to end at 0.5, not 1 (the
  // parts after it take as long again as foretold).
  ExpectedProgress p(0, 1);
  p.add(1.0);
  p.add(1.0);
  EXPECT_DOUBLE_EQ(p.at(0, 0.2), 0.1);
  p.end_at(0.5);
  EXPECT_DOUBLE_EQ(p.at(0, 1.0), 0.5);  // begun: its share stays, up to the end
  EXPECT_DOUBLE_EQ(p.at(1), 0.5);
  EXPECT_DOUBLE_EQ(p.at(2), 0.5);
  ExpectedProgress q(0.2, 0.4);
  q.add(1.0);
  q.end_at(0.1);  // not below its start
  EXPECT_DOUBLE_EQ(q.at(1), 0.2);
  q.end_at(NAN);  // nor anywhere else
  EXPECT_DOUBLE_EQ(q.at(1), 0.2);
  ExpectedProgress r(0, 0);
  r.add(1.0);
  r.add(3.0);
  r.end_at(0.8);
  EXPECT_DOUBLE_EQ(r.at(1), 0.2);
  EXPECT_DOUBLE_EQ(r.at(2), 0.8);
}

TEST(ExpectedProgress, APartThatLearnsItsPaceResharesTheRestFromWhereItIs) {
  // Three parts of 1 s over 0..0.9; halfway through the first, it is found to take 3 s in all
  // and the span to end at 0.6.
  ExpectedProgress p(0, 0.9);
  p.add(1.0);
  p.add(1.0);
  p.add(1.0);
  EXPECT_DOUBLE_EQ(p.at(0, 0.5), 0.15);
  p.reshare(0.5, 3.0, 0.6);
  // Where it was; the 0.45 left goes 1.5 : 1 : 1 to its rest and the two not begun.
  EXPECT_DOUBLE_EQ(p.at(0, 0.5), 0.15);
  EXPECT_NEAR(p.at(0, 1.0), 0.15 + 0.45 * 1.5 / 3.5, 1e-12);
  EXPECT_NEAR(p.at(0, 0.75), 0.15 + 0.45 * 0.75 / 3.5, 1e-12);  // steadily between
  EXPECT_NEAR(p.at(2), 0.15 + 0.45 * 2.5 / 3.5, 1e-12);
  EXPECT_NEAR(p.at(3), 0.6, 1e-12);
  // Never below where it is, whatever the end asked for; all of the rest when nothing else is
  // expected; and before any part has begun, the first part's expectation and the end move.
  ExpectedProgress q(0, 1);
  q.add(2.0);
  q.add(0.0);
  EXPECT_DOUBLE_EQ(q.at(0, 0.5), 0.5);
  q.reshare(0.5, 2.0, 0.3);
  EXPECT_DOUBLE_EQ(q.at(0, 0.5), 0.5);
  EXPECT_DOUBLE_EQ(q.at(0, 1.0), 0.5);
  q.reshare(0.5, 2.0, 0.9);
  EXPECT_NEAR(q.at(0, 1.0), 0.9, 1e-12);
  ExpectedProgress r(0, 1);
  r.add(1.0);
  r.add(1.0);
  r.reshare(0, 3.0, 0.8);
  EXPECT_NEAR(r.at(1), 0.6, 1e-12);
}
