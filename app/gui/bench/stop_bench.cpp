// perflab-stop-bench: how fast a run stops and the window quits, measured against the target
// (within a second), try by try (a benchmark, not a test: it prints figures and asserts nothing).
//   perflab-stop-bench [--tries N] [--cli PATH] [CASE...]
// CASEs (all by default):
//   cli-postgres   `perflab-cli run iolist` on a PostgreSQL of the bench's own; the server is
//                  frozen (SIGSTOP) mid-run, Ctrl-C (SIGINT) 500 ms later: time to exit, and
//                  whether the run file was kept, cancelled, with its points
//   cli-redis      the same with `perflab-cli run caching` on a Redis of the bench's own, frozen
//                  once the document gets were measured
//   window-stop    the window's Stop during an IO-list, a caching and a sharding run (managed
//                  servers), 300 ms after the first point: time from the click to idle
//   window-frozen  the window's Stop 500 ms after its managed PostgreSQL froze mid-run
//   window-quit    closing the window with managed PostgreSQL and Redis running: time until
//                  the window is gone, and until its servers are stopped (the program may exit)
//   window-quit-starting  closing the window 300 ms after a chosen plan began starting its
//                  managed PostgreSQL (initdb and the start take seconds): time until it is gone
// Each case ends with one row of the table: median and min-max of the tries beside the target.
// scripts/bench_stop.sh builds what it needs and runs it on the release build.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTimer>

#include "background_stop.h"
#include "common/machine_noise.h"
#include "common/run_io.h"
#include "common/stats.h"
#include "main_window.h"
#include "param_form.h"
#include "targets/child_process.h"
#include "targets/freeze.h"
#include "targets/managed_postgres.h"
#include "targets/managed_redis.h"
#include "targets/pg_conninfo.h"
#include "targets_page.h"

using namespace perflab;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr double kTargetMs = 1000;  // Stop and Ctrl-C end a run within a second (docs/cli.md)

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// One row of the table: the tries' times and how many of them kept what a user expects.
struct Row {
  std::string what;
  std::vector<double> ms;
  int kept = 0;            // tries whose outcome was right (run kept and cancelled, ...)
  std::string kept_means;  // what "kept" checked
};

std::vector<Row> table;

