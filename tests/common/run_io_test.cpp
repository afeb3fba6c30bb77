// Run files: JSON written and read back field by field, refused in one line naming the field
// when damaged or of another shape, saved atomically, never over a special file (the CSV, the
// gbench JSON and the text report: run_report_test.cpp).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <map>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>

#include "common/figure_format.h"
#include "common/report.h"
#include "common/run_io.h"
#include "sample_run.h"

using namespace perflab;
namespace fs = std::filesystem;

namespace {
fs::path temp_dir() {
  auto d = fs::temp_directory_path() / ("perflab-runio-" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}
}  // namespace

TEST(RunJson, RoundTripKeepsEverything) {
  const perflab::Run r = sample_run();
  const perflab::Run back = run_from_json(run_to_json(r));
  EXPECT_EQ(run_to_json(back), run_to_json(r));
  ASSERT_EQ(back.series.size(), 3u);
  const Point* p = back.find_point("append", "interpolate", "single writer");
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ(p->stats.median, 110);
  EXPECT_DOUBLE_EQ(p->extra.at("cpu"), 20);
  ASSERT_TRUE(back.findings[0].claim.has_value());
  EXPECT_DOUBLE_EQ(back.findings[0].claim->figure, 0.78);
  EXPECT_FALSE(back.findings[1].claim.has_value());
  EXPECT_EQ(back.status, RunStatus::Finished);
  EXPECT_TRUE(back.group("build_allocs")->numeric_x);
  EXPECT_DOUBLE_EQ(*back.find_point("build_allocs", "interpolate", "100")->x, 100.0);
}

TEST(RunJson, IsVersioned) {
  auto j = nlohmann::json::parse(run_to_json(sample_run()));
  EXPECT_EQ(j["schema"], "perflab-run");
  EXPECT_EQ(j["schema_version"], 1);
  j["schema_version"] = 99;
  EXPECT_THROW(run_from_json(j.dump()), RunFormatError);
}

TEST(RunJson, BadInputIsAClearError) {
  EXPECT_THROW(run_from_json("not json"), RunFormatError);
  EXPECT_THROW(run_from_json("{\"a\":1}"), RunFormatError);
  auto j = nlohmann::json::parse(run_to_json(sample_run()));
  j["series"][0]["group"] = "nowhere";
  try {
    run_from_json(j.dump());
    FAIL();
  } catch (const RunFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown group 'nowhere'"), std::string::npos);
  }
  j = nlohmann::json::parse(run_to_json(sample_run()));
  j["status"] = "exploded";
  EXPECT_THROW(run_from_json(j.dump()), RunFormatError);
  j = nlohmann::json::parse(run_to_json(sample_run()));
  j["series"][0]["points"][0]["samples"] = "many";
  EXPECT_THROW(run_from_json(j.dump()), RunFormatError);
}

TEST(RunFile, SaveIsAtomicAndLoadNamesThePath) {
  const auto dir = temp_dir();
  const auto path = dir / "run.json";
  save_run(sample_run(), path);
  EXPECT_EQ(load_run(path).experiment, "iolist");
  // Only the file itself: no temporary left behind.
  int files = 0;
  for (auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
  try {
    load_run(dir / "missing.json");
    FAIL();
  } catch (const RunFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.json"), std::string::npos);
  }
  std::ofstream(dir / "garbage.json") << "{ broken";
  EXPECT_THROW(load_run(dir / "garbage.json"), RunFormatError);
  EXPECT_THROW(save_run(sample_run(), dir / "no-such-dir" / "run.json"), std::runtime_error);
  fs::remove_all(dir);
}

TEST(RunFile, EverySizeOfFileReadsTheSameRun) {
  // A file is read in place or into a buffer by where its end falls in its last page: the same
  // run either way, to the last point's last field; a text cut short is refused either way.
  const auto dir = temp_dir();
  const std::string text = run_to_json(sample_run());
  const std::string expected = run_to_json(run_from_json(text));
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t pages = text.size() / page + 2;  // each size below is longer than text
  for (const std::size_t size : {pages * page, pages * page - 1, pages * page - 63,
                                 pages * page - 64, pages * page - 65, pages * page + 1}) {
    const auto path = dir / ("run-" + std::to_string(size) + ".json");
    std::ofstream(path, std::ios::binary) << text << std::string(size - text.size(), ' ');
    ASSERT_EQ(fs::file_size(path), size);
    EXPECT_EQ(run_to_json(load_run(path)), expected) << size;
    fs::resize_file(path, text.size() / 2);
    EXPECT_THROW(load_run(path), RunFormatError) << size;
  }
  fs::remove_all(dir);
}

TEST(RunJson, EveryFieldIsCheckedAndNamed) {
  const auto refusal = refusal_of_changed;
  EXPECT_EQ(refusal([](auto& j) { j["schema_version"] = 4294967297ULL; }),
            "field \"schema_version\": 4294967297 is not a version this Perflab reads (1..1)");
  EXPECT_EQ(refusal([](auto& j) { j["schema_version"] = 1e300; }),
            "field \"schema_version\": 1e+300 is not a version this Perflab reads (1..1)");
  EXPECT_EQ(refusal([](auto& j) { j["schema_version"] = "1"; }),
            "field \"schema_version\": expected a whole number, got string \"1\"");
  EXPECT_EQ(refusal([](auto& j) { j["schema_version"] = 1.5; }),
            "field \"schema_version\": 1.5 is not a version this Perflab reads (1..1)");
  EXPECT_EQ(refusal([](auto& j) { j["started_unix_ms"] = 1e300; }),
            "field \"started_unix_ms\": 1e+300 is out of range 0..9223372036854775807");
  EXPECT_EQ(refusal([](auto& j) { j["host"]["cores"] = "two"; }),
            "field \"host.cores\": expected a whole number, got string \"two\"");
  EXPECT_EQ(refusal([](auto& j) { j["params"]["events"] = 100; }),
            "field \"params.events\": expected a string, got number 100");
  EXPECT_EQ(refusal([](auto& j) { j["series"][1]["points"][0]["extra"]["cpu"] = true; }),
            "field \"series[1].points[0].extra.cpu\": expected a number, got boolean true");
  EXPECT_EQ(refusal([](auto& j) { j["findings"][0]["value"] = nullptr; }),
            "field \"findings[0].value\": missing");
  EXPECT_EQ(refusal([](auto& j) { j["groups"] = "none"; }),
            "field \"groups\": expected an array, got string \"none\"");
  EXPECT_EQ(refusal([](auto& j) { j["targets"] = {5}; }),
            "field \"targets[0]\": expected an object, got number 5");
}

namespace {
std::string run_refusal(const std::string& text) {
  try {
    run_from_json(text);
  } catch (const RunFormatError& e) {
    return e.what();
  }
  return "accepted";
}
}  // namespace

// Run files are read as nlohmann::json, which writes them, reads them back.
TEST(RunJson, ReadsWhatItsWriterReads) {
  const std::string text = run_to_json(sample_run(), -1);
  EXPECT_EQ(run_from_json("\xEF\xBB\xBF" + text).experiment, "iolist");  // a byte-order mark
  std::string twice = text;  // of duplicate keys, the last
  twice.insert(1, R"("experiment": "first",)");
  EXPECT_EQ(run_from_json(twice).experiment, "iolist");
  std::string escaped = text;  // \u escapes, a surrogate pair too
  const std::string params = "\"params\":{";
  escaped.insert(escaped.find(params) + params.size(), R"("caf\u00e9":"\ud83d\ude00 \"q\"",)");
  EXPECT_EQ(run_from_json(escaped).params.at("caf\u00e9"), "\U0001F600 \"q\"");
  auto j = nlohmann::json::parse(text);
  const std::string long_name(70'000, 'k');  // member names longer than 64 KiB
  j["params"][long_name] = "v";
  EXPECT_EQ(run_from_json(j.dump()).params.at(long_name), "v");
}

TEST(RunJson, NotJsonIsRefusedSayingWhere) {
  const std::string colon = run_refusal("{\n  \"a\": 1,\n  \"b\" 2\n}");
  EXPECT_EQ(colon.rfind("not JSON: ", 0), 0u) << colon;
  EXPECT_NE(colon.find(" at line 3, column "), std::string::npos) << colon;
  EXPECT_NE(colon.find("expected ':'"), std::string::npos) << colon;
  const std::string deep(1'000'000, '[');  // refused in one line, not a crash
  EXPECT_EQ(run_refusal("{\"params\": " + deep).rfind("not JSON: ", 0), 0u);
  const std::string text = run_to_json(sample_run(), -1);
  ASSERT_EQ(run_from_json(text).experiment, "iolist");
  for (std::size_t n = 0; n < text.size(); ++n) {
    const std::string message = run_refusal(text.substr(0, n));
    ASSERT_EQ(message.rfind("not JSON: ", 0), 0u) << n << ": " << message;
  }
  // Numbers beyond a double are refused; so is a whole number beyond 64 bits (nlohmann would
  // read it as a double; run files never hold one: nlohmann writes a double with '.' or 'e').
  for (const char* number : {"1e400", "100000000000000000000"}) {
    std::string t = text;
    const std::string samples = "\"samples\":[";
    t.insert(t.find(samples) + samples.size(), std::string(number) + ",");
    EXPECT_EQ(run_refusal(t).rfind("not JSON: ", 0), 0u) << run_refusal(t);
  }
}

TEST(RunJson, ValidJsonOfAnotherShapeIsNotARun) {
  EXPECT_EQ(run_refusal("[1, 2]"), "not a Perflab run file (no \"schema\": \"perflab-run\")");
  EXPECT_EQ(run_refusal(R"({"schema": ["perflab-run"]})"),
            "not a Perflab run file (no \"schema\": \"perflab-run\")");
  EXPECT_EQ(run_refusal(R"({"schema": "perflab-run", "schema_version": 1, "experiment": 5})"),
            "field \"experiment\": expected a string, got number 5");
  EXPECT_EQ(run_refusal(R"({"schema": "perflab-run", "schema_version": 1, "experiment": "x",
                            "status": "finished", "series": {"a": 1}})"),
            "field \"series\": expected an array, got object {\"a\":1}");
  auto j = nlohmann::json::parse(run_to_json(sample_run()));
  j["params"]["caf\u00e9"] = 1;
  EXPECT_EQ(run_refusal(j.dump()), "field \"params.caf\u00e9\": expected a string, got number 1");
}

// Random damage to a run file: it is read, or refused in one line (never what nlohmann refuses).
TEST(RunJson, DamagedFilesAreReadOrRefused) {
  const std::string text = run_to_json(sample_run(), -1);
  std::mt19937 rng(13);
  const std::string alphabet = "{}[],:\"\\ 0123456789.eE+-truefalsnl\xC3\xA9\xFFu";
  int refused = 0;
  for (int i = 0; i < 1000; ++i) {
    std::string t = text;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % t.size();
      switch (rng() % 3) {
        case 0:
          t[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          t.erase(at, 1 + rng() % 4);
          break;
        default:
          t.insert(at, 1, alphabet[rng() % alphabet.size()]);
      }
    }
    SCOPED_TRACE(i);
    const std::string message = run_refusal(t);
    if (message == "accepted")
      EXPECT_TRUE(nlohmann::json::accept(t)) << "accepted what nlohmann refuses: " << t;
    else
      ++refused;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_GT(refused, 500);
}

TEST(RunJson, DetailRoundTrips) {
  perflab::Run r = sample_run();
  r.status = RunStatus::Failed;
  r.message = "pgbench exited with status 2: client 0 aborted";
  r.detail = "pgbench: error: client 0 aborted\npgbench: fatal: Run was aborted";
  EXPECT_EQ(run_from_json(run_to_json(r)).detail, r.detail);
  EXPECT_EQ(nlohmann::json::parse(run_to_json(sample_run())).count("detail"), 0u);
}

TEST(RunJson, NoteRoundTrips) {
  perflab::Run r = sample_run();
  r.note = "lecture 3 \u2014 laptop on battery";
  EXPECT_EQ(run_from_json(run_to_json(r)).note, r.note);
  EXPECT_EQ(nlohmann::json::parse(run_to_json(sample_run())).count("note"), 0u);
}

TEST(RunFile, OversizeAndNonRegularFilesAreRefusedUnread) {
  const auto dir = temp_dir();
  const auto huge = dir / "huge.json";
  { std::ofstream(huge) << "{"; }
  fs::resize_file(huge, kMaxRunFileBytes + 1);  // sparse: nothing is written
  try {
    load_run(huge);
    FAIL();
  } catch (const RunFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("is larger than a run file may be (256 MiB)"),
              std::string::npos)
        << e.what();
  }
  try {
    load_run(dir);
    FAIL();
  } catch (const RunFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

TEST(RunFile, SeveralFilesAreWrittenAllOrNone) {
  const auto dir = temp_dir();
  std::ofstream(dir / "b.txt") << "old b";
  // The third cannot be written: neither the first (new) nor the second (replacing) is.
  EXPECT_THROW(
      write_files_atomically(
          {{dir / "a.txt", "new a"}, {dir / "b.txt", "new b"}, {dir / "missing" / "c.txt", "c"}}),
      std::runtime_error);
  EXPECT_FALSE(fs::exists(dir / "a.txt"));
  EXPECT_EQ(
      std::string(std::istreambuf_iterator<char>(*std::make_unique<std::ifstream>(dir / "b.txt")),
                  {}),
      "old b");
  // A folder in the way: refused before anything is written, what was there stays.
  fs::create_directory(dir / "d.txt");
  EXPECT_THROW(write_files_atomically({{dir / "b.txt", "new b"}, {dir / "d.txt", "d"}}),
               std::runtime_error);
  std::ifstream b(dir / "b.txt");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(b), {}), "old b");
  write_files_atomically({{dir / "a.txt", "new a"}, {dir / "b.txt", "new b"}});
  std::ifstream b2(dir / "b.txt");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(b2), {}), "new b");
  int files = 0;
  for (auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 2);  // no temporaries or kept copies left
  EXPECT_THROW(write_files_atomically({{dir / "a.txt", "1"}, {dir / "." / "a.txt", "2"}}),
               std::runtime_error);  // the same file twice
  fs::remove_all(dir);
}

