// The event-driven client pool against real servers (the shared managed PostgreSQL, directly and
// through its managed PgBouncer): many clients on two threads write what the threaded pool
// writes and read what the event store reads, a failing client fails the operation with the
// server's words, a stop ends it, and clients spread over their targets.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "event_schema.h"
#include "iolist/async_pool.h"
#include "iolist/client_pool.h"
#include "iolist/event_store.h"
#include "iolist/events.h"
#include "servers.h"

using namespace perflab;
using namespace perflab::iolist;

namespace {

constexpr std::size_t kClients = 50, kEvents = 5;
constexpr std::int64_t kVersion = kEvents;  // a stream's after one append

// An event as read back, without what the writer's allocator and clock chose (ids, stream id,
// created_at): what two pools writing the same inputs must agree on.
using Row =
    std::tuple<std::int64_t, std::string, std::optional<std::string>, std::string, std::string>;

std::vector<Row> rows(EventStore& store, const std::string& uuid) {
  std::vector<Row> out;
  for (const RecordedEvent& e : store.read_stream_forward(uuid, 1, 1000))
    out.emplace_back(e.stream_version, e.event_type, e.correlation_id, e.data, e.metadata);
  return out;
}

std::vector<Row> expected_rows(const std::vector<std::vector<EventData>>& batches) {
  std::vector<Row> out;
  std::int64_t version = 0;
  for (const auto& batch : batches)
    for (const EventData& e : batch)
      out.emplace_back(++version, e.event_type, e.correlation_id, e.data, e.metadata);
  return out;
}

std::vector<std::vector<EventData>> batches_for(std::size_t n, std::uint64_t seed) {
  std::vector<std::vector<EventData>> out;
  for (std::size_t w = 0; w < n; ++w) out.push_back(make_events(kEvents, seed + w));
  return out;
}

std::vector<ClientAppend> appends_to(const std::vector<std::string>& uuids,
                                     const std::vector<std::vector<EventData>>& batches,
                                     std::int64_t expected_version) {
  std::vector<ClientAppend> out;
  for (std::size_t w = 0; w < uuids.size(); ++w)
    out.push_back({uuids[w], expected_version, &batches[w]});
  return out;
}

std::vector<std::string> new_uuids(std::size_t n, const std::string& tag) {
  std::vector<std::string> out;
  for (std::size_t w = 0; w < n; ++w) out.push_back(test::unique_name(tag + std::to_string(w)));
  return out;
}

// The schema's clients' target: the shared PostgreSQL with the schema of the test's own.
PgTarget target_of(const test::EventSchema& db) {
  PgTarget t = db.pg;
  t.schema = db.name;
  return t;
}

class AsyncPoolTest : public ::testing::TestWithParam<std::tuple<bool, Builder>> {
 protected:
  void SetUp() override {
    db_ = std::make_unique<test::EventSchema>("perflab_async");
    target_ = pooled() ? test::shared_targets().pg_pooler() : db_->pg;
    target_.schema = db_->name;
    reader_ = std::make_unique<EventStore>(db_->conn, db_->name, db_->ids);
  }
  static bool pooled() { return std::get<0>(GetParam()); }
  static Builder builder() { return std::get<1>(GetParam()); }

  std::unique_ptr<test::EventSchema> db_;
  PgTarget target_;
  std::unique_ptr<EventStore> reader_;
};

std::string param_name(const ::testing::TestParamInfo<std::tuple<bool, Builder>>& info) {
  return std::string(std::get<0>(info.param) ? "pooled_" : "direct_") +
         to_string(std::get<1>(info.param));
}

}  // namespace

