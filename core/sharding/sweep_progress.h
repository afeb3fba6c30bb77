#pragma once
// The pipeline sweep's progress in proportion to each measurement's expected time: one ends at
// its `requests` or its time budget, whichever comes first, and a deep pipeline ends by its
// requests long before the budget, so counting every measurement alike made the time left of a
// sweep read long until its last depths.
#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "runner/expected_progress.h"

namespace perflab::sharding {

class SweepProgress {
 public:
  // The measurements in the sweep's order: for each test, for each depth, `repeat` rounds of
  // the test's variants (variants_per_test[test] of them), each of up to `requests` requests
  // or `budget_s`. Each is expected to take the budget until the sweep has measured its
  // variant; the fractions run from `from` to `to`.
  SweepProgress(const std::vector<std::size_t>& variants_per_test, std::vector<std::int64_t> depths,
                int repeat, double budget_s, std::int64_t requests, double from, double to);
  // The fraction done when the measurement of the test's variant at depths[depth] in round
  // `round` begins; a round past `repeat` (measuring to a precision) counts no more.
  double begin(std::size_t test, std::size_t depth, std::size_t variant, int round);
  // That it took `seconds` for `requests` requests: the expectations of the measurements to
  // come are revised.
  void measured(std::size_t test, std::size_t depth, std::size_t variant, double seconds,
                std::int64_t requests);
  // That a short probe of the test's variant at depths[depth], before the sweep, completed
  // `requests` in `seconds` of its own clock after `setup_s` (connecting): until the depth is
  // measured, its measurements are expected to take setup_s + requests / that rate (at most
  // the budget). One depth tells nothing of the next: the proxy writing per reply without
  // TCP_NODELAY runs at -P 1 as fast as the others, then at -P 2 takes its whole budget.
  void probed(std::size_t test, std::size_t depth, std::size_t variant, double setup_s,
              double seconds, std::int64_t requests);
  // That the test's variant is sized by time, not by `requests` (redis-benchmark --cluster
  // raises its -n until a run lasts long enough): a measurement of it is expected to take
  // `seconds` until one is measured, then the mean of those at the deepest depth measured, at
  // any depth. Its rate foretold its time at the next depth as a tenth of it, and it was over
  // a third of a default sweep's time.
  void timed(std::size_t test, std::size_t variant, double seconds);
  // What a measurement of the test's variant at depths[depth] is expected to take: for a timed
  // variant, as above; else the median
  // of its measurements there; else what its probe there said; else min(requests / rate,
  // budget), the rate the median at the last depth measured times (this depth / that)^a, a
  // from how the rate grew over the last two depths measured (0 to 1; 0.5 from one depth);
  // else the budget.
  double expected(std::size_t test, std::size_t depth, std::size_t variant) const;

 private:
  std::size_t index(std::size_t test, std::size_t depth, std::size_t variant, int round) const;

  std::vector<std::size_t> variants_, first_;  // per test: its variants, its first index
  std::vector<std::int64_t> depths_;
  int repeat_;
  double budget_s_;
  std::int64_t requests_;
  ExpectedProgress progress_;
  std::size_t next_ = 0;  // the first measurement not begun
  struct Taken {
    std::vector<double> seconds, rate;  // of each measurement; rate: requests per second
  };
  std::map<std::tuple<std::size_t, std::size_t, std::size_t>, double> probed_;  // its expected s
  std::map<std::pair<std::size_t, std::size_t>, double> timed_;  // (test, variant): seconds
  void revise(std::size_t test, std::size_t depth, std::size_t variant);
  std::map<std::pair<std::size_t, std::size_t>, std::map<std::size_t, Taken>> taken_;  // by depth
};

}  // namespace perflab::sharding
