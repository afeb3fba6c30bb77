// The open-loop rounds of one series and how a run keeps them (open_loop_series.h).
#include "runner/open_loop_series.h"

#include <utility>

#include "common/text.h"

namespace perflab {

void OpenLoopSeries::add(OpenLoopRound&& r, int round) {
  achieved_rps.push_back(r.achieved_rps);
  if (r.valid())
    valid.push_back(std::move(r.latency));
  else
    problems.push_back("round " + std::to_string(round + 1) + ": " + open_loop_round_problem(r));
}

std::vector<double> OpenLoopSeries::at_percentile(double percent, double ns_per_unit) const {
  std::vector<double> out;
  out.reserve(valid.size());
  for (const auto& r : valid)
    out.push_back(static_cast<double>(r.value_at_percentile_ns(percent)) / ns_per_unit);
  return out;
}

std::string open_loop_rate_text(double rps) {
  return format_fixed(rps, rps < 100 ? 2 : 0) + " req/s";
}

Group open_loop_rate_group(const std::string& id, const std::string& what, double target_rps) {
  Group g{
      id,
      "Achieved rate of the " + what + " rounds (target " + open_loop_rate_text(target_rps) + ")",
      "req/s",
      "",
      false,
      false,
      "Requests completed per second in each round, beside the target: below " +
          format_fixed(100 * kRateHeldShare, 0) +
          "% of it the rate was not held and the round is not valid."};
  g.y_label = "achieved req/s (target " + open_loop_rate_text(target_rps) + ")";
  return g;
}

void publish_open_loop_series(RunContext& ctx, const OpenLoopGroups& g, const OpenLoopSeries& s,
                              double ns_per_unit) {
  if (s.achieved_rps.empty()) return;
  ctx.add_latency_spectrum(g.spectrum, s.series, s.valid, ns_per_unit);
  Point p{s.series, std::nullopt, s.achieved_rps, {}, {}};
  p.extra["target_rps"] = g.target_rps;
  p.extra["rounds_not_valid"] = static_cast<double>(s.problems.size());
  ctx.add_point(g.rate_group, "achieved", std::move(p));
  if (s.problems.empty()) return;
  ctx.add_finding(
      note_finding({.id = g.spectrum.id + "." + s.series + ".not_valid",
                    .context = g.context,
                    .what = s.title + ": " + std::to_string(s.problems.size()) + " of " +
                            std::to_string(s.achieved_rps.size()) + " rounds at " +
                            open_loop_rate_text(g.target_rps) +
                            " not valid, left out of its spectrum: " + s.problems.front(),
                    .group = g.spectrum.id}));
}

}  // namespace perflab