// 50 clients on 2 threads append to new streams, then again to the same streams (the check of
// an existing stream's version): every stream holds exactly its events, the same rows the
// threaded pool writes for the same inputs.
TEST_P(AsyncPoolTest, ManyClientsOnTwoThreadsWriteWhatTheThreadedPoolWrites) {
  AsyncPool async(kClients, target_, db_->ids, {}, 2);
  ASSERT_EQ(async.threads(), 2u);
  ASSERT_EQ(async.size(), kClients);
  ClientPool threads(kClients, target_, db_->ids, {});
  const auto first = batches_for(kClients, 11), second = batches_for(kClients, 1000);
  const auto by_async = new_uuids(kClients, "async"), by_threads = new_uuids(kClients, "thr");
  const AppendOptions o{builder()};
  std::vector<AppendTiming> timings(kClients);
  for (int round = 0; round < 2; ++round) {
    const auto& batches = round == 0 ? first : second;
    const std::int64_t expected = round == 0 ? 0 : kVersion;
    const ClientPoolSample s = async.append(appends_to(by_async, batches, expected), o, timings);
    EXPECT_GT(s.wall_us, 0);
    EXPECT_GT(s.cpu_us, 0);  // the two threads' own
    for (const AppendTiming& t : timings) {
      for (Phase p : {Phase::Begin, Phase::Check, Phase::Insert, Phase::Commit})
        EXPECT_GT(t.wall(p), 0) << to_string(p);
      EXPECT_EQ(t.wall(Phase::Flight), 0);
    }
    threads.append(appends_to(by_threads, batches, expected), o, timings);
  }
  const std::vector<Row> none;
  for (std::size_t w = 0; w < kClients; ++w) {
    const std::vector<Row> want = expected_rows({first[w], second[w]});
    const std::vector<Row> got = rows(*reader_, by_async[w]);
    ASSERT_EQ(got.size(), 2 * kEvents) << by_async[w];
    EXPECT_EQ(got, want) << by_async[w];
    EXPECT_EQ(got, rows(*reader_, by_threads[w])) << by_async[w];
  }
  PgResult count = db_->conn.exec("SELECT count(*) FROM " + pg_quote_ident(db_->name) + ".events");
  EXPECT_EQ(count.value(0, 0), std::to_string(2 * 2 * kClients * kEvents));
}

INSTANTIATE_TEST_SUITE_P(Builders, AsyncPoolTest,
                         ::testing::Combine(::testing::Bool(),
                                            ::testing::Values(Builder::Interpolate, Builder::IoList,
                                                              Builder::Unnest, Builder::Copy)),
                         param_name);

// One client's wrong expected version fails the operation with the store's own exception once
// every client is done; the others' appends are there, the failing one's transaction rolled back
// and its connection still usable.
TEST(AsyncPool, AWrongExpectedVersionFailsTheOperationAndTheOthersCommit) {
  test::EventSchema db("perflab_async_wev");
  const PgTarget target = target_of(db);
  AsyncPool pool(8, target, db.ids, {}, 2);
  const auto batches = batches_for(8, 3);
  auto uuids = new_uuids(8, "wev");
  std::vector<AppendTiming> timings(8);
  pool.append(appends_to(uuids, batches, 0), {}, timings);
  auto again = appends_to(uuids, batches, kVersion);
  again[5].expected_version = 2;  // it is at 5
  try {
    pool.append(again, {}, timings);
    FAIL() << "a wrong expected version was not reported";
  } catch (const WrongExpectedVersion& e) {
    EXPECT_NE(std::string(e.what()).find("is at version 5, expected 2"), std::string::npos)
        << e.what();
  }
  EventStore reader(db.conn, db.name, db.ids);
  for (std::size_t w = 0; w < 8; ++w)
    EXPECT_EQ(reader.read_stream_forward(uuids[w], 1, 100).size(), w == 5 ? kEvents : 2 * kEvents);
  // A new stream that already exists (expected version 0): the server's unique violation.
  auto clash = appends_to(new_uuids(8, "clash"), batches, 0);
  clash[2].stream_uuid = uuids[0];
  EXPECT_THROW(pool.append(clash, {}, timings), WrongExpectedVersion);
  // Every connection goes on: client 5 appends at the version it is at.
  again[5].expected_version = kVersion;
  for (std::size_t w = 0; w < 8; ++w)
    if (w != 5) again[w].expected_version = 2 * kVersion;
  pool.append(again, {}, timings);
  EXPECT_EQ(reader.read_stream_forward(uuids[5], 1, 100).size(), 2 * kEvents);
}