// A FIFO (and, as root, a device node of the test's own) is never replaced by a regular file:
// refused naming it, with nothing written beside it.
TEST(RunFile, SpecialFilesAreNeverReplaced) {
  const auto dir = temp_dir();
  std::vector<fs::path> nodes{dir / "fifo"};
  ASSERT_EQ(::mkfifo(nodes[0].c_str(), 0600), 0);
  if (::geteuid() == 0) {
    nodes.push_back(dir / "null");
    ASSERT_EQ(::mknod(nodes[1].c_str(), S_IFCHR | 0600, makedev(1, 3)), 0);
  }
  for (const auto& node : nodes) {
    SCOPED_TRACE(node.string());
    try {
      write_file_atomically(node, "text");
      FAIL() << "written";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()),
                node.string() + ": is not a regular file; name a file to write");
    }
    // With another file beside it: neither is written.
    EXPECT_THROW(write_files_atomically({{dir / "a.txt", "a"}, {node, "b"}}), std::runtime_error);
    EXPECT_FALSE(fs::exists(dir / "a.txt"));
    EXPECT_THROW(check_output_path(node), std::runtime_error);
  }
  EXPECT_TRUE(fs::is_fifo(nodes[0]));
  if (nodes.size() > 1) {
    EXPECT_TRUE(fs::is_character_file(nodes[1]));
  }
  int files = 0;
  for (auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 0);
  fs::remove_all(dir);
}

