#pragma once
// A run's wall-time budget shared by its points: each point, when it starts, may take what
// remains of the budget divided by the points left (itself included), so the time a point that
// settles early leaves goes to those after it. Pure: the caller passes the elapsed time.
#include <cstddef>
#include <optional>

namespace perflab {

class RunBudget {
 public:
  RunBudget() = default;               // no budget: points take their own (precision_budget_s)
  explicit RunBudget(double seconds);  // > 0; std::invalid_argument otherwise

  bool limited() const { return seconds_ > 0; }
  double seconds() const { return seconds_; }
  // The experiment says how many points it has still to measure (the one starting included);
  // without it, or once they are all taken, a point may take all that remains.
  void expect_points(std::size_t points) { points_left_ = points; }
  std::size_t points_left() const { return points_left_; }

  // The budget of the point starting `elapsed_s` seconds into the run: what remains of the
  // budget (never below 0) divided by the points left; the point is then counted as taken.
  // nullopt without a budget.
  std::optional<double> take_point(double elapsed_s);

 private:
  double seconds_ = 0;
  std::size_t points_left_ = 0;
};

}  // namespace perflab
