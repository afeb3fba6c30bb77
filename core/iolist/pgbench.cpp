#include "iolist/pgbench.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "common/text.h"
#include "iolist/builders.h"
#include "runner/experiment.h"
#include "targets/child_process.h"
#include "targets/owned_folder.h"
#include "targets/pg_conninfo.h"
#include "targets/pg_text.h"

namespace perflab::iolist {

namespace fs = std::filesystem;

std::vector<std::size_t> pgbench_chunks(std::size_t n) {
  const std::size_t parts = (n + kPgbenchMaxEventsPerStatement - 1) / kPgbenchMaxEventsPerStatement;
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < parts; ++k) out.push_back(n / parts + (k < n % parts ? 1 : 0));
  return out;
}

namespace {

// 10^18: stream uuids are 10^18 + permute(first id, 10^18, 42), always 19 digits.
constexpr std::int64_t kUuidBase = 1'000'000'000'000'000'000;

std::string bytea_hex(std::string_view bytes) {
  std::string s = "\\x";
  pg_append_hex(s, bytes);
  return s;
}

// The builder's text for `n` events with $k (after the head) replaced by names[k-1].
std::string with_names(const std::string& head, std::size_t n,
                       const std::vector<std::string>& names) {
  const std::string flat = build_iolist(head, n).flatten();
  std::string out = head;
  out.reserve(flat.size() * 2);
  for (std::size_t i = head.size(); i < flat.size(); ++i) {
    if (flat[i] != '$') {
      out += flat[i];
      continue;
    }
    std::size_t j = i + 1, k = 0;
    while (j < flat.size() && flat[j] >= '0' && flat[j] <= '9') k = k * 10 + (flat[j++] - '0');
    out += ':';
    out += names.at(k - 1);
    i = j - 1;
  }
  return out;
}

}  // namespace

PgbenchScript make_pgbench_script(const std::string& schema, const std::vector<EventData>& events,
                                  const std::string& created_at) {
  if (events.empty()) throw std::invalid_argument("pgbench script: no events");
  if (schema.find(':') != std::string::npos)
    throw std::invalid_argument("pgbench would read ':' in the schema name '" + schema +
                                "' as a variable reference");
  PgbenchScript s;
  s.events = events.size();
  s.chunks = pgbench_chunks(events.size());
  const std::string head = insert_head(pg_quote_ident(schema) + ".events");

  std::ostringstream t;
  const std::string n = std::to_string(events.size());
  t << "-- Perflab: the transaction its event store (append_to_stream) sends to append " << n
    << " events to a new stream.\n"
       "-- Event ids: the k-th transaction of client c uses perflab_id_base + ((k - 1) * "
       "perflab_clients + c) * "
    << n
    << " and on: no two transactions (nor any other Perflab writer) share an id, and ids grow "
       "with time across clients as Perflab's allocator makes them.\n"
       "-- stream_uuid: a 19-digit number, a fixed-seed permutation of the first id (unique, "
       "spread over the index like Perflab's random UUIDs).\n"
       "\\set perflab_tx :perflab_tx + 1\n"
       "\\set perflab_first :perflab_id_base + ((:perflab_tx - 1) * :perflab_clients + "
       ":client_id) * "
    << n << "\n"
    << "\\set perflab_uuid " << kUuidBase << " + permute(:perflab_first, " << kUuidBase
    << ", 42)\n";
  for (std::size_t i = 1; i <= events.size(); ++i)
    t << "\\set id_" << i << " :perflab_first + " << (i - 1) << "\n";
  t << "BEGIN;\n"
    << "INSERT INTO " << pg_quote_ident(schema)
    << ".streams (stream_uuid) VALUES (:perflab_uuid) RETURNING stream_id \\gset\n";
  if (s.chunks.size() > 1)
    t << "-- pgbench binds at most " << kPgbenchMaxParams
      << " parameters per statement: the events go as " << s.chunks.size()
      << " INSERTs (each the builder's text for its size) in one pipeline.\n"
         "\\startpipeline\n";
  std::size_t first = 0;
  for (std::size_t chunk : s.chunks) {
    std::vector<std::string> names;
    names.reserve(chunk * 8);
    for (std::size_t i = first + 1; i <= first + chunk; ++i) {
      const std::string k = std::to_string(i);
      // (event_id, stream_id, stream_version, correlation_id, event_type, data, metadata,
      //  created_at)
      for (std::string name : {"id_" + k, std::string("stream_id"), "v_" + k, "c_" + k, "t_" + k,
                               "d_" + k, "m_" + k, std::string("created_at")})
        names.push_back(std::move(name));
    }
    s.inserts.push_back(with_names(head, chunk, names));
    t << s.inserts.back() << "\n";
    first += chunk;
  }
  if (s.chunks.size() > 1) t << "\\endpipeline\n";
  t << "COMMIT;\n";
  s.text = t.str();

  for (std::size_t i = 0; i < events.size(); ++i) {
    const auto& e = events[i];
    const std::string k = std::to_string(i + 1);
    s.variables.emplace_back("v_" + k, std::to_string(i + 1));
    s.variables.emplace_back("c_" + k,
                             e.correlation_id.value_or(std::string(kPgbenchNoCorrelation)));
    s.variables.emplace_back("t_" + k, e.event_type);
    s.variables.emplace_back("d_" + k, bytea_hex(e.data));
    s.variables.emplace_back("m_" + k, bytea_hex(e.metadata));
  }
  s.variables.emplace_back("created_at", created_at);
  return s;
}