TEST(RunFile, OutputPathIsCheckedBeforeAnythingIsWritten) {
  const auto dir = temp_dir();
  EXPECT_NO_THROW(check_output_path(dir / "run.json"));
  EXPECT_FALSE(fs::exists(dir / "run.json"));
  try {
    check_output_path(dir);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is a folder"), std::string::npos) << e.what();
  }
  EXPECT_THROW(check_output_path(dir / "missing" / "run.json"), std::runtime_error);
  EXPECT_THROW(check_output_path("/dev/null"), std::runtime_error);
  int files = 0;
  for (auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 0);
  fs::remove_all(dir);
}

TEST(RunJson, IntervalsVerdictsAndNoiseRoundTrip) {
  perflab::Run r = judged_run();
  r.threshold = 0.03;
  MachineNoise m;
  m.load_per_core_before = 0.9;
  m.load_per_core_after = 1.4;
  m.steal_share = 0.001;
  m.loaded = true;
  r.machine = m;
  r.series[0].points[0].precision = PointPrecision{17, true, 0.018};
  const std::string text = run_to_json(r);
  const perflab::Run back = run_from_json(text);
  EXPECT_EQ(run_to_json(back), text);
  const Point* p = back.find_point("append", "iolist", "12 rounds");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->median_ci.method, CiMethod::OrderStatistic);
  EXPECT_TRUE(p->median_ci.lo < p->stats.median && p->stats.median < p->median_ci.hi);
  EXPECT_GT(p->cv, 0);
  ASSERT_TRUE(back.series[0].points[0].precision.has_value());
  EXPECT_EQ(back.series[0].points[0].precision->rounds, 17);
  const Finding& f = back.findings.back();
  ASSERT_TRUE(f.ci && f.verdict());
  EXPECT_EQ(*f.verdict(), Verdict::Faster);
  EXPECT_EQ(f.comparison.better, Better::Lower);
  EXPECT_EQ(f.comparison.subject, "iolist");
  EXPECT_EQ(f.ci->n, 12u);
  EXPECT_DOUBLE_EQ(f.ci->lo, r.findings.back().ci->lo);
  EXPECT_DOUBLE_EQ(back.threshold, 0.03);
  ASSERT_TRUE(back.machine.has_value());
  EXPECT_TRUE(back.machine->busy());
  EXPECT_DOUBLE_EQ(*back.machine->load_per_core_after, 1.4);
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["findings"].back()["verdict"], "faster");
  EXPECT_EQ(j["findings"].back()["reproduction"], "not reproduced");
  EXPECT_EQ(j["series"][0]["points"][0]["ci"]["method"], "order-statistic");
}

