#pragma once
// A load generator comparable to redis-benchmark: -c clients on one thread with epoll, each
// sending -P requests at a time and waiting for their replies, -n requests in all, random keys
// "key:NNNNNNNNNNNN" from a keyspace of -r (redis-benchmark's __rand_int__), values of -d bytes.
// Tests: SET, GET, MSET (10 keys), MGET (10 keys). Latency of each request is measured, as
// redis-benchmark does, from the moment its pipeline batch was written to its reply, and kept
// in a histogram for percentiles. With a rate (open loop, open_loop.h) each request is sent at its
// intended time instead and its latency runs from that time.
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "common/latency_recorder.h"
#include "sharding/open_loop.h"

namespace perflab::sharding {

enum class BenchTest { Set, Get, Mset, Mget };
const char* to_string(BenchTest t);              // "SET", "GET", "MSET", "MGET"
std::string bench_title(BenchTest t);            // "SET", "MSET (10 keys)", ...
BenchTest parse_bench_test(std::string_view s);  // case-insensitive; throws std::invalid_argument
// A comma-separated list (-t set,get): any case, each once, in redis-benchmark's order (SET,
// GET, MSET, MGET); throws std::invalid_argument for an unknown test or an empty list.
std::vector<BenchTest> parse_bench_tests(std::string_view list);

struct BenchOptions {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string password;             // AUTH on connect (-a); never printed
  int clients = 50;                 // -c
  std::int64_t requests = 100000;   // -n
  int pipeline = 1;                 // -P
  std::int64_t keyspace = 0;        // -r; 0: the literal key "key:__rand_int__" as redis-benchmark
  int data_size = 3;                // -d
  std::string key_prefix = "key:";  // the experiment puts Perflab's prefix in front
  std::vector<BenchTest> tests{BenchTest::Set, BenchTest::Get, BenchTest::Mset, BenchTest::Mget};
  bool csv = false;        // --csv
  bool quiet = false;      // -q
  std::uint64_t seed = 0;  // random keys; 0: from the clock
  // Stop issuing new batches after this long (the result counts what completed); 0: none.
  std::chrono::milliseconds time_limit{0};
  // A connection with replies outstanding that gets none for this long fails the run (a frozen
  // server or a partition); connecting and AUTH are bounded by it too.
  std::chrono::milliseconds reply_timeout{5000};
  // Register events as redis-benchmark's ae loop does (a client leaves epoll and comes back for
  // each write/read switch: two epoll_ctl calls where one MOD would do). On a busy machine the
  // client's cost per request shows in the figures; this keeps them comparable with
  // redis-benchmark's. false: one EPOLL_CTL_MOD per switch.
  bool redis_benchmark_events = true;
  // --cluster: host:port is a node of a Redis Cluster. As redis-benchmark --cluster does: the
  // masters are read from the cluster's slot map, one thread per master drives the clients
  // given to it (client i to master i mod N), the threads draw batches from one pool of -n
  // requests, all clients connect before the clock starts, and each batch's keys carry the
  // {tag} of one slot its master owns, drawn at random per batch
  // (<key_prefix>{tag}:NNNNNNNNNNNN, the tag padded with '}' to 3 letters), so every request,
  // MSET and MGET included, goes straight to its owner and the keys spread over its slots.
  bool cluster = false;
  // --rate: open loop at this many requests/s in all (each connection rate / -c, on a schedule
  // of its own), latency from each request's intended send time; 0: closed loop, as
  // redis-benchmark (latency from the write, uncorrected for coordinated omission).
  double rate = 0;
  Arrivals arrivals = Arrivals::Uniform;  // --arrivals, per connection (open loop)
  // With a rate: false measures each request from its write instead of its intended time, the
  // schedule kept: a paced closed loop (with -P 1 each connection sends, waits, sends), whose
  // latency a stall reaches once per connection, as redis-benchmark's (coordinated omission).
  bool from_intended = true;
};

// The latency of each request, in microseconds (record(us), quantile_us, merge, count, mean_us,
// min_us, max_us): the recorder of common/latency_recorder.h.
using LatencyHistogram = LatencyRecorder;

struct BenchResult {
  BenchTest test = BenchTest::Set;
  std::int64_t requests = 0;  // completed
  std::int64_t errors = 0;    // error replies
  double seconds = 0;
  double rps = 0;
  double avg_ms = 0, min_ms = 0, p50_ms = 0, p95_ms = 0, p99_ms = 0, max_ms = 0;
  bool cancelled = false;     // stopped by the stop token
  bool time_limited = false;  // stopped by time_limit before -n
  std::string first_error;    // the first error reply, if any
  // Redirections among the error replies (a slot that moved while the test ran: --cluster).
  std::int64_t moved = 0, ask = 0;
  LatencyHistogram latency;  // of every completed request (perflab-cli bench --hdr-out)
  // Open loop: each request's latency less the generator's own lag in sending it (from when it
  // was due and its connection had room, to its write): what the generator cannot have added.
  // Its percentiles against `latency`'s bound the generator's error at each.
  LatencyHistogram latency_less_lag;
  // Open loop: the rate and its verdict, and `latency` runs from each request's intended send
  // time (corrected); target_rps 0: closed loop.
  OpenLoopResult open_loop;
};

// The key prefix of --cluster's keys in `slot`: <key_prefix>{tag}:, the tag padded with '}' to
// kClusterTagWidth letters (as redis-benchmark: "{a}}}" hashes as "a").
inline constexpr std::size_t kClusterTagWidth = 3;
std::string cluster_bench_key_prefix(const std::string& key_prefix, int slot);

// The keys the generator writes: <key_prefix><12 digits> for a keyspace (-r), or
// <key_prefix>__rand_int__ without one, as redis-benchmark.
inline constexpr std::string_view kBenchKeyPlaceholder = "__rand_int__";
std::string bench_key(const std::string& key_prefix, std::int64_t n);

// Runs one test. Throws std::runtime_error when the server cannot be reached, a connection fails
// in the middle, or replies stop coming for reply_timeout. A stop ends it within 0.1 s.
BenchResult run_bench(const BenchOptions& opts, BenchTest test, std::stop_token stop = {});

// perflab-cli bench's default key prefix: Perflab's own, so a user's keys are never touched.
inline constexpr std::string_view kBenchDefaultKeyPrefix = "perflab:key:";

// Output as redis-benchmark prints it: the -q line, the --csv header and row, or the summary.
std::string format_bench_quiet(const BenchResult& r);
std::string format_bench_csv_header();
std::string format_bench_csv_row(const BenchResult& r);
std::string format_bench_summary(const BenchOptions& o, const BenchResult& r);

}  // namespace perflab::sharding
