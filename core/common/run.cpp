#include "common/run.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <thread>

#include "common/figure_format.h"

namespace perflab {

std::string precision_text(const PointPrecision& p) {
  std::string rule = p.by_precision && p.by_verdicts ? "precision and verdicts"
                     : p.by_verdicts                 ? "verdicts"
                                                     : "precision";
  std::string out = std::to_string(p.rounds) + " repetitions; " + rule +
                    (p.reached ? " reached" : " not reached");
  if (p.by_precision) out += " (±" + format_percent(p.worst_half_width) + ")";
  return out;
}

const char* to_string(RunStatus s) {
  switch (s) {
    case RunStatus::Running:
      return "running";
    case RunStatus::Finished:
      return "finished";
    case RunStatus::Failed:
      return "failed";
    case RunStatus::Cancelled:
      return "cancelled";
  }
  return "?";
}

RunStatus run_status_from_string(const std::string& s) {
  if (s == "running") return RunStatus::Running;
  if (s == "finished") return RunStatus::Finished;
  if (s == "failed") return RunStatus::Failed;
  if (s == "cancelled") return RunStatus::Cancelled;
  throw std::invalid_argument("unknown run status '" + s + "'");
}

const Group* Run::group(const std::string& id) const {
  auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.id == id; });
  return it == groups.end() ? nullptr : &*it;
}

bool opens_on_log_x(const Run& run, const Group& g) {
  if (!g.numeric_x) return false;
  if (g.log_x) return true;
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& s : run.series)
    if (s.group == g.id)
      for (const auto& p : s.points) {
        double x = 0;
        if (p.x) {
          x = *p.x;
        } else {
          char* end = nullptr;
          x = std::strtod(p.label.c_str(), &end);
          if (end == p.label.c_str()) return false;  // not a number: drawn at its index
        }
        if (!(x > 0) || !std::isfinite(x)) return false;
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
  return std::isfinite(lo) && hi >= 100 * lo;
}

Group& Run::ensure_group(const Group& g) {
  auto it =
      std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.id == g.id; });
  if (it != groups.end()) return *it;
  groups.push_back(g);
  return groups.back();
}

Series& Run::series_for(const std::string& group_id, const std::string& name) {
  auto it = std::find_if(series.begin(), series.end(),
                         [&](const Series& s) { return s.group == group_id && s.name == name; });
  if (it != series.end()) return *it;
  series.push_back(Series{group_id, name, {}});
  return series.back();
}

const Series* Run::find_series(const std::string& group_id, const std::string& name) const {
  auto it = std::find_if(series.begin(), series.end(),
                         [&](const Series& s) { return s.group == group_id && s.name == name; });
  return it == series.end() ? nullptr : &*it;
}

const Point* Run::find_point(const std::string& group_id, const std::string& s,
                             const std::string& label) const {
  const Series* ser = find_series(group_id, s);
  if (!ser) return nullptr;
  auto it = std::find_if(ser->points.begin(), ser->points.end(),
                         [&](const Point& p) { return p.label == label; });
  return it == ser->points.end() ? nullptr : &*it;
}

void summarize_samples(Point& p) {
  if (p.samples.empty()) {
    p.median_ci = Estimate{p.stats.median, p.stats.median, p.stats.median};
    p.cv = coefficient_of_variation(p.stats);
    p.outliers = {};
    return;
  }
  PointSummary s = summarize_point(p.samples);
  p.stats = s.stats;
  p.median_ci = s.median;
  p.cv = s.cv;
  p.outliers = s.outliers;
}

Point& Run::add_point(const std::string& group_id, const std::string& s, Point p) {
  summarize_samples(p);
  auto& ser = series_for(group_id, s);
  ser.points.push_back(std::move(p));
  return ser.points.back();
}

namespace {
std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(' '));
        return v;
      }
    }
  }
  return "unknown";
}
}  // namespace

const char* perflab_version() {
  return PERFLAB_VERSION;
}

HostInfo current_host() {
  HostInfo h;
  h.cpu_model = cpu_model();
  h.cores = static_cast<int>(std::thread::hardware_concurrency());
  utsname u{};
  if (uname(&u) == 0) {
    h.kernel = std::string(u.sysname) + " " + u.release;
    h.hostname = u.nodename;
  }
  h.perflab_version = perflab_version();
#ifdef NDEBUG
  h.build_type = "optimised";
#else
  h.build_type = "debug";
#endif
#if defined(__SANITIZE_ADDRESS__)
  h.build_type += "+asan";
#endif
  return h;
}

std::int64_t unix_us_now() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

std::int64_t unix_ms_now() {
  return unix_us_now() / 1000;
}

}  // namespace perflab
