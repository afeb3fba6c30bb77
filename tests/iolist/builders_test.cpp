#include <gtest/gtest.h>

#include "common/alloc_counter.h"
#include "iolist/builders.h"
#include "iolist/events.h"

using namespace perflab;
using namespace perflab::iolist;

TEST(Builders, TwoEventStatementIsTheOriginalsText) {
  const std::string head = insert_head("events");
  EXPECT_EQ(build_interpolate(head, 2),
            "INSERT INTO events (event_id, stream_id, stream_version, correlation_id, event_type, "
            "data, metadata, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8),"
            "($9, $10, $11, $12, $13, $14, $15, $16);");
}

TEST(Builders, InterpolateAndIoListAreByteIdentical) {
  const std::string head = insert_head("\"perflab\".events");
  for (std::size_t n : {1u, 2u, 9u, 10u, 13u, 100u, 1000u, 1250u, 8191u}) {
    const IoList list = build_iolist(head, n);
    const std::string flat = list.flatten();
    EXPECT_EQ(flat, build_interpolate(head, n)) << n;
    EXPECT_EQ(list.size(), flat.size());
  }
}

TEST(Builders, IoListAllocatesAFixedNumberOfTimes) {
  const std::string head = insert_head("events");
  for (std::size_t n : {1u, 100u, 8191u}) {
    AllocScope scope;
    const std::string s = build_iolist(head, n).flatten();
    // fragment vector + number arena + the flattened statement
    EXPECT_EQ(scope.delta().allocations, 3u) << n;
  }
  AllocScope scope;
  const std::string s = build_interpolate(head, 100);
  EXPECT_GT(scope.delta().allocations, 100u);  // at least one per row
}

TEST(Events, GeneratedFromASeed) {
  auto a = make_events(50, 7), b = make_events(50, 7), c = make_events(50, 8);
  ASSERT_EQ(a.size(), 50u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].data, b[i].data);
    EXPECT_EQ(a[i].correlation_id, b[i].correlation_id);
  }
  EXPECT_NE(a[0].data, c[0].data);
  EXPECT_FALSE(a[6].correlation_id.has_value());  // every seventh has none
  EXPECT_TRUE(a[0].correlation_id.has_value());
  std::uint64_t st = 1;
  const std::string u = make_uuid(st);
  EXPECT_EQ(u.size(), 36u);
  EXPECT_EQ(u[14], '4');
  EXPECT_NE(make_uuid(st), u);
}

TEST(Events, PayloadOfAGivenSize) {
  for (std::size_t bytes : {std::size_t{64}, std::size_t{1024}, std::size_t{1} << 20}) {
    const auto events = make_events(3, 9, bytes);
    for (const auto& e : events) {
      EXPECT_EQ(e.data.size(), bytes);
      EXPECT_EQ(e.data.front(), '{');
      EXPECT_EQ(e.data.substr(e.data.size() - 2), "\"}");
    }
  }
  EXPECT_EQ(make_events(2, 9, 1024)[1].data, make_events(2, 9, 1024)[1].data);  // seeded
}
