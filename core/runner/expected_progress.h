#pragma once
// Progress in proportion to time: each part of a run counts for the seconds it is expected to
// take, and the expectation of a part not yet begun may be revised as the run learns its pace.
#include <cstddef>
#include <vector>

namespace perflab {

class ExpectedProgress {
 public:
  // The parts span the fractions from `from` to `to`.
  explicit ExpectedProgress(double from = 0, double to = 1);
  // A part expected to take `seconds` (below zero or not finite: none); returns its index.
  std::size_t add(double seconds);
  // Revises part i's expectation; once the part has begun its share is fixed.
  void expect(std::size_t i, double seconds);
  // Moves the span's end (not below its start): the parts not begun share what is left of it.
  void end_at(double to);
  // The current part, `within` (0..1) done, is now expected to take `seconds` in all and the
  // span to end at `to`: the fraction stays where it is, and what is left of the span is shared
  // by the rest of the current part and the parts not begun. A long part that learns the run's
  // pace as it goes moves its share and the others' at once. Before any part has begun: end_at.
  void reshare(double within, double seconds, double to);
  double expected(std::size_t i) const { return expected_.at(i); }
  std::size_t size() const { return expected_.size(); }
  // The fraction done when part i is `within` (0..1) done. Parts begin in order: asking for a
  // later part ends the current one (and those skipped); an earlier one reads as the current
  // one's start; one past the last reads `to`. When a part begins, its share is what is left
  // of the span times its expected seconds over those of the parts left, so the fraction grows
  // steadily whatever was revised.
  double at(std::size_t i, double within = 0);

 private:
  double from_, to_;
  std::vector<double> expected_;
  std::size_t current_ = 0;  // the part begun last
  bool begun_ = false;
  double start_ = 0, share_ = 0;  // the current part's start and share
  double waiting_s_ = 0;          // the expected seconds of the parts not begun
};

}  // namespace perflab
