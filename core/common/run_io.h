#pragma once
// Reading and writing runs: versioned JSON, CSV, and Google Benchmark-compatible JSON. One file
// each: run_json_writer.cpp, run_read.cpp (with run_fields.h), run_csv_writer.cpp,
// run_gbench_writer.cpp; atomic_file.cpp writes files atomically.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/run.h"

namespace perflab {

// A run file that cannot be read or does not follow the schema.
class RunFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What every run file names as its "schema".
inline constexpr const char* kRunSchema = "perflab-run";

// The largest run file Perflab reads (checked before reading it).
inline constexpr std::uintmax_t kMaxRunFileBytes = std::uintmax_t{256} << 20;

std::string run_to_json(const Run& run, int indent = 2);
// (run_read.cpp) Checks the type and range of every field, every count against what a run file
// can honestly hold and a point's stored statistics for consistency (common/run_bounds.h);
// throws RunFormatError naming the field (e.g. field "series[0].points[2].samples[3]": expected
// a number, got string "x").
Run run_from_json(const std::string& text);

// Reads a run file; throws RunFormatError with the path and the reason: a file over
// kMaxRunFileBytes or not a regular file is refused without being read.
Run load_run(const std::filesystem::path& path);
// Writes atomically: a temporary file in the same folder, flushed, then renamed over path.
void save_run(const Run& run, const std::filesystem::path& path);

// One row per point: group,series,label,x,unit,n,min,median,mean,p95,max,stddev,ci_lo,ci_hi,
// ci_level,cv,extra... (the median's interval: empty without one).
std::string run_to_csv(const Run& run);

// Google Benchmark JSON ("context" + "benchmarks"[]): one entry per point whose unit is a
// time per op (ns/us/ms/s), named group/series/label, with the median as real_time, the
// thread CPU time per op as cpu_time when measured (else real_time), plus the aggregates
// mean/median/stddev as run_type "aggregate" entries, so Google Benchmark's compare.py reads it.
std::string run_to_gbench_json(const Run& run);

// Writes text to path atomically (temporary file + rename). Throws std::runtime_error.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

// Writes every file or none: each goes to a temporary beside it first; only when all are
// written are they renamed into place (a file they replace comes back if a later rename
// fails). A path naming a folder, a device, a FIFO or a socket is refused before anything is
// written. Throws std::runtime_error naming the file that failed.
void write_files_atomically(
    const std::vector<std::pair<std::filesystem::path, std::string>>& files);

// Fails (std::runtime_error, one line) unless a file can be written at path: not a directory or
// another non-regular file, in an existing folder where a file can be created (tried). For
// checks before a long run or an export.
void check_output_path(const std::filesystem::path& path);

}  // namespace perflab
