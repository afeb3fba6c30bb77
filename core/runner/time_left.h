#pragma once
// How long a run has left, re-estimated from its measured progress: the rate at which its
// fraction done grew over the recent part of the run, smoothed so the figure shown moves steadily.
#include <deque>
#include <optional>
#include <utility>

namespace perflab {

class TimeLeft {
 public:
  // The run's progress: `fraction` done (0..1) `elapsed_s` seconds after it started. A fraction
  // below one reported before counts as no progress.
  void add(double fraction, double elapsed_s);
  // Seconds left at `elapsed_s` (the estimated end minus now, never below zero); nullopt until
  // there is progress enough to tell: kMinFraction done, kMinSeconds gone and kMinProgressSeconds
  // since the progress began; or, for a run of seconds, kQuickFraction done in kQuickReports
  // reports of progress over kQuickProgressSeconds at least.
  std::optional<double> seconds_left(double elapsed_s) const;
  // The run's estimated whole length in seconds, the same way; nullopt likewise.
  std::optional<double> estimated_total() const { return end_s_; }
  void reset();

  static constexpr double kMinFraction = 0.02;
  static constexpr double kMinSeconds = 3.0;
  // The progress begins with the last report at none done: what came before (servers starting,
  // records generated) is not measuring and tells nothing of its pace, so the rate is measured
  // from there, once it has run this long ...
  static constexpr double kMinProgressSeconds = 1.0;
  // A tenth done tells the pace of a run of seconds: it has not 3 s to wait (a caching lecture
  // run measures for 2 to 4 s), and a run of minutes is past the rule above by then.
  static constexpr double kQuickFraction = 0.1;
  static constexpr int kQuickReports = 2;
  static constexpr double kQuickProgressSeconds = 0.2;
  // ... over the latest share of the time gone (a slow phase stops counting once it is that far
  // behind) ...
  static constexpr double kRecentShare = 0.5;
  // ... and each estimate moves the one shown with this time constant (seconds), or with this
  // share of the time gone when that is shorter: a run of seconds cannot wait seconds for it.
  static constexpr double kSmoothingSeconds = 5.0;
  static constexpr double kSmoothingShare = 0.1;

 private:
  double fraction_at(double t) const;  // interpolated between the samples kept

  std::deque<std::pair<double, double>> samples_;  // (elapsed_s, fraction), rising in both
  double begun_s_ = 0;                             // the last report of none done
  int progress_reports_ = 0;                       // those of more done since then
  std::optional<double> end_s_;                    // smoothed estimated end, in elapsed seconds
  double estimated_at_s_ = 0;                      // when end_s_ last moved
};

}  // namespace perflab
