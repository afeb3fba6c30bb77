#pragma once
// `perflab-cli bench`: the load generator with redis-benchmark's options and output.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "sharding/loadgen.h"

namespace perflab {

// The command's options on a CLI11 command: redis-benchmark's -h -p -a -c -n -P -r -d -t --csv
// -q, plus --seed, --key-prefix, --hdr-out and open loop's --rate and --arrivals. -h is the
// host, as in redis-benchmark: help is --help only.
class BenchCommand {
 public:
  explicit BenchCommand(CLI::App& cmd);
  // After parsing: runs each test, prints the results on stdout and problems on stderr. Returns
  // 0 on success, 1 when the server cannot be used or the run was interrupted (Ctrl-C).
  int run(const CLI::App& cmd);

 private:
  sharding::BenchOptions opts_;
  std::string tests_ = "set,get,mset,mget";
  std::string password_file_;
  std::string hdr_out_;
  std::string arrivals_ = "uniform";
};

// `-a PASSWORD` is accepted as redis-benchmark takes it, but a command line is visible to every
// user (ps): the value is overwritten in argv at start, with a warning on stderr.
void hide_bench_password(int argc, char** argv);

}  // namespace perflab
