// perflab-cli bench as a user runs it: redis-benchmark's command line, HdrHistogram's percentile
// files, the open loop (wrk2's -R), and a password that never stays on the command line.
#include <sys/stat.h>
#include <unistd.h>

#include "cli_fixture.h"

// perflab-cli bench parses redis-benchmark's command line with CLI11: -h is the host (help is
// --help only), --opt=value works, usage errors are one line with exit code 2.
TEST_F(Cli, BenchCommandLineLikeRedisBenchmark) {
  const RedisTarget redis = test::shared_targets().redis(1);
  const std::string port = std::to_string(redis.nodes[0].port);
  const std::string prefix = test::unique_name("perflab:clibench") + ":";
  auto r = cli({"bench", "-h", "127.0.0.1", "-p", port, "-c", "3", "-n", "300", "-P", "4", "-r",
                "1000", "-d", "64", "-t", "mset,set,GET", "--seed=7", "--key-prefix=" + prefix});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto set = r.out.find("====== SET ======"), get = r.out.find("====== GET ======"),
             mset = r.out.find("====== MSET (10 keys) ======");
  ASSERT_NE(mset, std::string::npos) << r.out;
  EXPECT_LT(set, get);  // redis-benchmark's order, whatever the order given
  EXPECT_LT(get, mset);
  EXPECT_NE(r.out.find("3 parallel clients"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("64 bytes payload"), std::string::npos);
  EXPECT_NE(r.out.find("pipeline: 4"), std::string::npos);
  r = cli({"bench", "-p", port, "-n", "100", "-t", "get", "--csv", "--key-prefix", prefix});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("\"test\",\"rps\"", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\"GET\","), std::string::npos) << r.out;
  r = cli({"bench", "-p", port, "-n", "100", "-t", "set", "-q", "--key-prefix", prefix});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("SET: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("requests per second"), std::string::npos) << r.out;
  // Without --key-prefix, Perflab's own prefix.
  r = cli({"bench", "-p", port, "-n", "50", "-r", "10", "-t", "set", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RedisClient own(redis.nodes[0]);
  RedisReply written = own.command({"KEYS", "perflab:key:*"});
  EXPECT_FALSE(written.elements.empty());
  for (const auto& k : written.elements) own.command({"DEL", k.str});
  // Only keys under the prefix were written; they go again.
  RedisClient c(redis.nodes[0]);
  RedisReply keys = c.command({"KEYS", prefix + "*"});
  EXPECT_FALSE(keys.elements.empty());
  for (const auto& k : keys.elements) c.command({"DEL", k.str});

  for (const std::vector<std::string>& bad : {std::vector<std::string>{"-c"},
                                              {"-c", "0"},
                                              {"-n", "ten"},
                                              {"-t", "lpush"},
                                              {"--bogus"},
                                              {"-p", "70000"},
                                              {"-h"},
                                              {"--key-prefix", ""},
                                              {"-P=2"}}) {
    std::vector<std::string> args{"bench"};
    args.insert(args.end(), bad.begin(), bad.end());
    r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << bad.front() << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("perflab-cli bench: ", 0), 0u) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  r = cli({"bench", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("-h TEXT"), std::string::npos) << r.out;  // -h is the host
  EXPECT_NE(r.out.find("--key-prefix"), std::string::npos);
  r = cli({"bench", "--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("perflab ", 0), 0u) << r.out;
}

// --hdr-out: each test's latencies as HdrHistogram's percentile distribution, one file per test
// when there are several; its figures agree with the summary's.
TEST_F(Cli, BenchHdrOutWritesHdrHistogramsPercentileDistribution) {
  const RedisTarget redis = test::shared_targets().redis(1);
  const std::string port = std::to_string(redis.nodes[0].port);
  const std::string prefix = test::unique_name("perflab:clihdr") + ":";
  auto r = cli({"bench", "-p", port, "-c", "4", "-n", "2000", "-r", "100", "-t", "get", "--csv",
                "--key-prefix", prefix, "--hdr-out", (dir_ / "one.hdr").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = slurp(dir_ / "one.hdr");
  EXPECT_EQ(text.rfind("       Value     Percentile TotalCount 1/(1-Percentile)\n\n", 0), 0u)
      << text;
  EXPECT_NE(text.find("#[Max     = "), std::string::npos) << text;
  EXPECT_NE(text.find(", Total count    =         2000]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("#[Buckets =           26, SubBuckets     =         2048]\n"),
            std::string::npos)
      << text;
  // The row at 50% against the CSV's p50 (ms, 3 decimals both): one bucket and a rounding apart.
  std::istringstream rows(text);
  std::string line;
  double p50 = -1, value = 0, percentile = 0;
  while (std::getline(rows, line))
    if (!line.empty() && line[0] != '#' && std::istringstream(line) >> value >> percentile &&
        percentile == 0.5)
      p50 = value;
  // "GET","rps","avg","min","p50",...
  std::vector<std::string> cells;
  std::istringstream csv(r.out.substr(r.out.find("\"GET\",")));
  for (std::string cell; std::getline(csv, cell, ',');)
    cells.push_back(cell.size() >= 2 ? cell.substr(1, cell.size() - 2) : cell);
  ASSERT_GE(cells.size(), 5u) << r.out;
  EXPECT_NEAR(p50, std::stod(cells[4]), 0.002 + std::stod(cells[4]) / 1000) << text << r.out;
  // Two tests: a file each, the test's name before the extension; no file of the name itself.
  r = cli({"bench", "-p", port, "-n", "300", "-t", "set,get", "-q", "--key-prefix", prefix,
           "--hdr-out", (dir_ / "two.hdr").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "two.hdr"));
  for (const char* t : {"SET", "GET"}) {
    const std::string each = slurp(dir_ / ("two-" + std::string(t) + ".hdr"));
    EXPECT_NE(each.find(", Total count    =          300]\n"), std::string::npos) << t << each;
  }
  RedisClient c(redis.nodes[0]);
  for (const auto& k : c.command({"KEYS", prefix + "*"}).elements) c.command({"DEL", k.str});
}

// bench --rate: open loop, as wrk2 -R. The summary states the target beside the achieved rate
// and the corrected percentiles; -q and --csv say the same; --arrivals needs a rate.
TEST_F(Cli, BenchOpenLoop) {
  const RedisTarget redis = test::shared_targets().redis(1);
  const std::string port = std::to_string(redis.nodes[0].port);
  const std::string prefix = test::unique_name("perflab:cliopen") + ":";
  auto r = cli({"bench", "-p", port, "-c", "4", "-n", "400", "-t", "set,get", "--rate", "400",
                "--arrivals", "poisson", "-r", "100", "--key-prefix", prefix});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("open loop: 400 req/s in all, poisson arrivals per connection (100 req/s "
                       "each)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(target 400.00)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("p50       p90       p99     p99.9    p99.99       max"), std::string::npos);
  EXPECT_NE(r.out.find("intended send time"), std::string::npos);
  EXPECT_EQ(r.out.find("closed loop"), std::string::npos);
  // Every test ends with what it says of its rate; a generator that fell behind warns on stderr.
  for (const char* test : {"====== SET", "====== GET"}) {
    const auto at = r.out.find(test);
    ASSERT_NE(at, std::string::npos) << r.out;
    const auto held = r.out.find("rate held", at), behind = r.out.find("not valid", at),
               knee = r.out.find("rate not held", at);
    EXPECT_TRUE(held != std::string::npos || behind != std::string::npos ||
                knee != std::string::npos)
        << r.out;
  }
  EXPECT_EQ(r.out.find("not valid") == std::string::npos,
            r.err.find("the generator fell behind") == std::string::npos)
      << r.err;
  r = cli({"bench", "-p", port, "-n", "100", "-t", "get", "--rate", "500", "-q", "--key-prefix",
           prefix});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("GET: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("requests per second of 500.00 targeted, corrected p50="), std::string::npos)
      << r.out;
  r = cli({"bench", "-p", port, "-n", "100", "-t", "get", "--rate=500", "--csv", "--key-prefix",
           prefix});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("\"test\",\"target_rps\",\"rps\",", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\"GET\",\"500.00\","), std::string::npos) << r.out;
  // Closed loop says it is.
  r = cli({"bench", "-p", port, "-n", "100", "-t", "get", "--key-prefix", prefix});
  EXPECT_NE(r.out.find("closed loop (uncorrected)"), std::string::npos) << r.out;
  RedisClient c(redis.nodes[0]);
  for (const auto& k : c.command({"KEYS", prefix + "*"}).elements) c.command({"DEL", k.str});

  // Refused at once with one line naming the option: NaN and inf pass a range check; a tiny
  // rate is a schedule of years.
  const std::vector<std::pair<std::vector<std::string>, std::string>> refusals = {
      {{"--rate", "-5"}, "--rate"},
      {{"--rate", "fast"}, "--rate"},
      {{"--rate", "nan"}, "--rate"},
      {{"--rate", "inf"}, "--rate"},
      {{"--rate", "0.001", "-n", "100000"},
       "--rate 0.001 with -n 100000 is a schedule of 27778 hours"},
      {{"--rate", "100", "--arrivals", "bursty"}, "--arrivals"},
      {{"--arrivals", "poisson"}, "--arrivals"}};
  for (const auto& [bad, named] : refusals) {
    std::vector<std::string> args{"bench", "-p", port};
    args.insert(args.end(), bad.begin(), bad.end());
    r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << bad.front() << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("perflab-cli bench: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(named), std::string::npos) << r.err;
  }
}

// bench's password: -a (as redis-benchmark), --password-file or PERFLAB_REDIS_PASSWORD. Each is
// sent as AUTH; -a's value is gone from /proc/PID/cmdline by the time bench connects, with a
// warning. The server is a socket of the test's own that reads the AUTH and refuses it.
TEST_F(Cli, BenchPasswordNeverStaysOnTheCommandLine) {
  int port_number = 0;
  const int listener = test::listen_on_loopback(port_number);
  ASSERT_GE(listener, 0);
  const std::string port = std::to_string(port_number);
  std::ofstream(dir_ / "pass") << "from-a-file\n";

  // Runs bench, answers its AUTH with WRONGPASS; returns what bench sent and its cmdline then.
  auto bench = [&](std::vector<std::string> extra, std::string& sent, std::string& cmdline) {
    std::vector<std::string> args{"bench", "-p", port, "-c", "1", "-n", "10", "-t", "set"};
    args.insert(args.end(), extra.begin(), extra.end());
    const pid_t pid = spawn(args);
    pollfd pf{listener, POLLIN, 0};
    EXPECT_EQ(::poll(&pf, 1, 30000), 1) << "bench never connected";
    const int fd = ::accept(listener, nullptr, nullptr);
    sent.clear();
    char buf[256];
    for (int i = 0; i < 100 && sent.find("\r\n", sent.rfind('$')) == std::string::npos; ++i) {
      pollfd rf{fd, POLLIN, 0};
      if (::poll(&rf, 1, 300) != 1) continue;
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      sent.append(buf, static_cast<std::size_t>(n));
    }
    cmdline = slurp("/proc/" + std::to_string(pid) + "/cmdline");
    const std::string no = "-WRONGPASS invalid username-password pair\r\n";
    EXPECT_EQ(::send(fd, no.data(), no.size(), MSG_NOSIGNAL), static_cast<ssize_t>(no.size()));
    const Result r = finish(pid, std::chrono::seconds(60));
    ::close(fd);
    return r;
  };
  std::string sent, cmdline;
  Result r = bench({"-a", "on-the-line"}, sent, cmdline);
  EXPECT_NE(sent.find("AUTH\r\n$11\r\non-the-line\r\n"), std::string::npos) << sent;
  EXPECT_EQ(cmdline.find("on-the-line"), std::string::npos);
  EXPECT_NE(cmdline.find("-a"), std::string::npos);  // the option itself stays
  EXPECT_NE(r.err.find("warning: -a on the command line was visible"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("AUTH failed: -WRONGPASS"), std::string::npos) << r.err;
  EXPECT_NE(r.exit_code, 0);

  r = bench({"--password-file", (dir_ / "pass").string()}, sent, cmdline);
  EXPECT_NE(sent.find("AUTH\r\n$11\r\nfrom-a-file\r\n"), std::string::npos) << sent;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_NE(r.exit_code, 0);

  ::setenv("PERFLAB_REDIS_PASSWORD", "from-the-env", 1);
  r = bench({}, sent, cmdline);
  ::unsetenv("PERFLAB_REDIS_PASSWORD");
  EXPECT_NE(sent.find("AUTH\r\n$12\r\nfrom-the-env\r\n"), std::string::npos) << sent;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  ::close(listener);

  r = cli({"bench", "-p", port, "--password-file", (dir_ / "missing").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("cannot read"), std::string::npos) << r.err;
}
