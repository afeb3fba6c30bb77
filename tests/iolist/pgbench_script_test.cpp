// The pgbench peer's script generator, conninfo handling and output parser (no server).
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>

#include "iolist/builders.h"
#include "iolist/events.h"
#include "iolist/pgbench.h"
#include "targets/pg_text.h"

using namespace perflab;
using namespace perflab::iolist;

namespace {

// Every :name in a statement, in order.
std::vector<std::string> references(const std::string& sql) {
  std::vector<std::string> out;
  static const std::regex var(":([A-Za-z_][A-Za-z0-9_]*)");
  for (std::sregex_iterator it(sql.begin(), sql.end(), var), end; it != end; ++it)
    out.push_back((*it)[1].str());
  return out;
}

// The statement with its :names numbered back to $1, $2, ... in order.
std::string renumbered(const std::string& sql) {
  static const std::regex var(":[A-Za-z_][A-Za-z0-9_]*");
  std::string out;
  std::size_t k = 0, last = 0;
  for (std::sregex_iterator it(sql.begin(), sql.end(), var), end; it != end; ++it) {
    out += sql.substr(last, static_cast<std::size_t>(it->position()) - last);
    out += '$';
    out += std::to_string(++k);
    last = static_cast<std::size_t>(it->position() + it->length());
  }
  return out + sql.substr(last);
}

std::map<std::string, std::string> as_map(const PgbenchScript& s) {
  std::map<std::string, std::string> m;
  for (const auto& [k, v] : s.variables) EXPECT_TRUE(m.emplace(k, v).second) << "twice: " << k;
  return m;
}

}  // namespace

TEST(PgbenchScript, SmallBatchIsTheBuildersStatementWithNamesForPlaceholders) {
  const auto events = make_events(20, 9);
  const PgbenchScript s = make_pgbench_script("perflab", events, "2026-01-02 03:04:05.000006");
  ASSERT_EQ(s.inserts.size(), 1u);
  EXPECT_EQ(s.chunks, std::vector<std::size_t>{20});
  const std::string& sql = s.inserts[0];
  const std::string head = insert_head(pg_quote_ident("perflab") + ".events");
  EXPECT_EQ(sql.find('$'), std::string::npos) << "a placeholder was left";
  EXPECT_EQ(references(sql).size(), 8u * 20u);
  EXPECT_EQ(renumbered(sql), build_iolist(head, 20).flatten());
  EXPECT_EQ(renumbered(sql), build_interpolate(head, 20));
  // The statement is in the script, between BEGIN and COMMIT, after the streams INSERT.
  const auto begin = s.text.find("BEGIN;"), stream = s.text.find(".streams (stream_uuid)"),
             insert = s.text.find(sql), commit = s.text.find("COMMIT;");
  ASSERT_NE(insert, std::string::npos);
  EXPECT_LT(begin, stream);
  EXPECT_LT(stream, insert);
  EXPECT_LT(insert, commit);
  EXPECT_NE(s.text.find("RETURNING stream_id \\gset"), std::string::npos);
  EXPECT_EQ(s.text.find("\\startpipeline"), std::string::npos);
}

TEST(PgbenchScript, EveryReferenceIsDefinedWithTheEventsValues) {
  const auto events = make_events(20, 9);
  const PgbenchScript s = make_pgbench_script("perflab", events, "2026-01-02 03:04:05.000006");
  const auto vars = as_map(s);
  // Set in the script itself (\set, \gset) or by run_pgbench (-D per invocation).
  std::set<std::string> scripted = {"stream_id",       "perflab_first",   "perflab_tx",
                                    "perflab_id_base", "perflab_clients", "client_id",
                                    "perflab_uuid"};
  for (std::size_t i = 1; i <= 20; ++i) scripted.insert("id_" + std::to_string(i));
  for (const auto& name : references(s.text))
    EXPECT_TRUE(vars.count(name) || scripted.count(name)) << name;
  for (std::size_t i = 1; i <= 20; ++i)
    EXPECT_NE(s.text.find("\\set id_" + std::to_string(i) + " :perflab_first + " +
                          std::to_string(i - 1) + "\n"),
              std::string::npos);
  // Row i's values in column order.
  const auto refs = references(s.inserts[0]);
  for (std::size_t i = 0; i < 20; ++i) {
    const std::string k = std::to_string(i + 1);
    EXPECT_EQ(refs[i * 8 + 0], "id_" + k);
    EXPECT_EQ(refs[i * 8 + 1], "stream_id");
    EXPECT_EQ(vars.at(refs[i * 8 + 2]), k);
    EXPECT_EQ(vars.at(refs[i * 8 + 3]), events[i].correlation_id.value_or("-"));
    EXPECT_EQ(vars.at(refs[i * 8 + 4]), events[i].event_type);
    std::string hex = "\\x";
    pg_append_hex(hex, events[i].data);
    EXPECT_EQ(vars.at(refs[i * 8 + 5]), hex);
    EXPECT_EQ(pg_decode_bytea_hex(vars.at(refs[i * 8 + 6])), events[i].metadata);
    EXPECT_EQ(vars.at(refs[i * 8 + 7]), "2026-01-02 03:04:05.000006");
  }
  EXPECT_EQ(vars.size(), 5u * 20u + 1u);
}

