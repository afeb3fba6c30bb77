#pragma once
// `perflab-cli bench`: the load generator with redis-benchmark's options and output.
#include <string>
#include <vector>

// args: the words after "bench". Prints results to stdout, problems to stderr.
// Returns 0 on success, 2 on bad options, 1 when the server cannot be used.
namespace perflab {

int run_bench_command(const std::vector<std::string>& args);

}  // namespace perflab