namespace {

bool find_number(std::string_view out, std::string_view key, double& v) {
  const auto at = out.find(key);
  if (at == std::string_view::npos) return false;
  std::string rest(out.substr(at + key.size(), 64));
  char* end = nullptr;
  v = std::strtod(rest.c_str(), &end);
  return end != rest.c_str();
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The line of pgbench's error output that says what went wrong (its first "error:" line, else the
// last line), blanks collapsed.
std::string headline(const std::string& text) {
  std::string pick, last;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    last = line;
    if (pick.empty() && line.find("error") != std::string::npos) pick = line;
  }
  if (pick.empty()) pick = last;
  if (pick.rfind("pgbench: ", 0) == 0) pick.erase(0, 9);
  std::string out;
  for (char c : pick) {
    const bool blank = c == ' ' || c == '\t' || c == '\r';
    if (blank && (out.empty() || out.back() == ' ')) continue;
    out += blank ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out.empty() ? std::string("no error output") : out;
}

std::string tail_lines(const std::string& text, std::size_t lines) {
  std::size_t pos = text.size();
  while (pos > 0 && (text[pos - 1] == '\n')) --pos;
  std::size_t end = pos;
  for (std::size_t seen = 0; pos > 0; --pos)
    if (text[pos - 1] == '\n' && ++seen == lines) break;
  return text.substr(pos, end - pos);
}

}  // namespace

PgbenchReport parse_pgbench_output(std::string_view out) {
  PgbenchReport r;
  double processed = 0;
  if (!find_number(out, "latency average = ", r.latency_avg_ms) ||
      !find_number(out, "tps = ", r.tps) ||
      !find_number(out, "number of transactions actually processed: ", processed))
    throw std::runtime_error("pgbench's output has no latency average, tps or processed count");
  r.processed = static_cast<std::int64_t>(processed);
  const auto at = out.find("number of transactions actually processed: ");
  const auto slash = out.find('/', at);
  const auto eol = out.find('\n', at);
  if (slash != std::string_view::npos && slash < eol) {
    std::string_view rest = out.substr(slash + 1, eol - slash - 1);
    std::from_chars(rest.data(), rest.data() + rest.size(), r.expected);
  }
  double lag_avg = 0, lag_max = 0;
  if (find_number(out, "rate limit schedule lag: avg ", lag_avg)) {
    r.schedule_lag_avg_ms = lag_avg;
    const auto lag = out.find("rate limit schedule lag: avg ");
    const auto eol_lag = out.find('\n', lag);
    const auto max_at = out.find("(max ", lag);
    if (max_at != std::string_view::npos && max_at < eol_lag &&
        find_number(out.substr(max_at), "(max ", lag_max))
      r.schedule_lag_max_ms = lag_max;
  }
  return r;
}

void parse_pgbench_log(std::string_view text, PgbenchLog& log) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t eol = text.find('\n', at);
    if (eol == std::string_view::npos) eol = text.size();
    const std::string line(text.substr(at, eol - at));
    at = eol + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream in(line);
    std::string client, transaction, latency;
    in >> client >> transaction >> latency;
    if (latency == "skipped") {
      ++log.skipped;
      continue;
    }
    std::int64_t latency_us = 0, script = 0, epoch_s = 0, epoch_us = 0, lag_us = 0;
    std::istringstream lat(latency);
    if (!(lat >> latency_us) || !(in >> script >> epoch_s >> epoch_us))
      throw std::runtime_error("pgbench's log has a line it cannot read: " + line);
    log.latency.record_ns(latency_us * 1000);
    if (in >> lag_us) log.schedule_lag.record_ns(lag_us * 1000);
    const std::int64_t end_us = epoch_s * 1'000'000 + epoch_us, start_us = end_us - latency_us;
    if (log.transactions == 0) log.first_start_us = log.last_start_us = start_us;
    log.first_start_us = std::min(log.first_start_us, start_us);
    log.last_start_us = std::max(log.last_start_us, start_us);
    log.last_end_us = std::max(log.last_end_us, end_us);
    ++log.transactions;
  }
}

