// The IO-list appends and reads at many clients end to end (managed PostgreSQL servers),
// driven both ways pool_driver says: the event-driven pool drives the round-trip appends and the
// reads on a thread per core, writes the same rows as a thread per client, and every point says
// what the client used of the machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "finding_rules.h"
#include "iolist/event_store.h"
#include "iolist/experiment.h"
#include "runner/experiment.h"
#include "servers.h"
#include "targets/pg_text.h"
#include "targets/postgres.h"

using namespace perflab;
using namespace perflab::iolist;

namespace {

constexpr std::size_t kClients = 12, kEvents = 4;

const Finding* finding(const perflab::Run& run, const std::string& id) {
  for (const auto& f : run.findings)
    if (f.id == id) return &f;
  return nullptr;
}

// Every stream of the schema as its events' content in version order (ids, stream ids and
// times left out: the allocator and the clock chose them), sorted: what two runs of the same
// inputs must agree on.
std::vector<std::string> stream_contents(PgConnection& c, const std::string& schema) {
  PgResult streams = c.exec("SELECT stream_uuid FROM " + pg_quote_ident(schema) + ".streams");
  EventIdAllocator ids(0);
  EventStore store(c, schema, ids);
  std::vector<std::string> out;
  for (int i = 0; i < streams.rows(); ++i) {
    std::string s;
    std::int64_t version = 0;
    for (const RecordedEvent& e :
         store.read_stream_forward(std::string(streams.value(i, 0)), 1, 1000)) {
      EXPECT_EQ(e.stream_version, ++version);
      s += e.event_type + '\x1f' + e.correlation_id.value_or("\x1e") + '\x1f' + e.data + '\x1f' +
           e.metadata + '\x1d';
    }
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Driven {
  perflab::Run run;
  std::vector<std::string> streams;
};

// A managed PostgreSQL of the run's own (the server's CPU per append is read only on one), ended
// with its Targets.
Driven run_with(const std::string& driver) {
  auto exp = make_iolist_experiment();
  TargetsConfig cfg;
  cfg.managed_pg.durable = false;
  cfg.managed_pg.shared_buffers = "32MB";
  cfg.pg_schema = "perflab_drivers";
  Driven d;
  {
    Targets targets(cfg);
    d.run = execute(*exp, targets,
                    {{"benchmarks", "append,read"},
                     {"builders", "interpolate,iolist"},
                     {"transports", "round_trips,pipeline"},
                     {"synchronous_commit", "on"},
                     {"network_rtt_ms", "0"},
                     {"writers", std::to_string(kClients)},
                     {"readers", std::to_string(kClients)},
                     {"events", std::to_string(kEvents)},
                     {"repetitions", "2"},
                     {"warmup", "0"},
                     {"verdicts", "false"},
                     {"pool_driver", driver}},
                    {}, {});
    PgConnection c = targets.postgres().connect();
    d.streams = stream_contents(c, cfg.pg_schema);
  }
  return d;
}

double extra(const Point* p, const char* key) {
  return p && p->extra.count(key) ? p->extra.at(key) : -1;
}

}  // namespace

TEST(IoListClientDrivers, AsyncDrivesAppendsAndReadsOnAThreadPerCoreAndWritesTheSameRows) {
  const Driven async = run_with("async"), threads = run_with("threads");
  ASSERT_EQ(async.run.status, RunStatus::Finished) << async.run.message;
  ASSERT_EQ(threads.run.status, RunStatus::Finished) << threads.run.message;
  const std::string writers = std::to_string(kClients) + " concurrent writers";
  const std::string readers = std::to_string(kClients) + " concurrent readers";
  const double cores =
      double(std::min<std::size_t>(kClients, std::max(1u, std::thread::hardware_concurrency())));
  for (const Driven* d : {&async, &threads}) {
    const bool is_async = d == &async;
    for (const char* series : {"interpolate", "iolist"}) {
      const Point* rt = d->run.find_point("append", series, writers);
      const Point* piped = d->run.find_point("append", std::string(series) + " pipelined", writers);
      const Point* rd = d->run.find_point("read", series, readers);
      ASSERT_NE(rt, nullptr) << series;
      ASSERT_NE(piped, nullptr) << series;
      ASSERT_NE(rd, nullptr) << series;
      // The round trips and the reads on a thread per core when async; the pipeline keeps a
      // thread per writer either way.
      EXPECT_EQ(extra(rt, "client_threads"), is_async ? cores : double(kClients)) << series;
      EXPECT_EQ(extra(rd, "client_threads"), is_async ? cores : double(kClients)) << series;
      EXPECT_EQ(extra(piped, "client_threads"), double(kClients)) << series;
      for (const Point* p : {rt, piped, rd}) {
        EXPECT_EQ(p->stats.n, 2u);
        EXPECT_GT(extra(p, "client_cpu_per_op_us"), 0) << p->label;
        EXPECT_GT(extra(p, "client_machine_share_pct"), 0) << p->label;
        EXPECT_LE(extra(p, "client_machine_share_pct"), 100.0 + 1e-9) << p->label;
        EXPECT_GE(extra(p, "client_cpu_wait_pct"), 0) << p->label;  // -1: missing
        EXPECT_LE(extra(p, "client_cpu_wait_pct"), 100.0 + 1e-9) << p->label;
        // Missing where the operations of the point span no clock tick of /proc/stat at all.
        EXPECT_LE(extra(p, "machine_idle_pct"), 100.0 + 1e-9) << p->label;
      }
      // The server's CPU per append, also with two drivers at one point (async).
      EXPECT_GT(extra(rt, "server_cpu"), 0) << series;
      const std::string id = "append_" + std::to_string(kClients);
      EXPECT_NE(finding(d->run, id + ".client_share." + series), nullptr) << series;
      EXPECT_NE(finding(d->run, id + ".client_share." + series + " pipelined"), nullptr) << series;
      EXPECT_NE(finding(d->run, "read_" + std::to_string(kClients) + ".client_share." + series),
                nullptr)
          << series;
    }
    for (const auto& f : d->run.findings)
      for (const auto& v : test::finding_rule_violations(f)) ADD_FAILURE() << f.id << ": " << v;
  }
  // The same rows either way: 2 rounds x 4 variants x 12 writers' streams and the readers' 2 x 12.
  ASSERT_EQ(async.streams.size(), 2 * 4 * kClients + 2 * kClients);
  EXPECT_EQ(async.streams, threads.streams);
}