TEST(RunJson, AToolsErrorRoundTrips) {
  perflab::Run r = sample_run();
  const std::vector<double> open{187.8, 190.1, 185.2, 188.4}, less{184.9, 187.0, 182.3, 185.6};
  const std::vector<double> closed{4.26, 4.31, 4.18, 4.40};
  auto f = bounded_comparison_finding(
      {"omission.p99_open_vs_closed", "",
       ComparedPair{"open loop", "closed loop", "p99 latency", Quantity::Time, Better::Lower},
       true},
      0.02, "the generator's own lag", {open, less, closed, closed});
  ASSERT_TRUE(f && f->tool_error);
  r.findings.push_back(*f);
  const std::string text = run_to_json(r);
  const perflab::Run back = run_from_json(text);
  EXPECT_EQ(run_to_json(back), text);
  const Finding& b = back.findings.back();
  ASSERT_TRUE(b.tool_error);
  EXPECT_EQ(b.tool_error->what, "the generator's own lag");
  EXPECT_DOUBLE_EQ(b.tool_error->low.value, f->tool_error->low.value);
  EXPECT_DOUBLE_EQ(b.tool_error->low.lo, f->tool_error->low.lo);
  EXPECT_EQ(finding_sentence(b), finding_sentence(*f));
  // A damaged end is refused by name.
  auto j = nlohmann::json::parse(text);
  j["findings"].back()["tool_error"]["low"]["ci"].erase("lo");
  try {
    (void)run_from_json(j.dump());
    ADD_FAILURE() << "a tool error without its interval was read";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("tool_error.low.ci"), std::string::npos) << e.what();
  }
}

