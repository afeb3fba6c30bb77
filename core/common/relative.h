#pragma once
// A group's series read against a baseline series: at every label, the ratio of a series' median
// to the baseline's median at that label, with the ratio's confidence interval (ratio_ci of
// significance.h, the figure the findings state), its real level and how many samples. Or
// against a baseline category: each series' medians at the other labels to its own median there
// (PostgreSQL's and local memory's time to Redis's, per encoding).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/run.h"

namespace perflab {

struct RelativePoint {
  std::string label;
  std::optional<double> x;  // the series' Point::x
  // median(series) / median(baseline) at this label, with its interval (paired bootstrap when the
  // group's series were interleaved with equal counts, else unpaired); no interval when a side
  // has a single sample or the view leaves intervals out (RelativeOptions::max_intervals).
  Estimate ratio;
};

struct RelativeSeries {
  std::string name;
  // One per label the baseline also has, with samples on both sides and a baseline median
  // other than 0, in the series' order.
  std::vector<RelativePoint> points;
};

struct RelativeView {
  std::string group;
  std::string baseline;           // the baseline series' name, or the baseline category (label)
  bool category = false;          // the baseline is a category
  Better better = Better::Lower;  // of the group
  // Every other series of the group, in the run's order; with a baseline category, every series
  // with a point there, its points at the other labels.
  std::vector<RelativeSeries> series;
  // Labels at which the baseline has a point: where it stands at 1 (a category: itself).
  std::vector<std::string> baseline_labels;
  // More ratios than RelativeOptions::max_intervals: every ratio is given without an interval.
  bool intervals_left_out = false;

  const RelativePoint* find(const std::string& series, const std::string& label) const;
};

struct RelativeOptions {
  double level = 0.95;
  // Above this many ratios in the view, none gets an interval (a bootstrap of 10,000 resamples
  // each: a 100,000-point sweep would take minutes).
  std::size_t max_intervals = 5000;
};

// Where a baseline is text (the chart's box, settings, the command line), a category is written
// "category: NAME" and anything else names a series.
std::string category_baseline(const std::string& label);
std::optional<std::string> baseline_category(const std::string& baseline);  // NAME, if one

// The view of `group` against `baseline` (a series, or a category as above); nullopt when the
// run has no such group, or the group no such series with points or no point in that category.
std::optional<RelativeView> relative_view(const Run& run, const std::string& group,
                                          const std::string& baseline,
                                          const RelativeOptions& opt = {});

// The baseline the group names (Group::baseline_series) when the group has that series with
// points; empty otherwise (an older run: the person chooses one).
std::string named_baseline(const Run& run, const std::string& group);

// A ratio in words with its interval and real level, as a chart's tooltip and the table state
// it: "iolist — 100 concurrent writers: 0.93× interpolate [0.88–0.99] (95% CI, n = 6)".
std::string relative_sentence(const RelativeView& view, const std::string& series,
                              const RelativePoint& p);

}  // namespace perflab
