// The CSV export of a run (run_to_csv): one row per point, its statistics and extra figures.
#include "common/run_io.h"

#include <set>
#include <sstream>

namespace perflab {

namespace {
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string num(double v) {
  std::ostringstream o;
  o.precision(10);
  o << v;
  return o.str();
}
}  // namespace

std::string run_to_csv(const Run& run) {
  std::set<std::string> extra_keys;
  for (const auto& s : run.series)
    for (const auto& p : s.points)
      for (const auto& [k, v] : p.extra) extra_keys.insert(k);
  std::ostringstream o;
  o << "group,series,label,x,unit,n,min,median,mean,p95,max,stddev,ci_lo,ci_hi,ci_level,cv";
  for (const auto& k : extra_keys) o << "," << csv_field(k);
  o << "\n";
  for (const auto& s : run.series) {
    const Group* g = run.group(s.group);
    for (const auto& p : s.points) {
      o << csv_field(s.group) << "," << csv_field(s.name) << "," << csv_field(p.label) << ","
        << (p.x ? num(*p.x) : "") << "," << csv_field(g ? g->unit : "") << "," << p.stats.n << ","
        << num(p.stats.min) << "," << num(p.stats.median) << "," << num(p.stats.mean) << ","
        << num(p.stats.p95) << "," << num(p.stats.max) << "," << num(p.stats.stddev) << ",";
      if (p.median_ci.has_interval())
        o << num(p.median_ci.lo) << "," << num(p.median_ci.hi) << "," << num(p.median_ci.level);
      else
        o << ",,";
      o << "," << num(p.cv);
      for (const auto& k : extra_keys) {
        auto it = p.extra.find(k);
        o << "," << (it == p.extra.end() ? "" : num(it->second));
      }
      o << "\n";
    }
  }
  return o.str();
}

}  // namespace perflab
