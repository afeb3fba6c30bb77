// The event store against a real PostgreSQL started by the project's managed-server code.
#include <gtest/gtest.h>

#include "event_schema.h"
#include "iolist/builders.h"
#include "iolist/event_store.h"
#include "servers.h"
#include "targets/ownership.h"
#include "targets/pg_text.h"
#include "targets/postgres.h"

using namespace perflab;
using namespace perflab::iolist;

namespace {
// Every builder on every transport.
class EventStoreTest : public ::testing::TestWithParam<std::tuple<Builder, Transport>> {
 protected:
  static AppendOptions opts() { return {std::get<0>(GetParam()), std::get<1>(GetParam())}; }

  void SetUp() override {
    db_ = std::make_unique<test::EventSchema>("perflab_es");
    store_ = std::make_unique<EventStore>(db_->conn, db_->name, db_->ids);
  }
  std::unique_ptr<test::EventSchema> db_;
  std::unique_ptr<EventStore> store_;
};
}  // namespace

TEST_P(EventStoreTest, EventsReadBackEqualToWhatWasWritten) {
  const auto events = make_events(100, 3);
  AppendTiming timing;
  auto res = store_->append_to_stream("stream-a", 0, events, opts(), &timing);
  EXPECT_EQ(res.first_version, 1);
  auto got = store_->read_stream_forward("stream-a", 1, 1000);
  ASSERT_EQ(got.size(), events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(got[i].stream_version, static_cast<std::int64_t>(i + 1));
    EXPECT_EQ(got[i].stream_id, res.stream_id);
    EXPECT_EQ(got[i].event_type, events[i].event_type);
    EXPECT_EQ(got[i].correlation_id, events[i].correlation_id);
    EXPECT_EQ(got[i].data, events[i].data);
    EXPECT_EQ(got[i].metadata, events[i].metadata);
    EXPECT_EQ(got[i].created_at_us, res.created_at_us);
  }
  // Event ids are consecutive, assigned by the writer.
  EXPECT_EQ(got.back().event_id - got.front().event_id, 99);
  // Reading from a later version, with a limit.
  auto part = store_->read_stream_forward("stream-a", 51, 10);
  ASSERT_EQ(part.size(), 10u);
  EXPECT_EQ(part.front().stream_version, 51);
  // Where the append's time went: the builder's phase and the transport's.
  EXPECT_GT(timing.wall(Phase::Build), 0);
  if (opts().transport == Transport::Pipeline) {
    EXPECT_GT(timing.wall(Phase::Flight), 0);
    EXPECT_EQ(timing.wall(Phase::Begin) + timing.wall(Phase::Insert) + timing.wall(Phase::Commit),
              0);
  } else {
    for (Phase p : {Phase::Begin, Phase::Check, Phase::Insert, Phase::Commit})
      EXPECT_GT(timing.wall(p), 0) << to_string(p);
    EXPECT_EQ(timing.wall(Phase::Flight), 0);
  }
  EXPECT_GE(timing.total_wall(), timing.wall(Phase::Build));
}

TEST_P(EventStoreTest, ExpectedVersionIsChecked) {
  const AppendOptions b = opts();
  const auto events = make_events(10, 4);
  store_->append_to_stream("stream-b", 0, events, b);
  EXPECT_THROW(store_->append_to_stream("stream-b", 0, events, b), WrongExpectedVersion);
  EXPECT_THROW(store_->append_to_stream("stream-b", 5, events, b), WrongExpectedVersion);
  EXPECT_THROW(store_->append_to_stream("stream-b", 15, events, b), WrongExpectedVersion);
  EXPECT_THROW(store_->append_to_stream("stream-none", 3, events, b), WrongExpectedVersion);
  EXPECT_EQ(store_->read_stream_forward("stream-b", 1, 100).size(), 10u);  // nothing written
  auto res = store_->append_to_stream("stream-b", 10, events, b);
  EXPECT_EQ(res.first_version, 11);
  EXPECT_EQ(store_->read_stream_forward("stream-b", 1, 100).size(), 20u);
  // The failed appends left nothing behind, and the connection is usable.
  EXPECT_EQ(store_->read_stream_forward("stream-none", 1, 100).size(), 0u);
}

