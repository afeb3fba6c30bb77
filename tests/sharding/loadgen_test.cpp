// The load generator's histogram, command line and output formats (no server needed).
#include <gtest/gtest.h>

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

TEST(BenchArgs, RedisBenchmarkOptions) {
  BenchOptions o =
      parse_bench_args({"-h", "10.0.0.1", "-p", "8090", "-c", "10", "-n", "10000", "-P", "16", "-r",
                        "100000", "-d", "64", "-t", "mset,set,GET", "--csv", "-q"});
  EXPECT_EQ(o.host, "10.0.0.1");
  EXPECT_EQ(o.port, 8090);
  EXPECT_EQ(o.clients, 10);
  EXPECT_EQ(o.requests, 10000);
  EXPECT_EQ(o.pipeline, 16);
  EXPECT_EQ(o.keyspace, 100000);
  EXPECT_EQ(o.data_size, 64);
  EXPECT_TRUE(o.csv);
  EXPECT_TRUE(o.quiet);
  // redis-benchmark's order, whatever the order given.
  EXPECT_EQ(o.tests, (std::vector<BenchTest>{BenchTest::Set, BenchTest::Get, BenchTest::Mset}));
  BenchOptions d = parse_bench_args({});
  EXPECT_EQ(d.clients, 50);
  EXPECT_EQ(d.requests, 100000);
  EXPECT_EQ(d.pipeline, 1);
  EXPECT_EQ(d.tests.size(), 4u);
  // Only Perflab's own keys unless told otherwise.
  EXPECT_EQ(d.key_prefix, "perflab:key:");
  EXPECT_EQ(parse_bench_args({"--key-prefix", "key:"}).key_prefix, "key:");
  EXPECT_THROW(parse_bench_args({"--key-prefix", ""}), std::invalid_argument);  // bare numbers
}

TEST(BenchArgs, BadInputIsRejected) {
  EXPECT_THROW(parse_bench_args({"-c"}), std::invalid_argument);
  EXPECT_THROW(parse_bench_args({"-c", "0"}), std::invalid_argument);
  EXPECT_THROW(parse_bench_args({"-n", "ten"}), std::invalid_argument);
  EXPECT_THROW(parse_bench_args({"-t", "lpush"}), std::invalid_argument);
  EXPECT_THROW(parse_bench_args({"--bogus"}), std::invalid_argument);
  EXPECT_THROW(parse_bench_args({"-p", "70000"}), std::invalid_argument);
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
