#pragma once
// Comparing two runs of the same experiment, as Benchfella's bench.cmp printed it.
#include <optional>
#include <string>
#include <vector>

#include "common/run.h"

namespace perflab {

struct ComparisonRow {
  std::string name;  // group/series/label
  std::string unit;
  double old_value = 0, new_value = 0;  // medians
  double ratio = 0;                     // new / old
  double percent = 0;                   // (new - old) / old * 100
};

struct Comparison {
  std::vector<ComparisonRow> rows;       // sorted by ratio, ascending
  std::vector<std::string> only_in_old;  // benchmark names present only in one run
  std::vector<std::string> only_in_new;
};

Comparison compare_runs(const Run& old_run, const Run& new_run);

enum class CompareFormat { Ratio, Percent };
// A printable table: "name  ratio" lines like bench.cmp, then the unmatched benchmarks.
std::string format_comparison(const Comparison& c, CompareFormat f);

}  // namespace perflab
