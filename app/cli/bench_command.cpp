#include "cli/bench_command.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/interrupt.h"
#include "cli11/command_line.h"
#include "common/latency_hdr_text.h"
#include "common/params.h"
#include "common/run_io.h"

namespace perflab {

using namespace perflab::sharding;

namespace {

// The longest open-loop schedule bench accepts (-n / --rate): a day.
constexpr double kLongestSchedule_s = 24 * 3600;

// --hdr-out's file for a test: FILE itself for one test, else the test's name before FILE's
// extension.
std::filesystem::path bench_hdr_path(const std::filesystem::path& file, BenchTest t, bool several) {
  if (!several) return file;
  std::filesystem::path p = file;
  p.replace_filename(file.stem().string() + "-" + to_string(t) + file.extension().string());
  return p;
}
}  // namespace

BenchCommand::BenchCommand(CLI::App& cmd) {
  cmd.set_help_flag("--help", "print this help and exit");  // -h is the host
  cmd.footer(
      "A load generator like redis-benchmark: -c clients on one thread, each keeping -P requests "
      "in flight, -n requests in all. Keys go under Perflab's own prefix unless --key-prefix "
      "says otherwise. Without --rate it is closed loop, as redis-benchmark: its latencies are "
      "uncorrected for coordinated omission. With --rate R it is open loop, as wrk2 -R: each "
      "connection sends R/c requests/s on a schedule of its own (-P: at most that many "
      "outstanding per connection), each request's latency runs from its intended send time, "
      "and a run where the generator itself fell behind is marked not valid (docs/latency.md).");
  // On any server it is pointed at, Perflab writes only under its own prefix unless told to.
  opts_.key_prefix = std::string(kBenchDefaultKeyPrefix);
  const auto not_empty = [](const char* what) {
    return CLI::Validator(
        [what](std::string& s) { return s.empty() ? std::string(what) : std::string(); }, "");
  };
  cmd.add_option("-h", opts_.host, "server hostname")->check(not_empty("empty host"));
  cmd.add_option("-p", opts_.port, "server port")->check(CLI::Range(1, 65535));
  cmd.add_option("-a", opts_.password,
                 "password for AUTH (visible in ps: hidden at start, with a warning; prefer "
                 "--password-file or PERFLAB_REDIS_PASSWORD)")
      ->envname("PERFLAB_REDIS_PASSWORD");
  cmd.add_option("--password-file", password_file_,
                 "file whose first line is the password for AUTH");
  cmd.add_option("-c", opts_.clients, "number of parallel connections")
      ->check(CLI::Range(1, 10000));
  cmd.add_option("-n", opts_.requests, "total number of requests")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  cmd.add_option("-P", opts_.pipeline, "pipeline <numreq> requests (1: no pipeline)")
      ->check(CLI::Range(1, 100000));
  cmd.add_option("-r", opts_.keyspace,
                 "random keys <prefix>NNNNNNNNNNNN in 0..keyspace-1 (0: one key)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{999999999999}));
  cmd.add_option("-d", opts_.data_size, "data size of SET/MSET values in bytes")
      ->check(CLI::Range(1, 512 * 1024 * 1024));
  cmd.add_option("-t", tests_, "comma-separated tests: set, get, mset, mget (run in that order)")
      ->check(cli::convertible(parse_bench_tests, "TESTS"));
  cmd.add_option("--rate", opts_.rate,
                 "open loop: requests per second in all, each connection rate/c on its own "
                 "schedule; latency from each request's intended send time (0: closed loop)")
      ->check(CLI::Validator(
          [](std::string& text) {  // NaN and inf pass a range: every comparison is false
            const double v = std::strtod(text.c_str(), nullptr);
            return std::isfinite(v) ? std::string() : "not a number of requests per second";
          },
          ""))
      ->check(CLI::Range(0.0, 1e9));
  cmd.add_option("--arrivals", arrivals_, "open loop: uniform or poisson arrivals per connection")
      ->check(cli::convertible(parse_arrivals, kArrivalsNames));
  cmd.add_flag("--cluster", opts_.cluster,
               "-h/-p is a Redis Cluster node: one thread per master sharing the -n requests, "
               "each batch's keys tagged to a random slot of its master (as redis-benchmark "
               "--cluster)");
  cmd.add_flag("--csv", opts_.csv, "output in CSV format");
  cmd.add_flag("-q", opts_.quiet, "quiet: just show requests per second");
  cmd.add_option("--seed", opts_.seed, "seed of the random keys (default: from the clock)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{INT64_MAX}));
  cmd.add_option("--key-prefix", opts_.key_prefix,
                 "key prefix ('key:' writes the very keys redis-benchmark writes)")
      ->check(not_empty("empty: Perflab writes only under a prefix ('key:' writes the very keys "
                        "redis-benchmark writes)"));
  cmd.add_option("--hdr-out", hdr_out_,
                 "write each test's latencies to FILE as HdrHistogram's percentile distribution "
                 "(milliseconds; its plotter reads it); with several tests, one file each, the "
                 "test's name before the extension (lat.hdr: lat-SET.hdr, lat-GET.hdr ...)");
}

int BenchCommand::run(const CLI::App& cmd) {
  opts_.tests = parse_bench_tests(tests_);
  opts_.arrivals = parse_arrivals(arrivals_);
  if (cmd.count("--arrivals") > 0 && opts_.rate <= 0)
    return cli::fail(cmd, cli::kExitUsage, "--arrivals needs --rate (open loop)");
  // An open loop's schedule is -n / --rate long, whatever the server does: a tiny rate would
  // run for years without a word.
  if (opts_.rate > 0 && static_cast<double>(opts_.requests) / opts_.rate > kLongestSchedule_s)
    return cli::fail(
        cmd, cli::kExitUsage,
        "--rate " + format_bound(opts_.rate) + " with -n " + std::to_string(opts_.requests) +
            " is a schedule of " +
            format_bound(std::round(static_cast<double>(opts_.requests) / opts_.rate / 3600)) +
            " hours; at most a day: raise --rate or lower -n");
  if (!password_file_.empty() && cmd.count("-a") == 0) {
    try {
      opts_.password = cli::read_secret_file(password_file_);
    } catch (const std::exception& e) {
      return cli::fail(cmd, cli::kExitUsage, e.what());
    }
  }
  // Each histogram's file, before anything is measured: a folder, device or FIFO is refused.
  if (!hdr_out_.empty()) try {
      for (BenchTest t : opts_.tests)
        check_output_path(bench_hdr_path(hdr_out_, t, opts_.tests.size() > 1));
    } catch (const std::exception& e) {
      return cli::fail(cmd, cli::kExitFailed, std::string(e.what()) + " (--hdr-out)");
    }
  InterruptStop stop;  // Ctrl-C: the generator stops, what completed is printed
  int rc = cli::kExitOk;
  try {
    const bool open = opts_.rate > 0;
    if (opts_.csv) std::cout << (open ? format_open_loop_csv_header() : format_bench_csv_header());
    for (BenchTest t : opts_.tests) {
      BenchResult r = run_bench(opts_, t, stop.token());
      if (opts_.csv)
        std::cout << (open ? format_open_loop_csv_row(r) : format_bench_csv_row(r));
      else if (opts_.quiet)
        std::cout << (open ? format_open_loop_quiet(r) : format_bench_quiet(r));
      else
        std::cout << (open ? format_open_loop_summary(opts_, r) : format_bench_summary(opts_, r));
      std::cout.flush();
      if (!hdr_out_.empty())
        write_file_atomically(bench_hdr_path(hdr_out_, t, opts_.tests.size() > 1),
                              hdr_percentile_distribution(r.latency));
      if (r.open_loop.fell_behind && !r.cancelled)
        cli::fail(cmd, 0, bench_title(t) + ": " + open_loop_verdict(r));
      if (r.errors > 0)
        cli::fail(cmd, 0,
                  std::to_string(r.errors) + " " + bench_title(t) +
                      " requests got an error reply, e.g. " + r.first_error);
      if (r.cancelled) {
        rc = cli::fail(cmd, cli::kExitFailed, "interrupted");
        break;
      }
    }
  } catch (const std::exception& e) {
    rc = cli::fail(cmd, cli::kExitFailed, e.what());
  }
  return rc;
}

void hide_bench_password(int argc, char** argv) {
  if (!cli::hide_option_values(argc, argv, {"-a"}).empty())
    std::cerr << "perflab-cli bench: warning: -a on the command line was visible to other users "
                 "(ps); use --password-file or PERFLAB_REDIS_PASSWORD\n";
}

}  // namespace perflab
