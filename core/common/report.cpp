#include "common/report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "common/figure_format.h"

namespace perflab {

std::string format_run_report(const Run& run) {
  std::ostringstream o;
  o << run.experiment << " — " << run.title << "  [" << to_string(run.status) << "]\n";
  if (!run.message.empty()) o << "  " << run.message << "\n";
  if (!run.params.empty()) {
    o << "parameters:";
    for (const auto& [k, v] : run.params) o << " " << k << "=" << v;
    o << "\n";
  }
  for (const auto& t : run.targets)
    o << "target: " << t.kind << " " << t.address << (t.managed ? " (managed" : " (external")
      << (t.version.empty() ? "" : ", " + t.version) << ")\n";
  o << "host: " << run.host.cpu_model << ", " << run.host.cores << " cores, " << run.host.kernel
    << ", " << run.host.build_type << " build\n";

  for (const auto& g : run.groups) {
    std::size_t lw = 9, sw = 6;
    bool any = false;
    for (const auto& s : run.series) {
      if (s.group != g.id) continue;
      sw = std::max(sw, s.name.size());
      for (const auto& p : s.points) lw = std::max(lw, p.label.size()), any = true;
    }
    if (!any) continue;
    if (g.numeric_x) lw = std::max(lw, g.x_label.size());
    o << "\n"
      << g.title << " (" << g.unit << ", " << (g.lower_is_better ? "lower" : "higher")
      << " is better)\n";
    char buf[512];
    std::snprintf(buf, sizeof buf, "  %-*s  %-*s %12s %12s %12s %12s %5s\n", static_cast<int>(lw),
                  g.numeric_x ? g.x_label.c_str() : "benchmark", static_cast<int>(sw), "series",
                  "median", "p95", "min", "max", "n");
    o << buf;
    // Rows by point label in first-seen order, series within.
    std::vector<std::string> labels;
    for (const auto& s : run.series)
      if (s.group == g.id)
        for (const auto& p : s.points)
          if (std::find(labels.begin(), labels.end(), p.label) == labels.end())
            labels.push_back(p.label);
    for (const auto& label : labels) {
      for (const auto& s : run.series) {
        if (s.group != g.id) continue;
        for (const auto& p : s.points) {
          if (p.label != label) continue;
          std::snprintf(buf, sizeof buf, "  %-*s  %-*s %12s %12s %12s %12s %5zu\n",
                        static_cast<int>(lw), p.label.c_str(), static_cast<int>(sw), s.name.c_str(),
                        format_figure(p.stats.median).c_str(), format_figure(p.stats.p95).c_str(),
                        format_figure(p.stats.min).c_str(), format_figure(p.stats.max).c_str(),
                        p.stats.n);
          o << buf;
        }
      }
    }
  }
  if (!run.findings.empty()) {
    o << "\nFindings (measured"
      << "; the article's figure in brackets)\n";
    for (const auto& f : run.findings) {
      o << "  " << f.text << ": " << format_figure(f.value);
      if (f.article) o << "  [article " << format_figure(*f.article) << "]";
      o << "\n";
    }
  }
  return o.str();
}

}  // namespace perflab
