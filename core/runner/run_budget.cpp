// A run's wall-time budget shared by its points (run_budget.h).
#include "runner/run_budget.h"

#include <algorithm>
#include <stdexcept>

namespace perflab {

RunBudget::RunBudget(double seconds) : seconds_(seconds) {
  if (!(seconds > 0)) throw std::invalid_argument("a run's budget must be positive");
}

std::optional<double> RunBudget::take_point(double elapsed_s) {
  if (!limited()) return std::nullopt;
  const double remaining = std::max(0.0, seconds_ - elapsed_s);
  const std::size_t share = std::max<std::size_t>(points_left_, 1);
  if (points_left_ > 0) --points_left_;
  return remaining / static_cast<double>(share);
}

}  // namespace perflab
