#include "common/report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "common/figure_format.h"

namespace perflab {

std::optional<std::string> point_noise_warning(const Point& p, const MachineNoise* machine) {
  if (p.samples.size() < 2) return std::nullopt;  // one sample, or an exact count: no spread
  return noise_warning(p.cv, machine);
}

std::optional<std::string> run_noise_summary(const Run& run) {
  if (run.machine && run.machine->busy()) {
    std::string out = "The machine was busy (";
    out += describe_machine(*run.machine);
    out += "): every figure may be noisy — rerun, or raise repetitions.";
    return out;
  }
  std::vector<std::string> noisy;
  for (const auto& s : run.series)
    for (const auto& p : s.points)
      if (p.samples.size() >= 2 && noisy_point(p.cv))
        noisy.push_back(s.group + "/" + s.name + "/" + p.label);
  if (noisy.empty()) return std::nullopt;
  std::string out =
      std::to_string(noisy.size()) + (noisy.size() == 1 ? " figure is" : " figures are");
  out += " noisy (CV above ";
  out += format_percent(NoiseThresholds{}.cv);
  out += "): ";
  for (std::size_t i = 0; i < noisy.size() && i < 3; ++i) {
    if (i) out += ", ";
    out += noisy[i];
  }
  if (noisy.size() > 3) out += ", …";
  out += " — rerun, or raise repetitions.";
  return out;
}

std::optional<std::string> interval_level_note(const Run& run) {
  const Estimate* lowest = nullptr;
  auto consider = [&](const Estimate& e) {
    if (e.has_interval() && !e.full_level && (!lowest || e.level < lowest->level)) lowest = &e;
  };
  for (const auto& s : run.series)
    for (const auto& p : s.points) consider(p.median_ci);
  for (const auto& f : run.findings)
    if (f.ci) consider(*f.ci);
  if (!lowest) return std::nullopt;
  std::size_t enough = 2;
  while (median_ci_ranks(enough).coverage < 0.95) ++enough;
  return "Intervals in this run reach at most " + format_level(*lowest) +
         " (too few repetitions for 95%); a median's interval reaches 95% from " +
         std::to_string(enough) + " repetitions.";
}

std::string format_run_report(const Run& run, bool verbose) {
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
  if (run.machine && run.machine->busy())
    o << "warning: the machine was busy (" << describe_machine(*run.machine)
      << "): every figure may be noisy — rerun, or raise repetitions\n";
  std::vector<std::string> warnings;

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
    std::snprintf(buf, sizeof buf, "  %-*s  %-*s %32s %6s %12s %12s %12s %5s\n",
                  static_cast<int>(lw), g.numeric_x ? g.x_label.c_str() : "benchmark",
                  static_cast<int>(sw), "series", "median [CI] (level)", "CV", "p95", "min", "max",
                  "n");
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
          const auto warning = point_noise_warning(run, p);
          const std::string median = p.median_ci.has_interval()
                                         ? format_estimate(p.median_ci, g.unit)
                                         : format_figure(p.stats.median, g.unit);
          std::snprintf(buf, sizeof buf, "  %-*s  %-*s %32s %6s %12s %12s %12s %5zu%s\n",
                        static_cast<int>(lw), p.label.c_str(), static_cast<int>(sw), s.name.c_str(),
                        median.c_str(), format_percent(p.cv).c_str(),
                        format_figure(p.stats.p95, g.unit).c_str(),
                        format_figure(p.stats.min, g.unit).c_str(),
                        format_figure(p.stats.max, g.unit).c_str(), p.stats.n,
                        warning && noisy_point(p.cv) ? " !" : "");
          o << buf;
          if (p.precision) o << "      " << precision_text(*p.precision) << "\n";
          // The machine's share is said once, above; each noisy point gives its own CV.
          if (warning && noisy_point(p.cv))
            warnings.push_back(g.id + "/" + s.name + "/" + p.label + ": " +
                               *noise_warning(p.cv, nullptr));
        }
      }
    }
  }
  if (auto note = interval_level_note(run)) o << "\n" << *note << "\n";
  if (!run.findings.empty()) {
    o << "\nFindings (figure [interval] (its level) — verdict at ±" << format_percent(run.threshold)
      << "; the article's claim judged against the interval)\n";
    for (const auto& f : run.findings) o << "  " << finding_sentence(f) << "\n";
  }
  // One line for the noisy figures, with their count: a list of every one only when asked.
  if (!warnings.empty()) {
    std::size_t figures = 0;
    for (const auto& s : run.series)
      for (const auto& p : s.points) figures += p.samples.size() >= 2 ? 1 : 0;
    o << "\n"
      << warnings.size() << " of " << figures << " figures noisy (CV above "
      << format_percent(NoiseThresholds{}.cv)
      << "): `--param precision=2` repeats each point until its interval is within ±2%";
    if (verbose) {
      o << ":\n";
      for (const auto& w : warnings) o << "  " << w << "\n";
    } else {
      o << "; `--verbose` lists them\n";
    }
  }
  return o.str();
}

}  // namespace perflab
