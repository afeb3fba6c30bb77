// perflab-cli as a user runs it, part one: usage, refusals, runs against real servers, Ctrl-C,
// the run file and its fallback name, compare, export and chart.
#include "cli_fixture.h"

TEST_F(Cli, UsageAndUnknownThingsExitNonZeroWithOneLine) {
  EXPECT_EQ(cli({}).exit_code, 2);
  auto r = cli({"run", "nosuch"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown experiment 'nosuch'"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(cli({"frobnicate"}).exit_code, 2);
  r = cli({"list"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("iolist"), std::string::npos);
  EXPECT_NE(r.out.find("--param writers=1,10,100"), std::string::npos);
}

TEST_F(Cli, BadParametersWriteNothing) {
  const auto out = dir_ / "bad.json";
  auto r = cli({"run", "iolist", "--param", "bogus=1", "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown parameter 'bogus'"), std::string::npos) << r.err;
  r = cli({"run", "iolist", "--param", "repetitions=0", "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'repetitions'"), std::string::npos) << r.err;
  r = cli({"run", "iolist", "--param", "nonsense", "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(Cli, UnreachableServerNamesItAndWritesNothing) {
  const auto out = dir_ / "dead.json";
  auto r = cli({"run", "iolist", "--pg", "host=127.0.0.1 port=1 user=x password=hunter2", "--param",
                "benchmarks=append", "--out", out.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("127.0.0.1"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("hunter2"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(Cli, UnreadableRunFilesAreClearErrors) {
  std::ofstream(dir_ / "junk.json") << "{ not json";
  auto r = cli({"compare", (dir_ / "junk.json").string(), (dir_ / "missing.json").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("junk.json"), std::string::npos) << r.err;
  r = cli({"export", (dir_ / "missing.json").string(), "--csv", (dir_ / "x.csv").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(fs::exists(dir_ / "x.csv"));
}

TEST_F(Cli, RunCompareExportChart) {
  const auto a = dir_ / "a.json", b = dir_ / "b.json";
  auto r = cli(small_run(a.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Append 10 events (us/op"), std::string::npos) << r.out;
  // Medians with their intervals, ratios with interval and verdict, the article judged.
  EXPECT_NE(r.out.find("median [CI] (level)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verdict at ±2%"), std::string::npos) << r.out;
  const perflab::Run first = load_run(a);
  for (const auto& f : first.findings)
    if (f.id == "append_1.iolist_vs_interpolate") {
      ASSERT_TRUE(f.judgement().has_value());
      EXPECT_NE(r.out.find(finding_sentence(f)), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("article 0.78"), std::string::npos) << r.out;
    }
  EXPECT_NE(r.err.find("run written to"), std::string::npos);
  const perflab::Run run = load_run(a);
  EXPECT_EQ(run.status, RunStatus::Finished);
  ASSERT_EQ(cli(small_run(b.string())).exit_code, 0);

  r = cli({"compare", a.string(), b.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("append/iolist/single writer"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("new/old"), std::string::npos);
  // Each row: new/old with its interval, the U test's p-value (unreliable: 2 repetitions a
  // side) and the verdict.
  EXPECT_NE(r.out.find("p-value"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("p = "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unreliable"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verdict (new vs old)"), std::string::npos) << r.out;
  r = cli({"compare", a.string(), b.string(), "-d", "percent"});
  EXPECT_NE(r.out.find("%"), std::string::npos);

  r = cli({"export", a.string(), "--csv", (dir_ / "a.csv").string(), "--gbench",
           (dir_ / "a.gbench.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(dir_ / "a.csv").rfind("group,series,label", 0), 0u);
  EXPECT_NE(slurp(dir_ / "a.csv").find(",ci_lo,ci_hi,ci_level,cv"), std::string::npos);
  EXPECT_NE(slurp(dir_ / "a.gbench.json").find("\"benchmarks\""), std::string::npos);

  r = cli({"chart", a.string(), "--log", "--png", (dir_ / "a.png").string(), "--svg",
           (dir_ / "a.svg").string(), "--pdf", (dir_ / "a.pdf").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(dir_ / "a.png").substr(1, 3), "PNG");
  EXPECT_NE(slurp(dir_ / "a.svg").find("<svg"), std::string::npos);
  EXPECT_EQ(slurp(dir_ / "a.pdf").substr(0, 4), "%PDF");
}

TEST_F(Cli, InterruptKeepsWhatWasMeasured) {
  const auto out = dir_ / "int.json";
  auto args = small_run(out.string());
  args.push_back("--param");
  args.push_back("repetitions=1000");
  args.push_back("--param");
  args.push_back("benchmarks=build,append");
  args.push_back("--param");
  args.push_back("build_sizes=1");
  auto r = cli(args, "repetition 2/");
  EXPECT_EQ(r.exit_code, 130) << r.err;
  ASSERT_TRUE(fs::exists(out)) << r.err;
  const perflab::Run run = load_run(out);
  EXPECT_EQ(run.status, RunStatus::Cancelled);
  EXPECT_NE(run.find_point("build_time", "iolist", "1"), nullptr);
}

// ---- targets checked before the run: a wrong one costs a line, never a run file ----

TEST_F(Cli, UnreachableTargetFailsFastWithOneLineAndNoFile) {
  const auto out = dir_ / "dead.json";
  const int port = free_loopback_port();
  const auto t0 = Clock::now();
  // The default plan: the build micro-benchmark would come first; the target is checked before.
  auto r = cli({"run", "iolist", "--pg", "host=127.0.0.1 port=" + std::to_string(port) + " user=x",
                "--out", out.string()});
  const double took = seconds_since(t0);
  std::printf("run iolist --pg <closed port> exited after %.2f s\n", took);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_LT(took, 30.0);  // returns (a refused connection: at once; the figure is printed)
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("port=" + std::to_string(port)), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;  // nothing measured, no report
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(Cli, SchemaPerflabDidNotCreateIsRefusedAndTheUsersTablesSurvive) {
  const std::string pg = test::shared_targets().postgres().conninfo;
  PgConnection c(pg);
  const std::string table = test::unique_name("users_table");
  c.exec("CREATE TABLE public." + table + " (id int); INSERT INTO public." + table +
         " VALUES (1), (2), (3)");
  const std::string users = test::unique_name("users_schema");
  c.exec("CREATE SCHEMA " + users + "; CREATE TABLE " + users + ".events (id int)");
  for (const std::string& schema : {std::string("public"), users}) {
    SCOPED_TRACE(schema);
    const auto out = dir_ / (schema + ".json");
    auto r = cli({"run", "iolist", "--pg", pg_conninfo(), "--schema", schema, "--param",
                  "benchmarks=build,append", "--out", out.string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("schema \"" + schema + "\" exists and was not created by Perflab"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("--schema"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(fs::exists(out));
  }
  EXPECT_EQ(c.exec("SELECT count(*) FROM public." + table).value(0, 0), "3");
  EXPECT_EQ(c.exec("SELECT count(*) FROM " + users + ".events").value(0, 0), "0");
  c.exec("DROP TABLE public." + table + "; DROP SCHEMA " + users + " CASCADE");
}

// An external Redis Cluster from the command line: the cluster line is measured on it,
// redis-benchmark --cluster is left out (its keys are not under Perflab's prefix), and the run
// file names the cluster's masters.
TEST_F(Cli, RunsTheClusterLineOnAnExternalCluster) {
  ManagedRedisCluster cluster;
  const auto out = dir_ / "cluster.json";
  const auto r = cli({"run",
                      "sharding",
                      "--redis-cluster",
                      cluster.seeds()[0].address(),
                      "--param",
                      "variants=cluster,redis-benchmark-cluster",
                      "--param",
                      "depths=1",
                      "--param",
                      "repetitions=1",
                      "--param",
                      "clients=2",
                      "--param",
                      "requests=200",
                      "--param",
                      "tests=set",
                      "--param",
                      "point_budget_s=0.3",
                      "--param",
                      "distribution_keys=100",
                      "--param",
                      "nodes=1",
                      "--out",
                      out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("redis-benchmark --cluster left out"), std::string::npos) << r.out;
  const perflab::Run run = load_run(out);
  ASSERT_NE(run.find_series("sweep_set", "Redis Cluster (cluster client)"), nullptr);
  int masters = 0;
  for (const auto& t : run.targets) masters += t.kind == "redis-cluster" && !t.managed;
  EXPECT_EQ(masters, 3);
}

TEST_F(Cli, EmptyKeyPrefixIsRefusedAndNothingIsWritten) {
  const RedisTarget shared = test::shared_targets().redis(1);
  RedisClient r = shared.connect(0);
  const std::int64_t keys = r.command({"DBSIZE"}).integer;
  const std::string node = shared.nodes[0].address();
  auto out =
      cli({"run", "caching", "--redis", node, "--prefix", "", "--out", (dir_ / "c.json").string()});
  EXPECT_NE(out.exit_code, 0);
  EXPECT_EQ(lines(out.err), 1u) << out.err;
  EXPECT_NE(out.err.find("prefix"), std::string::npos) << out.err;
  out = cli({"bench", "-p", std::to_string(shared.nodes[0].port), "-n", "100", "-t", "set",
             "--key-prefix", ""});
  EXPECT_NE(out.exit_code, 0);
  EXPECT_NE(out.err.find("--key-prefix"), std::string::npos) << out.err;
  EXPECT_EQ(r.command({"DBSIZE"}).integer, keys);
  EXPECT_FALSE(fs::exists(dir_ / "c.json"));
}

TEST_F(Cli, OutNamingAFolderFailsBeforeMeasuring) {
  auto r = cli(build_run(dir_.string()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("is a folder"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << "measured before refusing: " << r.out;
  r = cli(build_run((dir_ / "no-such-folder" / "run.json").string()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST_F(Cli, RunIsSavedUnderAFallbackNameWhenTheOutputFailsAtTheEnd) {
  const auto out = dir_ / "run.json";
  auto args = build_run(out.string(), "300");
  args.pop_back();  // progress on stderr, to know when measuring has begun
  const pid_t pid = spawn(args);
  ASSERT_TRUE(wait_for_stderr("built 1-event statements"));
  fs::create_directory(out);  // now the run cannot be renamed into place
  auto r = finish(pid);
  EXPECT_EQ(r.exit_code, 1);
  const auto at = r.err.find("the run was saved to ");
  ASSERT_NE(at, std::string::npos) << r.err;
  std::string fallback = r.err.substr(at + 21);
  fallback = fallback.substr(0, fallback.find(" instead"));
  EXPECT_EQ(fs::path(fallback).parent_path(), dir_) << fallback;  // next to the requested one
  const perflab::Run run = load_run(fallback);
  EXPECT_EQ(run.status, RunStatus::Finished);
  EXPECT_NE(run.find_point("build_time", "iolist", "10"), nullptr);
}

TEST_F(Cli, ProgressSaysHowLongTheRunHasLeft) {
  // About 5 s of build samples: past the estimator's first seconds, the progress lines say the
  // time left. How close the estimate comes is measured on real runs (docs/lecture.md), not
  // here: on a loaded machine a stall can make it exceed the whole run for a moment.
  auto args = build_run((dir_ / "left.json").string(), "30");
  args.pop_back();  // progress on stderr
  args.insert(args.end() - 2, {"--param", "build_sample_ms=40"});
  const auto r = cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::size_t shown = 0;
  std::istringstream err(r.err);
  for (std::string line; std::getline(err, line);) {
    const auto at = line.find(", ~");
    if (at == std::string::npos || line.find(" s left] ") == std::string::npos) continue;
    ++shown;
    const double left = std::stod(line.substr(at + 3));
    EXPECT_GE(left, 0) << line;
  }
  EXPECT_GT(shown, 0u) << r.err;
}

TEST_F(Cli, ExportWritesEveryOutputOrNone) {
  const auto good = dir_ / "good.json";
  ASSERT_EQ(cli(build_run(good.string())).exit_code, 0);
  const auto csv = dir_ / "ok.csv", kept = dir_ / "kept.csv";
  std::ofstream(kept) << "the user's file\n";
  auto r = cli({"export", good.string(), "--csv", csv.string(), "--json", kept.string(), "--gbench",
                "/nonexistent/x.json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/x.json"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(csv));
  EXPECT_EQ(slurp(kept), "the user's file\n");
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir_))
    files += e.path().filename().string()[0] == '.';
  EXPECT_EQ(files, 0u) << "temporaries left behind";
  r = cli({"export", good.string(), "--csv", csv.string(), "--json", kept.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(csv).rfind("group,series,label", 0), 0u);
  EXPECT_EQ(load_run(kept).experiment, "iolist");
}