TEST_P(EventStoreTest, LargestStatementFitsTheParameterLimit) {
  const AppendOptions o = opts();
  const Builder b = o.builder;
  const auto events = make_events(kMaxEventsPerStatement, 5);
  store_->append_to_stream("stream-max", 0, events, o);
  EXPECT_EQ(store_->read_stream_forward("stream-max", 1, 100000).size(), kMaxEventsPerStatement);
  if (b != Builder::Copy && b != Builder::Unnest) {
    const auto too_many = make_events(kMaxEventsPerStatement + 1, 5);
    EXPECT_THROW(store_->append_to_stream("stream-over", 0, too_many, o), std::invalid_argument);
  }
}

// A builder outside the enum is an error and the transaction rolls back: never an append that
// silently inserts nothing.
TEST_P(EventStoreTest, UnknownBuilderIsAnErrorAndChangesNothing) {
  const auto events = make_events(3, 5);
  AppendOptions unknown = opts();
  unknown.builder = static_cast<Builder>(99);
  EXPECT_THROW(store_->append_to_stream("stream-x", 0, events, unknown), std::invalid_argument);
  EXPECT_TRUE(store_->read_stream_forward("stream-x", 1, 10).empty());
  // The stream was not created: version 0 is still what it expects.
  EXPECT_EQ(store_->append_to_stream("stream-x", 0, events, opts()).first_version, 1);
}

// Synchronous commit off (SET LOCAL: this transaction only) still writes the events, on both
// transports, and leaves the session's setting as it was.
TEST_P(EventStoreTest, SynchronousCommitOffIsLocalToTheAppend) {
  const std::string before(db_->conn.exec("SHOW synchronous_commit").value(0, 0));
  AppendOptions o = opts();
  o.synchronous_commit = false;
  const auto events = make_events(5, 6);
  store_->append_to_stream("stream-async", 0, events, o);
  EXPECT_EQ(store_->read_stream_forward("stream-async", 1, 10).size(), 5u);
  EXPECT_EQ(db_->conn.exec("SHOW synchronous_commit").value(0, 0), before);
}

INSTANTIATE_TEST_SUITE_P(
    AllBuildersAndTransports, EventStoreTest,
    ::testing::Combine(::testing::Values(Builder::Interpolate, Builder::IoList, Builder::Prepared,
                                         Builder::Unnest, Builder::Copy),
                       ::testing::Values(Transport::RoundTrips, Transport::Pipeline)),
    [](const auto& info) {
      return std::string(to_string(std::get<0>(info.param))) + "_" +
             to_string(std::get<1>(info.param));
    });

TEST(EventStoreSchema, StatementTextIsTheSameForInterpolateAndIoList) {
  auto pg = test::shared_targets().postgres();
  PgConnection conn(pg.conninfo);
  EventIdAllocator ids;
  EventStore store(conn, "perflab_any", ids);
  EXPECT_EQ(store.statement_text(Builder::Interpolate, 100),
            store.statement_text(Builder::IoList, 100));
  EXPECT_NE(store.statement_text(Builder::Unnest, 100).find("unnest("), std::string::npos);
}

TEST(EventStoreSchema, AUsersSchemaIsRefusedAndKeepsItsTables) {
  PgConnection c(test::shared_targets().postgres().conninfo);
  const std::string users = test::make_users_schema(c);
  EXPECT_THROW(reset_schema(c, users), TargetError);
  EXPECT_EQ(test::users_orders(c, users), "2");
  c.exec("DROP SCHEMA " + pg_quote_ident(users) + " CASCADE");
}
