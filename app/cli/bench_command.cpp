#include "bench_command.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <stop_token>
#include <thread>

#include "sharding/loadgen.h"

namespace {
// The handler only sets a flag (async-signal-safe); a watcher thread turns it into a stop.
std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) {
  g_interrupted = true;
}
}  // namespace

namespace perflab {

int run_bench_command(const std::vector<std::string>& args) {
  using namespace perflab::sharding;
  for (const auto& a : args)
    if (a == "--help") {
      std::cout << bench_usage();
      return 0;
    }
  BenchOptions opts;
  try {
    opts = parse_bench_args(args);
  } catch (const std::invalid_argument& e) {
    std::cerr << "perflab-cli bench: " << e.what() << "\n";
    return 2;
  }
  std::stop_source stop;
  g_interrupted = false;
  auto old_int = std::signal(SIGINT, on_interrupt);
  std::jthread watcher([&stop](std::stop_token st) {
    while (!st.stop_requested()) {
      if (g_interrupted.exchange(false)) stop.request_stop();  // the generator checks it
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  int rc = 0;
  try {
    if (opts.csv) std::cout << format_bench_csv_header();
    for (BenchTest t : opts.tests) {
      BenchResult r = run_bench(opts, t, stop.get_token());
      if (opts.csv)
        std::cout << format_bench_csv_row(r);
      else if (opts.quiet)
        std::cout << format_bench_quiet(r);
      else
        std::cout << format_bench_summary(opts, r);
      std::cout.flush();
      if (r.errors > 0)
        std::cerr << "perflab-cli bench: " << r.errors << " " << bench_title(t)
                  << " requests got an error reply, e.g. " << r.first_error << "\n";
      if (r.cancelled) {
        std::cerr << "perflab-cli bench: interrupted\n";
        rc = 1;
        break;
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "perflab-cli bench: " << e.what() << "\n";
    rc = 1;
  }
  watcher.request_stop();
  watcher.join();
  std::signal(SIGINT, old_int);
  return rc;
}

}  // namespace perflab
