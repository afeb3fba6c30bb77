#pragma once
// Reading and writing runs: versioned JSON, CSV, and Google Benchmark-compatible JSON.
#include <filesystem>
#include <stdexcept>
#include <string>

#include "common/run.h"

namespace perflab {

// A run file that cannot be read or does not follow the schema.
class RunFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string run_to_json(const Run& run, int indent = 2);
Run run_from_json(const std::string& text);  // throws RunFormatError

// Reads a run file; throws RunFormatError with the path and the reason.
Run load_run(const std::filesystem::path& path);
// Writes atomically: a temporary file in the same folder, flushed, then renamed over path.
void save_run(const Run& run, const std::filesystem::path& path);

// One row per point: group,series,label,x,unit,n,min,median,mean,p95,max,stddev,extra...
std::string run_to_csv(const Run& run);

// Google Benchmark JSON ("context" + "benchmarks"[]): one entry per point whose unit is a
// time per op (ns/us/ms/s), named group/series/label, with the median as real_time, the
// thread CPU time per op as cpu_time when measured (else real_time), plus the aggregates
// mean/median/stddev as run_type "aggregate" entries, so Google Benchmark's compare.py reads it.
std::string run_to_gbench_json(const Run& run);

// Writes text to path atomically (temporary file + rename). Throws std::runtime_error.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace perflab
