#include "common/compare.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "common/figure_format.h"

namespace perflab {

namespace {
struct Entry {
  std::string unit;
  double median = 0;
  bool lower_is_better = true;
  const std::vector<double>* samples = nullptr;
};

std::map<std::string, Entry> entries(const Run& run) {
  std::map<std::string, Entry> out;
  for (const auto& s : run.series) {
    const Group* g = run.group(s.group);
    for (const auto& p : s.points)
      out[s.group + "/" + s.name + "/" + p.label] = {g ? g->unit : "", p.stats.median,
                                                     g ? g->lower_is_better : true, &p.samples};
  }
  return out;
}
}  // namespace

bool ComparisonRow::significant() const {
  return judgement &&
         (judgement->verdict == Verdict::Faster || judgement->verdict == Verdict::Slower) &&
         perflab::significant(utest);
}

Comparison compare_runs(const Run& old_run, const Run& new_run) {
  Comparison c;
  c.threshold = new_run.threshold;
  const auto a = entries(old_run);
  const auto b = entries(new_run);
  for (const auto& [name, oe] : a) {
    auto it = b.find(name);
    if (it == b.end()) {
      c.only_in_old.push_back(name);
      continue;
    }
    ComparisonRow r;
    r.name = name;
    r.unit = oe.unit;
    r.old_value = oe.median;
    r.new_value = it->second.median;
    r.ratio = oe.median != 0 ? it->second.median / oe.median : 0;
    r.percent = oe.median != 0 ? (it->second.median - oe.median) / oe.median * 100.0 : 0;
    r.lower_is_better = it->second.lower_is_better;
    RatioOptions opt;
    opt.interleaved = false;  // two separate runs
    r.judgement =
        judge_series(*it->second.samples, *oe.samples,
                     r.lower_is_better ? Better::Lower : Better::Higher, new_run.threshold, opt);
    r.utest = mann_whitney_u(*it->second.samples, *oe.samples);
    c.rows.push_back(std::move(r));
  }
  for (const auto& [name, e] : b)
    if (!a.count(name)) c.only_in_new.push_back(name);
  std::stable_sort(
      c.rows.begin(), c.rows.end(),
      [](const ComparisonRow& x, const ComparisonRow& y) { return x.ratio < y.ratio; });
  return c;
}

std::string format_comparison(const Comparison& c, CompareFormat f) {
  std::size_t width = 9;
  for (const auto& r : c.rows) width = std::max(width, r.name.size());
  std::ostringstream o;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-*s %14s %14s %10s %44s  %-14s %-34s %s\n",
                static_cast<int>(width), "benchmark", "old", "new",
                f == CompareFormat::Ratio ? "new/old" : "change", "new/old [CI] (level)", "p-value",
                "verdict (new vs old)", "unit");
  o << buf;
  for (const auto& r : c.rows) {
    const std::string ci = r.judgement ? format_estimate(r.judgement->ratio) : std::string("n/a");
    const std::string verdict =
        r.judgement ? verdict_text(r.judgement->verdict, r.judgement->threshold) : "n/a";
    std::string p = r.utest.enough ? format_p_value(r.utest.p_value) : "untested";
    if (r.utest.enough && !r.utest.reliable) p += " unreliable";
    // The medians as every view writes them: a local get of 34 ns reads "0.0340", never "0.03"
    // (nor "0.00" for 4 ns).
    const std::string old_value = format_figure(r.old_value, r.unit);
    const std::string new_value = format_figure(r.new_value, r.unit);
    if (f == CompareFormat::Ratio)
      std::snprintf(buf, sizeof buf, "%-*s %14s %14s %10.2f", static_cast<int>(width),
                    r.name.c_str(), old_value.c_str(), new_value.c_str(), r.ratio);
    else
      std::snprintf(buf, sizeof buf, "%-*s %14s %14s %+9.2f%%", static_cast<int>(width),
                    r.name.c_str(), old_value.c_str(), new_value.c_str(), r.percent);
    o << buf;
    std::snprintf(buf, sizeof buf, " %44s  %-14s %-34s %s\n", ci.c_str(), p.c_str(),
                  verdict.c_str(), r.unit.c_str());
    o << buf;
  }
  o << "\nverdict: where the ratio's whole interval lies against 1 ± "
    << format_percent(c.threshold)
    << " (new run's threshold); p-value: Mann-Whitney U, two-sided, as compare.py (\"unreliable\": "
       "fewer than 9 repetitions a side)\n";
  if (!c.only_in_old.empty()) {
    o << "\nonly in the old run:\n";
    for (const auto& n : c.only_in_old) o << "  " << n << "\n";
  }
  if (!c.only_in_new.empty()) {
    o << "\nonly in the new run:\n";
    for (const auto& n : c.only_in_new) o << "  " << n << "\n";
  }
  return o.str();
}

}  // namespace perflab
