// Which chart a finding is about, checked over a run (finding_charts.h).
#include "finding_charts.h"

#include <algorithm>

namespace perflab::test {

std::vector<std::string> finding_chart_violations(const Run& run) {
  std::vector<std::string> out;
  for (const Finding& f : run.findings) {
    const bool from_series =
        f.kind == FindingKind::Share ||
        (f.kind == FindingKind::Comparison && f.comparison.quantity != Quantity::Cpu);
    if (f.group.empty()) {
      if (from_series) out.push_back(f.id + ": names no chart");
      continue;
    }
    if (!run.group(f.group)) {
      out.push_back(f.id + ": names chart \"" + f.group + "\", which the run does not have");
      continue;
    }
    const bool has_points = std::any_of(run.series.begin(), run.series.end(), [&](const auto& s) {
      return s.group == f.group && !s.points.empty();
    });
    if (!has_points) out.push_back(f.id + ": names chart \"" + f.group + "\", which has no points");
  }
  return out;
}

}  // namespace perflab::test
