// The load generator's histogram, test list and output formats (no server needed); its
// command line (perflab-cli bench) is tested through the binary in tests/cli.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "sharding/loadgen.h"

using namespace perflab::sharding;

TEST(LatencyHistogram, ExactBelow128AndWithinOnePercentAbove) {
  LatencyHistogram h;
  for (int i = 1; i <= 100; ++i) h.record(i);
  EXPECT_EQ(h.count(), 100u);
  EXPECT_EQ(h.min_us(), 1);
  EXPECT_EQ(h.max_us(), 100);
  EXPECT_EQ(h.quantile_us(0.5), 50);
  EXPECT_EQ(h.quantile_us(0.99), 99);
  EXPECT_EQ(h.quantile_us(1.0), 100);
  EXPECT_DOUBLE_EQ(h.mean_us(), 50.5);

  LatencyHistogram big;
  std::mt19937 rng(1);
  std::vector<std::int64_t> v;
  for (int i = 0; i < 10000; ++i) {
    std::int64_t x = 100 + static_cast<std::int64_t>(rng() % 1000000);
    v.push_back(x);
    big.record(x);
  }
  std::sort(v.begin(), v.end());
  for (double q : {0.5, 0.95, 0.99}) {
    double exact = static_cast<double>(v[static_cast<std::size_t>(q * v.size()) - 1]);
    double got = static_cast<double>(big.quantile_us(q));
    EXPECT_NEAR(got, exact, exact * 0.02) << q;
  }
  EXPECT_EQ(big.quantile_us(1.0), v.back());
}

TEST(BenchTests, ListInRedisBenchmarksOrder) {
  EXPECT_EQ(parse_bench_tests("mset,set,GET"),
            (std::vector<BenchTest>{BenchTest::Set, BenchTest::Get, BenchTest::Mset}));
  EXPECT_EQ(parse_bench_tests(" mget , mget"), (std::vector<BenchTest>{BenchTest::Mget}));
  EXPECT_THROW(parse_bench_tests("set,lpush"), std::invalid_argument);
  EXPECT_THROW(parse_bench_tests(""), std::invalid_argument);
  EXPECT_THROW(parse_bench_tests(","), std::invalid_argument);
}

// A bad option is refused before any connection, naming its flag and the value given.
TEST(BenchOptions, ABadOneIsNamed) {
  const auto refusal = [](const std::function<void(BenchOptions&)>& change) {
    BenchOptions o;
    o.port = 1;  // nothing listens: only a refusal before connecting can pass
    change(o);
    try {
      run_bench(o, BenchTest::Set);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("not refused");
  };
  EXPECT_EQ(refusal([](BenchOptions& o) {
              o.rate = std::nan("");
            }).rfind("bad benchmark option --rate nan", 0),
            0u);
  EXPECT_EQ(refusal([](BenchOptions& o) {
              o.rate = INFINITY;
            }).rfind("bad benchmark option --rate inf", 0),
            0u);
  EXPECT_EQ(refusal([](BenchOptions& o) { o.clients = 0; }),
            "bad benchmark option -c 0: at least 1 client");
  EXPECT_EQ(
      refusal([](BenchOptions& o) { o.pipeline = -2; }).rfind("bad benchmark option -P -2", 0), 0u);
}

TEST(BenchOutput, LikeRedisBenchmark) {
  BenchResult r;
  r.test = BenchTest::Mset;
  r.rps = 12285.014;
  r.requests = 10000;
  r.seconds = 0.81;
  r.avg_ms = 0.5;
  r.min_ms = 0.1;
  r.p50_ms = 0.4567;
  r.p95_ms = 0.9;
  r.p99_ms = 1.2;
  r.max_ms = 3;
  EXPECT_EQ(format_bench_quiet(r),
            "MSET (10 keys): 12285.01 requests per second, p50=0.457 msec\n");
  EXPECT_EQ(format_bench_csv_header(),
            "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\","
            "\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n");
  EXPECT_EQ(format_bench_csv_row(r),
            "\"MSET (10 keys)\",\"12285.01\",\"0.500\",\"0.100\",\"0.457\",\"0.900\",\"1.200\","
            "\"3.000\"\n");
  std::string s = format_bench_summary(BenchOptions{}, r);
  EXPECT_NE(s.find("====== MSET (10 keys) ======"), std::string::npos);
  EXPECT_NE(s.find("throughput summary: 12285.01 requests per second"), std::string::npos);
}
