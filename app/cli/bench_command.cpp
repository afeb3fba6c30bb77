#include "bench_command.h"

#include <csignal>
#include <iostream>
#include <stop_token>

#include "sharding/loadgen.h"

namespace {
std::stop_source* g_stop = nullptr;
extern "C" void on_interrupt(int) {
  if (g_stop) g_stop->request_stop();  // checked by the generator every 100 ms
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
  g_stop = &stop;
  auto old_int = std::signal(SIGINT, on_interrupt);
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
  std::signal(SIGINT, old_int);
  g_stop = nullptr;
  return rc;
}

}  // namespace perflab