TEST(PgbenchScript, LargeBatchIsSplitIntoPipelinedStatementsWithinPgbenchsLimit) {
  const auto events = make_events(100, 1);
  const PgbenchScript s = make_pgbench_script("my schema", events, "2026-01-02 03:04:05");
  EXPECT_EQ(s.chunks, (std::vector<std::size_t>{25, 25, 25, 25}));
  ASSERT_EQ(s.inserts.size(), 4u);
  const std::string head = insert_head(pg_quote_ident("my schema") + ".events");
  std::size_t total = 0, from = 0;
  std::set<std::string> ids;
  for (std::size_t c = 0; c < 4; ++c) {
    const auto refs = references(s.inserts[c]);
    EXPECT_LE(refs.size(), kPgbenchMaxParams);
    total += refs.size();
    EXPECT_EQ(renumbered(s.inserts[c]), build_iolist(head, 25).flatten());
    for (std::size_t r = 0; r < refs.size(); r += 8) ids.insert(refs[r]);
    // The chunks follow each other in the script, inside one pipeline.
    const auto at = s.text.find(s.inserts[c], from);
    ASSERT_NE(at, std::string::npos) << c;
    from = at;
  }
  EXPECT_EQ(total, 8u * 100u);
  EXPECT_EQ(ids.size(), 100u);  // every event its own id
  EXPECT_LT(s.text.find("\\startpipeline"), s.text.find(s.inserts[0]));
  EXPECT_GT(s.text.find("\\endpipeline"), s.text.find(s.inserts[3]));
  EXPECT_GT(s.text.find("COMMIT;"), s.text.find("\\endpipeline"));
}

TEST(PgbenchScript, ChunksAreBalancedAndWithinTheLimit) {
  for (std::size_t n : {1u, 31u, 32u, 62u, 63u, 100u, 1000u, 8191u}) {
    const auto c = pgbench_chunks(n);
    std::size_t sum = 0;
    for (auto k : c) {
      EXPECT_LE(k * 8, kPgbenchMaxParams) << n;
      EXPECT_GE(k + 1, c.front()) << n;
      sum += k;
    }
    EXPECT_EQ(sum, n);
    EXPECT_EQ(c.size(), (n + 30) / 31) << n;
  }
}

TEST(PgbenchScript, RejectsWhatPgbenchWouldMisread) {
  EXPECT_THROW(make_pgbench_script("a:b", make_events(2, 1), "x"), std::invalid_argument);
  EXPECT_THROW(make_pgbench_script("perflab", {}, "x"), std::invalid_argument);
}

TEST(PgbenchOutput, FiguresAreRead) {
  const char* out =
      "pgbench (15.20 (Debian 15.20-0+deb12u1))\n"
      "transaction type: append.sql\n"
      "scaling factor: 1\n"
      "query mode: extended\n"
      "number of clients: 3\n"
      "number of threads: 2\n"
      "maximum number of tries: 1\n"
      "number of transactions per client: 4\n"
      "number of transactions actually processed: 12/12\n"
      "number of failed transactions: 0 (0.000%)\n"
      "latency average = 1.624 ms\n"
      "initial connection time = 6.529 ms\n"
      "tps = 1847.290640 (without initial connection time)\n";
  const PgbenchReport r = parse_pgbench_output(out);
  EXPECT_DOUBLE_EQ(r.latency_avg_ms, 1.624);
  EXPECT_DOUBLE_EQ(r.tps, 1847.290640);
  EXPECT_EQ(r.processed, 12);
  EXPECT_EQ(r.expected, 12);
  EXPECT_THROW(parse_pgbench_output("pgbench: error: connection refused\n"), std::runtime_error);
}

