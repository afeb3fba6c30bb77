// Open-loop schedules of intended send times (open_loop_schedule.h).
#include "common/open_loop_schedule.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "common/text.h"

namespace perflab {

const char* to_string(Arrivals a) {
  return a == Arrivals::Poisson ? "poisson" : "uniform";
}

Arrivals parse_arrivals(std::string_view s) {
  const std::string l = to_lower(s);
  if (l == "uniform") return Arrivals::Uniform;
  if (l == "poisson") return Arrivals::Poisson;
  throw std::invalid_argument("unknown arrivals '" + std::string(s) + "' (uniform or poisson)");
}

ArrivalSchedule::ArrivalSchedule(double total_rate, int connection, int connections,
                                 Arrivals arrivals, std::uint64_t seed, std::int64_t start_ns)
    : period_ns_(1e9 / total_rate),
      connection_(connection),
      connections_(connections),
      arrivals_(arrivals),
      rng_(seed + static_cast<std::uint64_t>(connection)),
      start_(start_ns) {
  if (!(total_rate > 0) || connections < 1)
    throw std::invalid_argument("an open-loop schedule needs a rate > 0");
  k_ = -1;
  advance();
}

void ArrivalSchedule::advance() {
  ++k_;
  if (arrivals_ == Arrivals::Uniform) {
    // From k, not by adding periods: no drift over millions of requests.
    const double at = (static_cast<double>(connection_) +
                       static_cast<double>(k_) * static_cast<double>(connections_)) *
                      period_ns_;
    next_ = start_ + std::llround(at);
    return;
  }
  std::exponential_distribution<double> gap(1.0 / (period_ns_ * connections_));
  poisson_at_ += gap(rng_);
  next_ = start_ + std::llround(poisson_at_);
}

}  // namespace perflab