std::optional<PgbenchReport> run_pgbench(const PgbenchInvocation& inv, const PgbenchScript& script,
                                         std::stop_token stop) {
  if (inv.clients < 1 || inv.transactions < 1)
    throw std::invalid_argument("pgbench needs at least one client and one transaction");
  const fs::path file = inv.work_dir / "append.sql";
  {
    std::ofstream f(file, std::ios::binary | std::ios::trunc);
    f << script.text;
    if (!f.flush()) throw std::runtime_error("cannot write " + file.string());
  }
  ChildConninfo target = conninfo_for_child(inv.conninfo);
  std::vector<std::string> args = {"-n",
                                   "-M",
                                   "extended",
                                   "-f",
                                   file.string(),
                                   "-c",
                                   std::to_string(inv.clients),
                                   "-j",
                                   std::to_string(std::min(2, inv.clients)),
                                   "-t",
                                   std::to_string(inv.transactions),
                                   "-D",
                                   "perflab_tx=0",
                                   "-D",
                                   "perflab_id_base=" + std::to_string(inv.id_base),
                                   "-D",
                                   "perflab_clients=" + std::to_string(inv.clients)};
  for (const auto& [name, value] : script.variables) {
    args.push_back("-D");
    args.push_back(name + "=" + value);
  }
  if (inv.rate > 0) {
    args.push_back("-R");
    args.push_back(format_fixed(inv.rate, 3));
  }
  const std::string log_prefix = "pgbench_log";
  if (inv.log) {
    args.push_back("--log");
    args.push_back("--log-prefix=" + (inv.work_dir / log_prefix).string());
  }
  args.push_back(target.conninfo);
  // The password (if any) goes into the child's environment only.
  ChildProcessOptions opts;
  opts.args = std::move(args);
  opts.output = inv.work_dir / "stdout.txt";
  opts.errors = inv.work_dir / "stderr.txt";
  opts.environment = std::move(target.environment);
  const fs::path out = opts.output, err = opts.errors;
  // The child appends: each invocation starts from empty files.
  std::error_code ec;
  fs::remove(out, ec);
  fs::remove(err, ec);
  // The log files of an earlier invocation: pgbench_log.<pid>[.<thread>].
  const auto logs = [&] {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(inv.work_dir))
      if (e.path().filename().string().rfind(log_prefix + ".", 0) == 0) files.push_back(e.path());
    return files;
  };
  for (const auto& f : logs()) fs::remove(f, ec);
  ChildProcess pgbench(inv.exe, std::move(opts));
  const ChildProcess::Outcome how = pgbench.wait_for(inv.time_limit, stop);
  const int status = pgbench.exit_status().value_or(0);
  if (how == ChildProcess::Outcome::Stopped) return std::nullopt;
  const std::string errors = read_file(err);
  if (how == ChildProcess::Outcome::TimedOut)
    throw DetailedError("pgbench did not finish within " +
                            std::to_string(inv.time_limit.count() / 1000) +
                            " s and was stopped (timeout: is the server frozen or overloaded?)",
                        tail_lines(errors, 20));
  const std::string text = read_file(out);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw DetailedError("pgbench " + describe_exit_status(status) + ": " + headline(errors),
                        tail_lines(errors, 20));
  PgbenchReport r = parse_pgbench_output(text);
  if (r.processed != inv.transactions * inv.clients)
    throw DetailedError("pgbench processed " + std::to_string(r.processed) + " of " +
                            std::to_string(inv.transactions * inv.clients) +
                            " transactions: " + headline(errors),
                        tail_lines(errors, 20));
  if (inv.log) {
    auto log = std::make_shared<PgbenchLog>();
    for (const auto& f : logs()) parse_pgbench_log(read_file(f), *log);
    if (log->transactions + log->skipped != r.processed)
      throw std::runtime_error("pgbench's log holds " + std::to_string(log->transactions) +
                               " transactions of the " + std::to_string(r.processed) +
                               " it processed");
    r.log = std::move(log);
  }
  return r;
}

std::string pgbench_version(const fs::path& exe) {
  try {
    TempFolder dir("perflab-pgbench-version-");
    ChildProcess p(exe, {{"--version"}, dir.path() / "out", dir.path() / "err", {}});
    p.wait();
    std::string v = read_file(dir.path() / "out");
    while (!v.empty() && (v.back() == '\n' || v.back() == '\r')) v.pop_back();
    return v;
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace perflab::iolist
