// The load generator's words: the tests' names as redis-benchmark writes them, parsing -t, and
// a result printed as redis-benchmark does (quiet line, CSV, summary).
#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "common/text.h"
#include "sharding/loadgen.h"

namespace perflab::sharding {

const char* to_string(BenchTest t) {
  switch (t) {
    case BenchTest::Set:
      return "SET";
    case BenchTest::Get:
      return "GET";
    case BenchTest::Mset:
      return "MSET";
    case BenchTest::Mget:
      return "MGET";
  }
  return "?";
}

std::string bench_title(BenchTest t) {
  switch (t) {
    case BenchTest::Mset:
      return "MSET (10 keys)";
    case BenchTest::Mget:
      return "MGET (10 keys)";
    default:
      return to_string(t);
  }
}

BenchTest parse_bench_test(std::string_view s) {
  const std::string l = to_lower(s);
  if (l == "set") return BenchTest::Set;
  if (l == "get") return BenchTest::Get;
  if (l == "mset") return BenchTest::Mset;
  if (l == "mget") return BenchTest::Mget;
  throw std::invalid_argument("unsupported test '" + std::string(s) +
                              "' (supported: set, get, mset, mget)");
}

std::vector<BenchTest> parse_bench_tests(std::string_view list) {
  std::vector<BenchTest> tests;
  for (const auto& item : split_commas(list)) {
    if (item.empty()) continue;
    const BenchTest t = parse_bench_test(item);
    if (std::find(tests.begin(), tests.end(), t) == tests.end()) tests.push_back(t);
  }
  if (tests.empty()) throw std::invalid_argument("no test given (set, get, mset, mget)");
  std::sort(tests.begin(), tests.end());  // redis-benchmark runs its tests in a fixed order
  return tests;
}

namespace {
std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
}  // namespace

std::string format_bench_quiet(const BenchResult& r) {
  return bench_title(r.test) + ": " + fmt("%.2f", r.rps) +
         " requests per second, p50=" + fmt("%.3f", r.p50_ms) + " msec\n";
}

std::string format_bench_csv_header() {
  return "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\","
         "\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n";
}

std::string format_bench_csv_row(const BenchResult& r) {
  auto q = [](const std::string& s) { return "\"" + s + "\""; };
  return q(bench_title(r.test)) + "," + q(fmt("%.2f", r.rps)) + "," + q(fmt("%.3f", r.avg_ms)) +
         "," + q(fmt("%.3f", r.min_ms)) + "," + q(fmt("%.3f", r.p50_ms)) + "," +
         q(fmt("%.3f", r.p95_ms)) + "," + q(fmt("%.3f", r.p99_ms)) + "," +
         q(fmt("%.3f", r.max_ms)) + "\n";
}

std::string format_bench_summary(const BenchOptions& o, const BenchResult& r) {
  std::string s = "====== " + bench_title(r.test) + " ======\n";
  s += "  " + std::to_string(r.requests) + " requests completed in " + fmt("%.2f", r.seconds) +
       " seconds\n";
  s += "  " + std::to_string(o.clients) + " parallel clients\n";
  s += "  " + std::to_string(o.data_size) + " bytes payload\n";
  s += "  keep alive: 1\n";
  s += "  pipeline: " + std::to_string(o.pipeline) + "\n";
  if (r.errors > 0)
    s += "  errors: " + std::to_string(r.errors) + " (first: " + r.first_error + ")\n";
  s += "\nSummary:\n";
  s += "  throughput summary: " + fmt("%.2f", r.rps) + " requests per second\n";
  s += "  latency summary (msec), closed loop (uncorrected):\n";
  s += "          avg       min       p50       p95       p99       max\n";
  s += "    " + fmt("%9.3f", r.avg_ms) + " " + fmt("%9.3f", r.min_ms) + " " +
       fmt("%9.3f", r.p50_ms) + " " + fmt("%9.3f", r.p95_ms) + " " + fmt("%9.3f", r.p99_ms) + " " +
       fmt("%9.3f", r.max_ms) + "\n\n";
  return s;
}

}  // namespace perflab::sharding
