#pragma once
// The IO-list run's progress in proportion to time: each point (a builder at a size, a number
// of writers or readers, a payload size, …) counts for the seconds it is foretold to take from
// the run's parameters, corrected by how the points measured so far compared with theirs.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runner/expected_progress.h"

namespace perflab::iolist {

enum class PointKind {
  Build,           // one builder at one size, no server
  Relay,           // the relay's own cost
  Append,          // n writers (tag: the network RTT)
  Pgbench,         // pgbench with n clients, its calibration included
  Streams,         // writing the streams the readers read
  Read,            // n readers
  Payload,         // single-writer appends of n bytes per event
  Client,          // libpq against libpqxx
  Pooled,          // n clients direct and through PgBouncer (n = 0: the prepared probe)
  StandbyStreams,  // starting the standbys, writing and replaying the streams
  StandbyRead,     // n readers on the primary and its standbys
  StandbyLag,      // n writers' read-your-writes lag
  Latency,         // the open-loop append latency rounds
};

class PointProgress {
 public:
  struct Planned {
    PointKind kind;
    std::int64_t n;
    std::string tag;
    std::size_t steps;
    double forecast_s;
  };
  // A point of the run, in the order the run measures them: `steps` steps, foretold to take
  // `forecast_s` (see IoListRun's forecasts).
  void add(PointKind kind, std::int64_t n, std::string tag, std::size_t steps, double forecast_s);
  // The point begins at `now_s` (seconds of any steady clock), ending the one before; the points
  // planned between them are skipped. Returns the fraction done; a point not planned after the
  // current one changes nothing.
  double begin(PointKind kind, std::int64_t n, const std::string& tag, double now_s);
  double step();  // one more step of the current point; the fraction done
  // The current point is `within` (0..1) done (a point measured to verdicts ends by its time
  // budget: it knows how far it is better than its steps do); the fraction done.
  double reach(double within);
  // The i-th point is now foretold to take `forecast_s` (before it begins).
  void foretell(std::size_t i, double forecast_s);
  double fraction() const { return fraction_; }
  // What the i-th point is expected to take now: its forecast times how long the points of its
  // kind took against their forecasts, or, before any of its kind, all points measured.
  double expected(std::size_t i) const { return progress_.expected(i); }
  const std::vector<Planned>& planned() const { return parts_; }
  std::optional<std::size_t> current() const { return current_; }  // the point begun last

 private:
  void revise();  // the points not begun, from those that ended
  std::vector<Planned> parts_;
  std::vector<double> took_s_;  // of each point once ended, else below zero
  ExpectedProgress progress_;
  std::optional<std::size_t> current_;
  std::size_t steps_done_ = 0;
  double began_s_ = 0, fraction_ = 0;
};

}  // namespace perflab::iolist
