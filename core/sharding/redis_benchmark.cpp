#include "sharding/redis_benchmark.h"

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "common/text.h"
#include "targets/child_process.h"
#include "targets/owned_folder.h"
#include "targets/server_binary.h"

namespace perflab::sharding {

bool redis_benchmark_has(BenchTest t) {
  return t != BenchTest::Mget;
}

std::optional<BenchResult> parse_redis_benchmark_csv_row(const std::string& line, BenchTest test) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (char c : line) {
    if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      fields.push_back(std::move(field)), field.clear();
    else if (c != '\r')
      field += c;
  }
  fields.push_back(std::move(field));
  if (fields.size() < 8 || fields[0] != bench_title(test)) return std::nullopt;
  BenchResult r;
  r.test = test;
  try {
    r.rps = std::stod(fields[1]);
    r.avg_ms = std::stod(fields[2]);
    r.min_ms = std::stod(fields[3]);
    r.p50_ms = std::stod(fields[4]);
    r.p95_ms = std::stod(fields[5]);
    r.p99_ms = std::stod(fields[6]);
    r.max_ms = std::stod(fields[7]);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return r;
}

namespace {

std::string last_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line, last;
  while (std::getline(in, line)) {
    const std::string t = trim(line);
    if (!t.empty()) last = t;
  }
  return last;
}

}  // namespace

BenchResult run_redis_benchmark(const BenchOptions& o, BenchTest test, std::stop_token stop) {
  if (!redis_benchmark_has(test))
    throw std::invalid_argument("redis-benchmark has no " + bench_title(test) + " test");
  if (!o.password.empty())
    throw std::invalid_argument(
        "redis-benchmark takes a password only on its command line, where other users see it");
  const auto exe = find_server_binary("redis-benchmark");
  TempFolder dir("perflab-redis-benchmark-");
  ChildProcessOptions opts;
  opts.args = {"-h",   o.host,
               "-p",   std::to_string(o.port),
               "-c",   std::to_string(o.clients),
               "-n",   std::to_string(o.requests),
               "-P",   std::to_string(o.pipeline),
               "-d",   std::to_string(o.data_size),
               "-t",   to_lower(to_string(test)),
               "--csv"};
  if (o.keyspace > 0) opts.args.insert(opts.args.end(), {"-r", std::to_string(o.keyspace)});
  if (o.cluster) opts.args.push_back("--cluster");
  opts.output = dir.path() / "out.csv";
  opts.errors = dir.path() / "err.log";
  ChildProcess proc(exe, std::move(opts));
  // redis-benchmark has no reply timeout of its own: its whole run is bounded here, by the
  // time budget (with room for its start) or, without one, generously by the reply timeout.
  const auto limit =
      o.time_limit.count() > 0
          ? o.time_limit * 4 + std::chrono::seconds(10)
          : std::chrono::milliseconds(o.reply_timeout * 20 + std::chrono::seconds(60));
  const auto outcome =
      proc.wait_for(std::chrono::duration_cast<std::chrono::milliseconds>(limit), stop);
  if (outcome == ChildProcess::Outcome::Stopped) {
    BenchResult r;
    r.test = test;
    r.cancelled = true;
    return r;
  }
  if (outcome == ChildProcess::Outcome::TimedOut)
    throw std::runtime_error(
        "redis-benchmark did not finish within " +
        std::to_string(std::chrono::duration_cast<std::chrono::seconds>(limit).count()) + " s");
  const int status = *proc.exit_status();
  std::ifstream out(dir.path() / "out.csv");
  for (std::string line; std::getline(out, line);)
    if (auto r = parse_redis_benchmark_csv_row(line, test)) {
      r->requests = o.requests;
      r->seconds = r->rps > 0 ? static_cast<double>(o.requests) / r->rps : 0;
      return *r;
    }
  std::string why = last_line(dir.path() / "err.log");
  if (why.empty()) why = last_line(dir.path() / "out.csv");
  throw std::runtime_error("redis-benchmark " + describe_exit_status(status) +
                           (why.empty() ? std::string() : ": " + why));
}

}  // namespace perflab::sharding