// A real pgbench 15 run under -R 200 --log on a loaded machine (captured): the summary's schedule
// lag, and its per-transaction log lines with the schedule lag as their last field.
TEST(PgbenchOutput, TheRateLimitScheduleLagAndTheLogAreRead) {
  const char* out =
      "pgbench (15.18 (Debian 15.18-0+deb12u1))\n"
      "transaction type: s.sql\n"
      "scaling factor: 1\n"
      "query mode: simple\n"
      "number of clients: 1\n"
      "number of threads: 1\n"
      "maximum number of tries: 1\n"
      "number of transactions per client: 400\n"
      "number of transactions actually processed: 400/400\n"
      "number of failed transactions: 0 (0.000%)\n"
      "latency average = 136.302 ms\n"
      "latency stddev = 177.890 ms\n"
      "rate limit schedule lag: avg 131.825 (max 581.264) ms\n"
      "initial connection time = 51.483 ms\n"
      "tps = 160.772932 (without initial connection time)\n";
  const PgbenchReport r = parse_pgbench_output(out);
  EXPECT_DOUBLE_EQ(r.latency_avg_ms, 136.302);
  ASSERT_TRUE(r.schedule_lag_avg_ms.has_value());
  EXPECT_DOUBLE_EQ(*r.schedule_lag_avg_ms, 131.825);
  ASSERT_TRUE(r.schedule_lag_max_ms.has_value());
  EXPECT_DOUBLE_EQ(*r.schedule_lag_max_ms, 581.264);
  // Without -R there is no schedule lag.
  EXPECT_FALSE(parse_pgbench_output("number of transactions actually processed: 1/1\n"
                                    "latency average = 1 ms\ntps = 5 (without initial)\n")
                   .schedule_lag_avg_ms.has_value());

  const char* log =
      "0 1 9431 0 1796172477 981564 135\n"
      "0 2 7071 0 1796172477 981841 6824\n"
      "0 3 3334 0 1796172477 981893 3289\n"
      "0 4 4676 0 1796172477 984670 1901\n"
      "0 5 7833 0 1796172477 988517 3999\n"
      "0 6 1870 0 1796172477 988711 1693\n"
      "0 7 425 0 1796172477 992717 150\n"
      "0 8 187 0 1796172477 993547 95\n";
  PgbenchLog l;
  parse_pgbench_log(log, l);
  EXPECT_EQ(l.transactions, 8);
  EXPECT_EQ(l.latency.count(), 8u);
  EXPECT_EQ(l.latency.max_ns(), 9'431'000);
  EXPECT_EQ(l.latency.min_ns(), 187'000);
  EXPECT_EQ(l.schedule_lag.count(), 8u);
  EXPECT_EQ(l.schedule_lag.max_ns(), 6'824'000);
  // Starts: each end less its latency; the first is transaction 1 (981564 - 9431 us), the last
  // transaction 8 (993547 - 187 us).
  EXPECT_EQ(l.first_start_us, 1796172477'972133);
  EXPECT_EQ(l.last_start_us, 1796172477'993360);
  EXPECT_EQ(l.last_end_us, 1796172477'993547);
  // The median of the eight latencies (nearest rank: the 4th, 3334 us), within the recorder's
  // precision.
  EXPECT_NEAR(double(l.latency.value_at_percentile_ns(50)), 3'334'000, 3'334'000 / 1000.0);
  // Appending another file's lines adds to the same recorders; a skipped line is counted.
  parse_pgbench_log("1 1 skipped 0 1796172478 1 2\n1 2 500 0 1796172478 5 10\n", l);
  EXPECT_EQ(l.transactions, 9);
  EXPECT_EQ(l.skipped, 1);
  EXPECT_THROW(parse_pgbench_log("0 1 x 0 1 2\n", l), std::runtime_error);
  EXPECT_THROW(parse_pgbench_log("0 1 5\n", l), std::runtime_error);
}