TEST(RunJson, OldFilesWithoutIntervalsStillOpen) {
  auto j = nlohmann::json::parse(run_to_json(judged_run()));
  j.erase("threshold");
  j.erase("machine_noise");
  for (auto& s : j["series"])
    for (auto& p : s["points"]) {
      p.erase("ci");
      p.erase("cv");
      p.erase("outliers");
    }
  for (auto& f : j["findings"]) {
    for (const char* k : {"ci", "verdict", "threshold", "reproduction", "kind", "comparison",
                          "context", "claim", "what", "unit"})
      f.erase(k);
    f["article"] = 0.78;
  }
  const perflab::Run back = run_from_json(j.dump());
  // The points' intervals come back from their samples; findings have none to show.
  const Point* p = back.find_point("append", "iolist", "12 rounds");
  EXPECT_TRUE(p->median_ci.has_interval());
  EXPECT_FALSE(back.findings.back().ci.has_value());
  // A finding of an old file keeps its text; its article's figure becomes a claim of that value.
  EXPECT_EQ(back.findings.back().kind, FindingKind::Figure);
  ASSERT_TRUE(back.findings.back().claim.has_value());
  EXPECT_DOUBLE_EQ(back.findings.back().claim->figure, 0.78);
  EXPECT_FALSE(back.machine.has_value());
  EXPECT_DOUBLE_EQ(back.threshold, 0.02);
}