void print_try(const std::string& what, int i, double ms, bool ok, const std::string& note) {
  std::printf("%s, try %d: %.0f ms%s%s\n", what.c_str(), i, ms, ok ? "" : " — NOT kept",
              note.empty() ? "" : ("; " + note).c_str());
  std::fflush(stdout);
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Polls `done` (every 5 ms) until it holds or `limit` passes; false on the limit.
bool wait_until(const std::function<bool()>& done, std::chrono::seconds limit) {
  const auto deadline = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// perflab-cli on a server of the bench's own that freezes once stderr shows `freeze_at`, then
// Ctrl-C 500 ms later: time to exit; kept when it exited 130 with the run file cancelled and
// holding the points `measured` names (group, series, label).
struct CliCase {
  std::string what;
  std::vector<std::string> args;  // after `run`, without --out
  std::string freeze_at;
  pid_t server;
  std::function<bool(const Run&)> measured;
  std::vector<std::string> environment = {};  // e.g. PGPASSWORD: never on the command line
};

void cli_case(const fs::path& cli, const CliCase& c, int tries, const fs::path& dir) {
  Row row{c.what, {}, 0, "exit 130, run file kept: cancelled, with its points"};
  for (int i = 1; i <= tries; ++i) {
    const fs::path out = dir / ("cli-" + std::to_string(getpid()) + "-" + std::to_string(i)),
                   err = dir / "stderr";
    std::vector<std::string> args = c.args;
    args.insert(args.begin(), "run");
    args.push_back("--out");
    args.push_back(out.string() + ".json");
    fs::remove(err);
    ChildProcess p(
        cli, {.args = args, .output = dir / "stdout", .errors = err, .environment = c.environment});
    if (!wait_until([&] { return slurp(err).find(c.freeze_at) != std::string::npos; },
                    std::chrono::seconds(120))) {
      std::printf("%s, try %d: stderr never showed \"%s\": %s\n", c.what.c_str(), i,
                  c.freeze_at.c_str(), slurp(err).c_str());
      continue;
    }
    Freeze freeze(c.server);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const auto t0 = Clock::now();
    ::kill(p.pid(), SIGINT);
    const bool exited = wait_until([&] { return !p.running(); }, std::chrono::seconds(60));
    const double took = ms_since(t0);
    freeze.thaw();
    bool ok = false;
    std::string note;
    if (!exited) {
      note = "still running after 60 s";
    } else {
      const int status = p.exit_status().value_or(-1);
      note = describe_exit_status(status);
      try {
        const Run run = load_run(out.string() + ".json");
        ok = WIFEXITED(status) && WEXITSTATUS(status) == 130 &&
             run.status == RunStatus::Cancelled && c.measured(run);
      } catch (const std::exception& e) {
        note += std::string(", no run file: ") + e.what();
      }
    }
    row.ms.push_back(took);
    row.kept += ok;
    print_try(c.what, i, took, ok, note);
  }
  table.push_back(std::move(row));
}

void cli_postgres(const fs::path& cli, int tries, const fs::path& dir) {
  ManagedPostgres pg;
  const ChildConninfo target = conninfo_for_child(pg.conninfo());
  cli_case(cli,
           {"Ctrl-C, perflab-cli run iolist, PostgreSQL frozen",
            {"iolist", "--pg", target.conninfo, "--schema", "perflab_stop_bench", "--param",
             "benchmarks=append", "--param", "writers=1", "--param", "repetitions=1000", "--param",
             "warmup=0", "--param", "events=10", "--param", "network_rtt_ms=0"},
            "repetition 3/",
            pg.pid(),
            [](const Run& r) { return r.find_point("append", "iolist", "single writer"); },
            target.environment},
           tries, dir);
}

void cli_redis(const fs::path& cli, int tries, const fs::path& dir) {
  ManagedRedis redis;
  cli_case(cli,
           {"Ctrl-C, perflab-cli run caching, Redis frozen",
            {"caching",
             "--redis",
             redis.endpoint().address(),
             "--prefix",
             "perflab_stop_bench:",
             "--param",
             "tiers=redis",
             "--param",
             "encodings=native",
             "--param",
             "repetitions=1000",
             "--param",
             "warmup=1",
             "--param",
             "server_cpu_window_ms=0",
             "--param",
             "list_size=50",
             "--param",
             "document_kb=4",
             "--param",
             "aside_reads=0"},
            "measuring list",
            redis.pid(),
            [](const Run& r) { return r.find_point("document_wall", "native", "redis"); }},
           tries, dir);
}

// Runs the event loop until `done` holds (checked every 5 ms) or `limit` passes.
bool spin_until(const std::function<bool()>& done, int limit_ms) {
  QElapsedTimer t;
  t.start();
  while (!done()) {
    if (t.elapsed() > limit_ms) return false;
    QApplication::processEvents(QEventLoop::AllEvents, 5);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

bool has_points(const Run& r) {
  for (const auto& s : r.series)
    if (!s.points.empty()) return true;
  return false;
}

// The window's Stop: a run of `experiment` with `params` changed; `freeze` (when set) is called
// at the first point and its guard held while Stop is pressed `delay` later. Time from the
// click to runFinished; kept when the run ended cancelled, its points in its history file.
void window_stop(gui::MainWindow& w, const std::string& what, const QString& experiment,
                 const std::map<std::string, std::string>& params, int tries,
                 std::chrono::milliseconds delay,
                 const std::function<std::unique_ptr<Freeze>()>& freeze = {}) {
  Row row{what, {}, 0, "run cancelled, its points in its history file"};
  w.selectExperiment(experiment);
  auto values = w.paramForm()->values();
  for (const auto& [k, v] : params) values[k] = v;
  if (const auto refused = w.paramForm()->setValues(values); !refused.empty()) {
    std::printf("%s: parameters refused: %s\n", what.c_str(), refused.front().c_str());
    return;
  }
  auto* stop = w.findChild<QPushButton*>("stopButton");
  for (int i = 1; i <= tries; ++i) {
    std::optional<Run> finished;
    QMetaObject::Connection c =
        QObject::connect(&w, &gui::MainWindow::runFinished, [&](const Run& r) { finished = r; });
    QString error;
    const auto started = Clock::now();
    if (!w.startRun(&error)) {
      std::printf("%s, try %d: the run did not start: %s\n", what.c_str(), i, qPrintable(error));
      QObject::disconnect(c);
      continue;
    }
    if (!spin_until([&] { return finished || has_points(w.currentRun()); }, 600000) || finished) {
      std::printf("%s, try %d: the run ended before its first point was stopped\n", what.c_str(),
                  i);
      spin_until([&] { return bool(finished); }, 600000);
      QObject::disconnect(c);
      continue;
    }
    const double first_point = ms_since(started);
    std::unique_ptr<Freeze> frozen = freeze ? freeze() : nullptr;
    spin_until([] { return false; }, int(delay.count()));
    const std::string step = w.statusText().section('\n', 0, 0).toStdString();
    const auto t0 = Clock::now();
    stop->click();
    const bool ended = spin_until([&] { return bool(finished); }, 60000);
    const double took = ms_since(t0);
    frozen.reset();
    QObject::disconnect(c);
    bool ok = false;
    std::string note;
    if (!ended) {
      note = "still running 60 s after Stop";
      spin_until([&] { return bool(finished); }, 600000);
    } else {
      ok = finished->status == RunStatus::Cancelled && has_points(*finished) &&
           load_run(w.currentRunPath().toStdString()).status == RunStatus::Cancelled;
      note = std::string(to_string(finished->status)) + ", its first point came " +
             std::to_string(int(first_point / 1000 + 0.5)) + " s after Run; stopped in \"" + step +
             "\"";
    }
    row.ms.push_back(took);
    row.kept += ok;
    print_try(what, i, took, ok, note);
  }
  table.push_back(std::move(row));
}

void window_stops(int tries, const QTemporaryDir& tmp) {
  gui::MainWindow w({tmp.filePath("history"), tmp.filePath("s.ini")});
  w.resize(1280, 800);
  w.show();
  const std::chrono::milliseconds delay(300);
  window_stop(
      w, "window Stop, IO-list run", "iolist",
      {{"benchmarks", "append"}, {"repetitions", "100"}, {"warmup", "0"}, {"writers", "1,100"}},
      tries, delay);
  window_stop(w, "window Stop, caching run", "caching", {{"repetitions", "1000"}}, tries, delay);
  window_stop(w, "window Stop, sharding run", "sharding", {{"repetitions", "100"}}, tries, delay);
}

void window_frozen(int tries, const QTemporaryDir& tmp) {
  gui::MainWindow w({tmp.filePath("history-frozen"), tmp.filePath("s-frozen.ini")});
  w.resize(1280, 800);
  w.show();
  window_stop(
      w, "window Stop, IO-list run, PostgreSQL frozen", "iolist",
      {{"benchmarks", "append"}, {"repetitions", "1000"}, {"writers", "1"}, {"warmup", "0"}}, tries,
      std::chrono::milliseconds(500),
      [&w] { return std::make_unique<Freeze>(w.targets()->managed_postgres()->pid()); });
}

// Closing the window with managed servers running: the window is gone at once (its servers
// stop in the background), the program may exit once they are stopped.
void window_quit(int tries, const QTemporaryDir& tmp) {
  Row gone{"window quit, PostgreSQL + Redis running: window gone",
           {},
           0,
           "returned while its servers were still up"};
  Row stopped{"  ... and its servers stopped (the program may exit)", {}, 0, "folders removed"};
  for (int i = 1; i <= tries; ++i) {
    auto* w = new gui::MainWindow({tmp.filePath("history-quit"), tmp.filePath("s-quit.ini")});
    w->resize(1280, 800);
    w->show();
    fs::path pg_dir, redis_dir;
    {
      std::shared_ptr<Targets> targets = w->targets();
      targets->postgres();
      targets->redis(1);
      pg_dir = targets->managed_postgres()->data_dir();
      redis_dir = targets->managed_redis().front()->dir();
    }
    spin_until([] { return false; }, 200);
    const auto t0 = Clock::now();
    w->close();
    delete w;
    const double closed = ms_since(t0);
    const bool up = fs::exists(pg_dir) || fs::exists(redis_dir);
    gui::wait_for_background_stops();
    const double down = ms_since(t0);
    const bool removed = !fs::exists(pg_dir) && !fs::exists(redis_dir);
    gone.ms.push_back(closed);
    gone.kept += up;
    stopped.ms.push_back(down);
    stopped.kept += removed;
    print_try(gone.what, i, closed, true, "");
    print_try("window quit: servers stopped", i, down, removed, "");
  }
  table.push_back(std::move(gone));
  table.push_back(std::move(stopped));
}

// Closing the window while the servers a chosen plan needs are starting: the start is
// stopped where it is, not waited for (nor the server it would have started then stopped).
void window_quit_starting(int tries, const QTemporaryDir& tmp) {
  Row gone{"window quit while a plan's PostgreSQL starts: window gone", {}, 0, "no server started"};
  for (int i = 1; i <= tries; ++i) {
    auto* w = new gui::MainWindow({tmp.filePath("history-quit"), tmp.filePath("s-quit.ini")});
    w->resize(1280, 800);
    w->show();
    const std::shared_ptr<Targets> targets = w->targets();
    w->targetsPage()->startManaged({.postgres = true});
    spin_until([] { return false; }, 300);
    const auto t0 = Clock::now();
    w->close();
    delete w;
    const double closed = ms_since(t0);
    const bool none = targets->managed_postgres() == nullptr;
    gone.ms.push_back(closed);
    gone.kept += none;
    print_try(gone.what, i, closed, none, "");
  }
  table.push_back(std::move(gone));
}

double load_now() {
  const MachineSnapshot m = read_machine_snapshot();
  return m.load ? m.load->one : -1;
}

void print_table(double load_before) {
  std::printf("\nStop targets (load average %.2f before, %.2f after, %d cores)\n", load_before,
              load_now(), read_machine_snapshot().cores);
  std::printf("%-58s %5s %9s %19s %8s  %s\n", "case", "tries", "median", "min-max", "target",
              "outcome");
  for (const Row& r : table) {
    if (r.ms.empty()) {
      std::printf("%-58s %5d %9s %19s %8s  no try completed\n", r.what.c_str(), 0, "-", "-", "-");
      continue;
    }
    const Stats s = summarize(r.ms);
    const std::string range =
        std::to_string(int(s.min + 0.5)) + "-" + std::to_string(int(s.max + 0.5)) + " ms";
    const bool met = s.max <= kTargetMs;
    std::printf(
        "%-58s %5zu %6.0f ms %19s %8s  %d/%zu: %s%s\n", r.what.c_str(), s.n, s.median,
        range.c_str(), "<= 1 s", r.kept, s.n, r.kept_means.c_str(),
        met ? "" : (s.median <= kTargetMs ? "; target missed by some tries" : "; target missed"));
  }
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName("Perflab");
  QApplication::setApplicationName("perflab-stop-bench");
  QStringList a = QApplication::arguments();
  a.removeFirst();
  int tries = 5;
  fs::path cli =
      QDir(QApplication::applicationDirPath()).filePath("../cli/perflab-cli").toStdString();
  std::vector<QString> cases;
  for (int i = 0; i < a.size(); ++i) {
    if (a[i] == "--tries" && i + 1 < a.size()) {
      tries = a[++i].toInt();
    } else if (a[i] == "--cli" && i + 1 < a.size()) {
      cli = a[++i].toStdString();
    } else if (a[i].startsWith("-") || tries < 1) {
      std::cerr << "usage: perflab-stop-bench [--tries N] [--cli PATH] [cli-postgres] "
                   "[cli-redis] [window-stop] [window-frozen] [window-quit] "
                   "[window-quit-starting]\n";
      return 2;
    } else {
      cases.push_back(a[i]);
    }
  }
  if (cases.empty())
    cases = {"cli-postgres",  "cli-redis",   "window-stop",
             "window-frozen", "window-quit", "window-quit-starting"};
  const double load_before = load_now();
  QTemporaryDir tmp;
  const fs::path dir = tmp.path().toStdString();
  for (const QString& c : cases) {
    try {
      if (c == "cli-postgres")
        cli_postgres(cli, tries, dir);
      else if (c == "cli-redis")
        cli_redis(cli, tries, dir);
      else if (c == "window-stop")
        window_stops(tries, tmp);
      else if (c == "window-frozen")
        window_frozen(tries, tmp);
      else if (c == "window-quit")
        window_quit(tries, tmp);
      else if (c == "window-quit-starting")
        window_quit_starting(tries, tmp);
      else {
        std::cerr << "perflab-stop-bench: unknown case " << c.toStdString() << "\n";
        return 2;
      }
    } catch (const std::exception& e) {
      std::cerr << "perflab-stop-bench: " << c.toStdString() << ": " << e.what() << "\n";
    }
  }
  print_table(load_before);
  gui::wait_for_background_stops();
  return 0;
}