// A server error after the check (an event id taken twice: the events' primary key) fails the
// operation with the server's message, and the failing append leaves nothing behind.
TEST(AsyncPool, AServerErrorFailsTheOperationWithTheServersMessage) {
  test::EventSchema db("perflab_async_err");
  const PgTarget target = target_of(db);
  AsyncPool first(4, target, db.ids, {}, 2);
  const auto batches = batches_for(4, 5);
  std::vector<AppendTiming> timings(4);
  first.append(appends_to(new_uuids(4, "ok"), batches, 0), {}, timings);
  EventIdAllocator stale(0);  // hands out the ids already used
  AsyncPool second(4, target, stale, {}, 2);
  const auto uuids = new_uuids(4, "dup");
  try {
    second.append(appends_to(uuids, batches, 0), {}, timings);
    FAIL() << "a duplicate event id was not reported";
  } catch (const PgError& e) {
    EXPECT_EQ(e.sqlstate(), "23505");
    EXPECT_NE(std::string(e.what()).find("duplicate key value violates unique constraint"),
              std::string::npos)
        << e.what();
  }
  for (const std::string& u : uuids)  // rolled back: not even the stream was created
    EXPECT_EQ(db.conn
                  .exec("SELECT count(*) FROM " + pg_quote_ident(db.name) +
                        ".streams WHERE stream_uuid = '" + u + "'")
                  .value(0, 0),
              "0");
}

