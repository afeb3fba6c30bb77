#pragma once
// Comparing two runs of the same experiment, as Benchfella's bench.cmp printed it.
#include <optional>
#include <string>
#include <vector>

#include "common/run.h"
#include "common/significance.h"

namespace perflab {

struct ComparisonRow {
  std::string name;  // group/series/label
  std::string unit;
  double old_value = 0, new_value = 0;  // medians
  double ratio = 0;                     // new / old
  double percent = 0;                   // (new - old) / old * 100
  bool lower_is_better = true;          // of the new run's group
  // new / old with its interval (two separate runs: unpaired bootstrap) and the verdict on the
  // new run against the old one ("faster": the new one is better); absent when a side has no
  // samples or the old median is 0.
  std::optional<RatioJudgement> judgement;
  // The Mann–Whitney U test of new against old, as compare.py prints it beside every row.
  UTest utest;
  // Significant: the verdict is faster or slower (the interval clears the threshold) and the
  // U test agrees (p < 0.05). Only such rows are coloured.
  bool significant() const;
};

struct Comparison {
  std::vector<ComparisonRow> rows;       // sorted by ratio, ascending
  std::vector<std::string> only_in_old;  // benchmark names present only in one run
  std::vector<std::string> only_in_new;
  double threshold = 0.02;  // of the verdicts: the new run's
};

// The verdicts use the new run's threshold of practical significance (Run::threshold).
Comparison compare_runs(const Run& old_run, const Run& new_run);

enum class CompareFormat { Ratio, Percent };
// A printable table: "name  ratio" lines like bench.cmp with the ratio's interval, the verdict
// and the U test's p-value ("unreliable" beside it below 9 repetitions a side, as compare.py),
// then the unmatched benchmarks.
std::string format_comparison(const Comparison& c, CompareFormat f);

}  // namespace perflab