TEST(RunJson, NewFieldsAreCheckedAndNamed) {
  const auto base = nlohmann::json::parse(run_to_json(judged_run()));
  const std::size_t last = base["findings"].size() - 1;
  auto refused = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& field) {
    auto j = base;
    edit(j);
    try {
      run_from_json(j.dump());
      ADD_FAILURE() << "accepted a bad " << field;
    } catch (const RunFormatError& e) {
      EXPECT_NE(std::string(e.what()).find("\"" + field + "\""), std::string::npos) << e.what();
    }
  };
  refused([&](auto& j) { j["findings"][last]["kind"] = "opinion"; },
          "findings[" + std::to_string(last) + "].kind");
  refused([&](auto& j) { j["findings"][last]["comparison"]["better"] = "sideways"; },
          "findings[" + std::to_string(last) + "].comparison.better");
  refused([&](auto& j) { j["findings"][last]["value"] = 5; },
          "findings[" + std::to_string(last) + "].value");
  refused([&](auto& j) { j["findings"][last]["ci"]["lo"] = "x"; },
          "findings[" + std::to_string(last) + "].ci.lo");
  refused([&](auto& j) { j["findings"][last]["ci"]["method"] = "guess"; },
          "findings[" + std::to_string(last) + "].ci.method");
  refused([&](auto& j) { j["series"][0]["points"][0]["cv"] = -1; }, "series[0].points[0].cv");
  // A point's samples and interval, each looked up once, are refused by name as before.
  refused([&](auto& j) { j["series"][0]["points"][0]["samples"] = "5"; },
          "series[0].points[0].samples");
  refused([&](auto& j) { j["series"][0]["points"][0]["samples"][1] = -2; },
          "series[0].points[0].samples[1]");
  refused([&](auto& j) { j["series"][0]["points"][0]["ci"] = 3; }, "series[0].points[0].ci");
  refused([&](auto& j) { j["series"][0]["points"][0]["ci"].erase("hi"); },
          "series[0].points[0].ci.hi");
  refused([&](auto& j) { j["findings"][last]["ci"] = "narrow"; },
          "findings[" + std::to_string(last) + "].ci");
  refused([&](auto& j) { j["machine_noise"] = 3; }, "machine_noise");
  refused([&](auto& j) { j["threshold"] = "2%"; }, "threshold");
}

TEST(RunJson, AStackedGroupStaysStacked) {
  perflab::Run r = sample_run();
  Group g{"append_breakdown", "Where an append's time goes", "% of an append", "", false, true, ""};
  g.stacked = true;
  r.groups.push_back(g);
  const perflab::Run back = run_from_json(run_to_json(r));
  ASSERT_NE(back.group("append_breakdown"), nullptr);
  EXPECT_TRUE(back.group("append_breakdown")->stacked);
  EXPECT_FALSE(back.group("append")->stacked);
}

TEST(RunJson, AGroupKeepsItsBaselineAndFirstSeries) {
  perflab::Run r = sample_run();
  Group& g = r.groups.front();
  g.baseline_series = "interpolate";
  g.first_series = {"interpolate", "iolist"};
  g.interleaved = true;
  const std::string text = run_to_json(r);
  const perflab::Run back = run_from_json(text);
  const Group& b = back.groups.front();
  EXPECT_EQ(b.baseline_series, "interpolate");
  EXPECT_EQ(b.first_series, (std::vector<std::string>{"interpolate", "iolist"}));
  EXPECT_TRUE(b.interleaved);
  // Unset, they are not written at all: a file reads as it did before they existed.
  const std::string plain = run_to_json(sample_run());
  EXPECT_EQ(plain.find("baseline_series"), std::string::npos);
  EXPECT_EQ(plain.find("first_series"), std::string::npos);
  EXPECT_EQ(plain.find("interleaved"), std::string::npos);
  EXPECT_TRUE(run_from_json(plain).groups.front().first_series.empty());
}
