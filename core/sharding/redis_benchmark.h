#pragma once
// redis-benchmark (Debian package redis-tools) as a peer of the load generator: run as a helper
// process Perflab owns (targets/child_process.h ChildProcess: bounded, stopped on Stop), with the
// same options, its --csv row read back into a BenchResult.
#include <optional>
#include <stop_token>
#include <string>

#include "sharding/loadgen.h"

namespace perflab::sharding {

// The tests redis-benchmark has (SET, GET, MSET; it has no MGET).
bool redis_benchmark_has(BenchTest t);

// Runs `redis-benchmark -h -p -c -n -P -d [-r] [--cluster] -t <test> --csv`. With --cluster it
// runs a thread per master, and its threads stop on its 250 ms timer tick after the last reply:
// its req/s (requests / elapsed) reads low for runs of a second or less. Its keys are
// redis-benchmark's own ("key:__rand_int__", "key:{tag}:__rand_int__" with --cluster), not
// under Perflab's prefix: only for servers Perflab manages. Refuses a password
// (std::invalid_argument): redis-benchmark takes it only on its command line, visible in ps.
// Throws std::runtime_error with its output's last line when it fails, ServerError when it is not
// installed; a stop ends it (the result is then marked cancelled).
BenchResult run_redis_benchmark(const BenchOptions& o, BenchTest test, std::stop_token stop = {});

// One CSV row of redis-benchmark 7 ("SET","12345.68","0.1",...) as a result; nullopt when the
// line is not one.
std::optional<BenchResult> parse_redis_benchmark_csv_row(const std::string& line, BenchTest test);

}  // namespace perflab::sharding