namespace {

// A stop while every client waits for a lock on `table` (longer than the stop may take: the lock
// timeout is 10 s) ends `operation` promptly with a failure that says so.
void expect_a_stop_ends(test::EventSchema& db, const char* table, std::stop_source& stop,
                        const std::function<void()>& operation) {
  PgConnection locker(db.pg.conninfo);
  locker.exec("BEGIN; LOCK TABLE " + pg_quote_ident(db.name) + "." + table +
              " IN ACCESS EXCLUSIVE MODE");
  std::jthread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    stop.request_stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  try {
    operation();
    FAIL() << "the stopped operation did not fail";
  } catch (const PgError& e) {
    EXPECT_NE(std::string(e.what()).find("stopped"), std::string::npos) << e.what();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // It returns, nothing hangs (the message above says the stop ended it, not the 10 s lock
  // timeout); how soon a stop ends an operation is a benchmark's figure, not this test's.
  EXPECT_LT(seconds, 120.0);
  locker.exec("ROLLBACK");
}

}  // namespace

TEST(AsyncPool, AStopDuringAnOperationEndsItPromptly) {
  test::EventSchema db("perflab_async_stop");
  std::stop_source stop;
  AsyncPool pool(20, target_of(db), db.ids, stop.get_token(), 2);
  const auto batches = batches_for(20, 9);
  std::vector<AppendTiming> timings(20);
  expect_a_stop_ends(db, "streams", stop, [&] {
    pool.append(appends_to(new_uuids(20, "stop"), batches, 0), {}, timings);
  });
}

namespace {

// Field by field: RecordedEvent has no operator==.
using Recorded = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::string,
                            std::optional<std::string>, std::string, std::string, std::int64_t>;
std::vector<Recorded> fields(const std::vector<RecordedEvent>& events) {
  std::vector<Recorded> out;
  for (const RecordedEvent& e : events)
    out.emplace_back(e.event_id, e.stream_id, e.stream_version, e.event_type, e.correlation_id,
                     e.data, e.metadata, e.created_at_us);
  return out;
}

}  // namespace

// 50 clients on 2 threads read streams whole, from a later version, a few events, an empty
// stream and one that does not exist: each gets exactly what EventStore's own read returns
// (every field), as does the threaded pool; again on the same connections, the same.
TEST(AsyncPool, ReadsReturnExactlyWhatTheEventStoreReads) {
  test::EventSchema db("perflab_async_read");
  const PgTarget target = target_of(db);
  EventStore writer(db.conn, db.name, db.ids);
  const auto uuids = new_uuids(kClients, "read");
  for (std::size_t w = 0; w + 1 < kClients; ++w)  // the last stream is never written
    writer.append_to_stream(uuids[w], 0, make_events(kEvents + w % 3, 70 + w), Builder::IoList);
  std::vector<ClientRead> reads;
  for (std::size_t w = 0; w < kClients; ++w)
    reads.push_back({uuids[w], std::int64_t(1 + w % 4), int(w % 5 == 0 ? 2 : 1000)});
  AsyncPool async(kClients, target, db.ids, {}, 2);
  ClientPool threads(kClients, target, db.ids, {});
  std::vector<std::vector<RecordedEvent>> got, by_threads;
  for (int round = 0; round < 2; ++round) {
    const ClientPoolSample s = async.read(reads, got);
    EXPECT_GT(s.wall_us, 0);
    EXPECT_GT(s.cpu_us, 0);
    threads.read(reads, by_threads);
    ASSERT_EQ(got.size(), kClients);
    std::size_t events = 0;
    for (std::size_t w = 0; w < kClients; ++w) {
      const auto want =
          writer.read_stream_forward(reads[w].stream_uuid, reads[w].start_version, reads[w].count);
      EXPECT_EQ(fields(got[w]), fields(want)) << w;
      EXPECT_EQ(fields(by_threads[w]), fields(want)) << w;
      events += got[w].size();
    }
    EXPECT_GT(events, kClients);  // not all empty: the comparison compares events
    EXPECT_TRUE(got.back().empty());
  }
}

// The same for a read: every reader waits for the events' lock.
TEST(AsyncPool, AStopDuringAReadEndsIt) {
  test::EventSchema db("perflab_async_rstop");
  std::stop_source stop;
  AsyncPool pool(20, target_of(db), db.ids, stop.get_token(), 2);
  std::vector<ClientRead> reads;
  for (const std::string& u : new_uuids(20, "rstop")) reads.push_back({u, 1, 100});
  std::vector<std::vector<RecordedEvent>> got;
  expect_a_stop_ends(db, "events", stop, [&] { pool.read(reads, got); });
}

// A read the server refuses fails the operation with the server's words.
TEST(AsyncPool, AFailedReadGivesTheServersWords) {
  test::EventSchema db("perflab_async_rerr");
  const PgTarget target = target_of(db);
  AsyncPool pool(4, target, db.ids, {}, 2);
  db.conn.exec("DROP TABLE " + pg_quote_ident(db.name) + ".events");
  std::vector<ClientRead> reads;
  for (const std::string& u : new_uuids(4, "rerr")) reads.push_back({u, 1, 10});
  std::vector<std::vector<RecordedEvent>> got;
  try {
    pool.read(reads, got);
    FAIL() << "a read of a dropped table did not fail";
  } catch (const PgError& e) {
    EXPECT_EQ(e.sqlstate(), "42P01") << e.what();
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
}

// Client i reads from targets[i % 2] (as ClientConnections connects the threaded pool's): two
// schemas hold the same stream with different events, and each client reads its target's.
TEST(AsyncPool, ReadersSpreadOverTheirTargets) {
  test::EventSchema a("perflab_async_ta"), b("perflab_async_tb");
  const std::string uuid = test::unique_name("spread");
  EventStore in_a(a.conn, a.name, a.ids), in_b(b.conn, b.name, b.ids);
  in_a.append_to_stream(uuid, 0, make_events(3, 1), Builder::IoList);
  in_b.append_to_stream(uuid, 0, make_events(7, 2), Builder::IoList);
  const std::vector<PgTarget> targets{target_of(a), target_of(b)};
  AsyncPool pool(9, targets, a.ids, {}, 2);
  std::vector<ClientRead> reads(9, ClientRead{uuid, 1, 100});
  std::vector<std::vector<RecordedEvent>> got;
  pool.read(reads, got);
  const auto from_a = fields(in_a.read_stream_forward(uuid, 1, 100));
  const auto from_b = fields(in_b.read_stream_forward(uuid, 1, 100));
  ASSERT_EQ(from_a.size(), 3u);
  ASSERT_EQ(from_b.size(), 7u);
  for (std::size_t i = 0; i < 9; ++i) EXPECT_EQ(fields(got[i]), i % 2 == 0 ? from_a : from_b) << i;
}

// Only the round-trip transport: the pipeline is refused before anything is sent.
TEST(AsyncPool, RefusesThePipelineTransport) {
  test::EventSchema db("perflab_async_pipe");
  const PgTarget target = target_of(db);
  AsyncPool pool(2, target, db.ids, {}, 0);
  EXPECT_EQ(pool.threads(), std::min<std::size_t>(2, std::thread::hardware_concurrency()));
  const auto batches = batches_for(2, 1);
  std::vector<AppendTiming> timings(2);
  EXPECT_THROW(
      pool.append(appends_to(new_uuids(2, "p"), batches, 0), {{}, Transport::Pipeline}, timings),
      std::invalid_argument);
}
