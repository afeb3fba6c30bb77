#pragma once
// The server's own limit for the append transaction (docs/iolist.md, "The pgbench peer"):
// PostgreSQL's load tool, pgbench, runs the transaction EventStore::append_to_stream sends for
// a new stream, with the same statement text as the interpolate/iolist builders and the same
// events, so Perflab's harness can be compared with it in one run.
//
// pgbench limits one SQL command to 255 bind parameters (MAX_ARGS 256 in pgbench.c, argv[0] being
// the SQL). Up to 31 events (248 parameters) the script sends exactly Perflab's statement; above
// that, the events are split into balanced chunks of at most 31 events, each chunk's INSERT being
// the very text Perflab's builder makes for that many events, sent in one pipeline
// (\startpipeline ... \endpipeline) so the chunks cost about one round trip, like one statement.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/latency_recorder.h"
#include "iolist/events.h"

namespace perflab::iolist {

inline constexpr std::size_t kPgbenchMaxParams = 255;
inline constexpr std::size_t kPgbenchMaxEventsPerStatement = kPgbenchMaxParams / 8;  // 31
inline constexpr std::string_view kPgbenchNoCorrelation = "-";

// A pgbench custom script for one append of `events` to a new stream, plus the -D variables it
// needs (the events' values). Per-invocation variables (id base, transactions per client) are
// added by run_pgbench.
struct PgbenchScript {
  std::string text;                                            // the -f file
  std::vector<std::pair<std::string, std::string>> variables;  // -D NAME=VALUE, in order
  std::vector<std::size_t> chunks;   // events per INSERT statement (one entry up to 31 events)
  std::vector<std::string> inserts;  // the events INSERT statements as written in the script
  std::size_t events = 0;
};

// The script for `events` appended to a new stream in `schema`; created_at is the timestamp text
// every row gets (Perflab sends one per batch). Text values are passed as pgbench variables;
// bytea as \x hex text. pgbench can bind neither NULL nor '' (an empty -D value is refused), so
// a missing correlation id is sent as kPgbenchNoCorrelation.
// Throws std::invalid_argument for no events or a schema name pgbench would misread (':').
PgbenchScript make_pgbench_script(const std::string& schema, const std::vector<EventData>& events,
                                  const std::string& created_at);

// The balanced chunk sizes for n events (each at most kPgbenchMaxEventsPerStatement).
std::vector<std::size_t> pgbench_chunks(std::size_t n);

// pgbench's per-transaction log (--log), one line per transaction: "client transaction
// latency_us script epoch_s epoch_us [schedule_lag_us]", the lag only under -R. Under -R a
// transaction's latency runs from its scheduled start (pgbench's own coordinated-omission
// correction) and its schedule lag from the scheduled to the actual start.
struct PgbenchLog {
  LatencyRecorder latency, schedule_lag;
  std::int64_t transactions = 0, skipped = 0;  // skipped: "skipped" lines (--latency-limit)
  // Unix µs: the first and the last transaction's start (under -R its scheduled start: its end
  // less its latency) and the last one's end.
  std::int64_t first_start_us = 0, last_start_us = 0, last_end_us = 0;
};
// Adds the lines of `text` to `log`; throws std::runtime_error on a line it cannot read.
void parse_pgbench_log(std::string_view text, PgbenchLog& log);

// What pgbench reported.
struct PgbenchReport {
  double latency_avg_ms = 0;   // "latency average = X ms": the per-transaction time
  double tps = 0;              // "tps = X (without initial connection time)"
  std::int64_t processed = 0;  // "number of transactions actually processed: X/Y"
  std::int64_t expected = 0;   // ... Y
  // Under -R: "rate limit schedule lag: avg X (max Y) ms".
  std::optional<double> schedule_lag_avg_ms = std::nullopt, schedule_lag_max_ms = std::nullopt;
  // With PgbenchInvocation::log: every transaction of the invocation.
  std::shared_ptr<const PgbenchLog> log = nullptr;
};
// Parses pgbench's standard output; throws std::runtime_error when a figure is missing.
PgbenchReport parse_pgbench_output(std::string_view out);

struct PgbenchInvocation {
  std::filesystem::path exe;                    // find_server_binary("pgbench")
  std::chrono::milliseconds time_limit{60000};  // pgbench is killed after this (a frozen server)
  std::string conninfo;                         // may hold a password: passed via PGPASSWORD only
  int clients = 1;                              // -c; -j is min(2, clients)
  std::int64_t transactions = 1;                // -t, per client
  std::int64_t id_base = 1;        // first event id; N*t*events consecutive ids are used
  std::filesystem::path work_dir;  // a folder the caller owns: script and output go there
  // -R: transactions per second of all the clients together, scheduled as a Poisson process
  // (0: as fast as they can).
  double rate = 0;
  bool log = false;  // --log into work_dir, read into PgbenchReport::log
};

// Runs pgbench once (-n -M extended -f script -c N -j min(2,N) -t T [-R rate] [--log]) and
// waits for it. Client
// c's transaction k (1-based) uses event ids id_base + ((k-1)*N + c)*events ... + events-1, so ids
// never collide and, like Perflab's allocator, grow with time across clients. Returns nullopt
// when `stop` was requested (pgbench is killed within about 0.3 s). Throws DetailedError when
// pgbench fails or outlives inv.time_limit: one line (pgbench's first error), and the tail of its
// error output as the detail (it never holds the password).
std::optional<PgbenchReport> run_pgbench(const PgbenchInvocation& inv, const PgbenchScript& script,
                                         std::stop_token stop);

// "pgbench (PostgreSQL) 15.x"; empty if it cannot be run.
std::string pgbench_version(const std::filesystem::path& exe);

}  // namespace perflab::iolist
