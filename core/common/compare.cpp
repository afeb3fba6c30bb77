#include "common/compare.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace perflab {

namespace {
struct Entry {
  std::string unit;
  double median = 0;
};

std::map<std::string, Entry> entries(const Run& run) {
  std::map<std::string, Entry> out;
  for (const auto& s : run.series) {
    const Group* g = run.group(s.group);
    for (const auto& p : s.points)
      out[s.group + "/" + s.name + "/" + p.label] = {g ? g->unit : "", p.stats.median};
  }
  return out;
}
}  // namespace

Comparison compare_runs(const Run& old_run, const Run& new_run) {
  Comparison c;
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
  std::snprintf(buf, sizeof buf, "%-*s %14s %14s %10s  %s\n", static_cast<int>(width), "benchmark",
                "old", "new", f == CompareFormat::Ratio ? "new/old" : "change", "unit");
  o << buf;
  for (const auto& r : c.rows) {
    if (f == CompareFormat::Ratio)
      std::snprintf(buf, sizeof buf, "%-*s %14.2f %14.2f %10.2f  %s\n", static_cast<int>(width),
                    r.name.c_str(), r.old_value, r.new_value, r.ratio, r.unit.c_str());
    else
      std::snprintf(buf, sizeof buf, "%-*s %14.2f %14.2f %+9.2f%%  %s\n", static_cast<int>(width),
                    r.name.c_str(), r.old_value, r.new_value, r.percent, r.unit.c_str());
    o << buf;
  }
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
