// The axes of a run's chart: ranges, ticks, formats, titles and fonts (chart_axes.h).
#include "charts/chart_axes.h"
#include "common/figure_format.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include <QCategoryAxis>
#include <QFont>
#include <QStringList>
#include <QValueAxis>

#include "common/latency_spectrum.h"
#include "qt_text/qt_text.h"

namespace perflab::charts {

// x of a numeric point: Point::x, else its label read as a number, else its index.
double x_of(const Point& p, std::size_t index) {
  if (p.x) return *p.x;
  bool ok = false;
  double v = QString::fromStdString(p.label).toDouble(&ok);
  return ok ? v : static_cast<double>(index);
}

namespace {

LogRange log_range(const std::vector<double>& values, bool has_nonpositive, double room) {
  double minpos = std::numeric_limits<double>::infinity();
  double maxv = 0;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    if (v > 0) minpos = std::min(minpos, v);
    maxv = std::max(maxv, v);
  }
  LogRange r;
  if (!std::isfinite(minpos)) {  // nothing positive at all
    r.min = 0.1;
    r.floor = 0.2;
    r.max = 10;
    return r;
  }
  double lo = minpos;
  if (has_nonpositive) {
    r.floor = minpos / 2;  // below every positive value, marked as "≤ 0"
    lo = r.floor;
  }
  // Room at both ends: at least `room`, and 6% of the decades shown (as a linear axis pads
  // 6%), so that a point's marker at the top or bottom is never cut by the plot's frame.
  room = std::max(room, std::pow(std::max(maxv, lo) / lo, 0.06));
  r.min = lo / room;
  r.max = maxv * room;
  if (r.max <= r.min * 1.5) r.min /= 2, r.max *= 2;  // one value: a readable span around it
  return r;
}

// One number format for every label of an axis: plain numbers with the decimals the smallest
// needs, or, when the values reach a million or go below 0.01, SI prefixes (20k, 1.5M, 500µ).
std::function<QString(double)> axis_format(const std::vector<double>& ticks) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  int decimals = 0;
  for (double t : ticks) {
    lo = std::min(lo, std::abs(t));
    hi = std::max(hi, std::abs(t));
    for (int d = 0; d <= 2; ++d)
      if (std::abs(t * std::pow(10, d) - std::round(t * std::pow(10, d))) <
          1e-9 * std::max(1.0, t)) {
        decimals = std::max(decimals, d);
        break;
      } else if (d == 2) {
        decimals = 2;
      }
  }
  if (hi < 1e6 && lo >= 0.01)
    return [decimals](double v) { return QString::number(v, 'f', decimals); };
  return [](double v) {
    static const std::pair<double, const char*> kPrefixes[] = {
        {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}, {1e-3, "m"}, {1e-6, "µ"}, {1e-9, "n"}};
    for (const auto& [scale, prefix] : kPrefixes)
      if (std::abs(v) >= scale * 0.9999 || scale == 1e-9)
        return QString::number(v / scale, 'g', 3) + QString::fromUtf8(prefix);
    return QString::number(v, 'g', 3);
  };
}

// Ticks of a log axis over [lo, hi]: the given values when there are few (a sweep's x values:
// 1, 2, 4 … 64), else 1-2-5 per decade (or 1 per decade when there are many decades).
std::vector<double> log_ticks(double lo, double hi, std::vector<double> at_values) {
  std::sort(at_values.begin(), at_values.end());
  at_values.erase(std::unique(at_values.begin(), at_values.end()), at_values.end());
  std::erase_if(at_values, [&](double v) { return !(v > 0) || v < lo || v > hi; });
  if (!at_values.empty() && at_values.size() <= 12) return at_values;
  std::vector<double> out;
  // No tick at the very ends: half its label would stand beyond the plot, over the chart's
  // title or the other axis's first label.
  const double edge = std::pow(hi / lo, 0.03);
  const double first = lo * edge, last = hi / edge;
  const int d0 = static_cast<int>(std::floor(std::log10(lo)));
  const int d1 = static_cast<int>(std::ceil(std::log10(hi)));
  for (std::vector<double> steps : {std::vector<double>{1, 2, 5}, {1}}) {
    out.clear();
    for (int d = d0; d <= d1; ++d)
      for (double m : steps) {
        const double v = m * std::pow(10.0, d);
        if (v >= first && v <= last) out.push_back(v);
      }
    if (out.size() <= 10) break;
  }
  if (out.size() < 2) {  // less than a decade: the ends and between
    out.clear();
    for (int i = 0; i <= 4; ++i) out.push_back(lo * std::pow(hi / lo, (i + 0.5) / 5.0));
  }
  return out;
}

// A log axis: values are drawn at log10(v) on a linear axis whose labels sit at the ticks and
// read as the values (Qt's own log axis labels whole decades only).
QAbstractAxis* make_log_axis(double lo, double hi, const std::vector<double>& ticks,
                             const ChartOptions& opts) {
  auto* a = new QCategoryAxis;
  a->setRange(std::log10(lo), std::log10(hi));
  a->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  const auto format = axis_format(ticks);
  for (double t : ticks) a->append(format(t), std::log10(t));
  a->setProperty("perflab_log", true);
  style_axis(a, opts);
  return a;
}

QAbstractAxis* make_linear_axis(double lo, double hi, const ChartOptions& opts) {
  auto* a = new QValueAxis;
  a->setRange(lo, hi);
  a->applyNiceNumbers();
  if (lo >= 0 && a->min() < 0) a->setMin(0);  // a quantity that cannot be negative
  // Whole numbers up to millions read better than 1.5e+06; beyond that (or below 1) %g.
  double span = std::max(std::abs(a->min()), std::abs(a->max()));
  double step = (a->max() - a->min()) / std::max(1, a->tickCount() - 1);
  a->setLabelFormat(span >= 10 && span < 1e7 && step >= 1 ? "%.0f" : "%g");
  style_axis(a, opts);
  return a;
}

void linear_range(const std::vector<double>& values, double& lo, double& hi) {
  lo = 0, hi = 0;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (hi == lo) hi = lo + 1;
  double pad = (hi - lo) * 0.06;
  if (hi > 0) hi += pad;
  if (lo < 0) lo -= pad;
}

// An axis title: "unit, log scale, extra". With `wrap` (large fonts) the extra goes on a line
// of its own, so that a short axis does not cut it ("req/s, log scale, higher is …").
QString axis_title(const QString& text, bool log, const char* extra = nullptr, bool wrap = false) {
  QStringList parts;
  if (!text.isEmpty()) parts << text.toHtmlEscaped();
  if (log) parts << QStringLiteral("log scale");
  QString title = parts.join(QStringLiteral(", "));
  if (extra && *extra)
    title += (title.isEmpty() ? QString()
              : wrap          ? QStringLiteral("<br>")
                              : QStringLiteral(", ")) +
             QString::fromUtf8(extra);
  return title;
}

}  // namespace

double axis_label_points(const ChartOptions& opts) {
  // Read from the back of a room: 20 pt and more; both times the window's zoom (Ctrl +/-).
  return (opts.presentation ? 20 : 9) * opts.font_scale;
}

double axis_title_points(const ChartOptions& opts) {
  return (opts.presentation ? 24 : 10) * opts.font_scale;
}

void style_axis(QAbstractAxis* axis, const ChartOptions& opts) {
  QFont labels = axis->labelsFont();
  labels.setPointSizeF(axis_label_points(opts));
  axis->setLabelsFont(labels);
  QFont title = axis->titleFont();
  title.setPointSizeF(axis_title_points(opts));
  title.setBold(true);
  axis->setTitleFont(title);
  // A label is never cut to "…": Qt Charts truncates value labels against a width it measured
  // before a zoomed font, leaving a log axis of "…" (the layout makes the room instead).
  axis->setTruncateLabels(false);
}

// The interval of a point worth drawing: one with an interval of some width.
const Estimate* interval_of(const Point& p) {
  const Estimate& e = p.median_ci;
  return e.has_interval() && e.hi > e.lo ? &e : nullptr;
}

double ValueAxis::at(double v) const {
  if (percentile) return std::log10(spectrum_position(v));
  return log ? std::log10(clamps(v) ? range.floor : v) : v;
}

namespace {

// The y axis's title: what it shows (Group::y_label), else the unit and the better direction.
// The parts of a stack are shares of a whole, with no better direction of their own.
QString y_title(const Group& g, bool log, const ChartOptions& opts) {
  if (!g.y_label.empty()) return axis_title(q(g.y_label), log);
  if (g.stacked) return axis_title(QString::fromStdString(unit_text(g.unit)), log);
  return axis_title(QString::fromStdString(unit_text(g.unit)), log,
                    g.lower_is_better ? "lower is better" : "higher is better", opts.presentation);
}

}  // namespace

ValueAxis make_y_axis(const Group& g, const std::vector<const Series*>& series,
                      const ChartOptions& opts, const std::vector<double>& more) {
  std::vector<double> ys = more;
  ValueAxis y;
  // The parts of a stack add up on a linear axis only.
  y.log = !g.stacked && opts.log_y.value_or(g.log_y);
  std::map<std::string, double> stacks;  // a stacked group's axis reaches the tallest stack
  for (const auto* s : series)
    for (const auto& p : s->points) {
      if (g.stacked)
        stacks[p.label] += p.stats.median;
      else
        ys.push_back(p.stats.median);
      if (!(p.stats.median > 0)) y.nonpositive = true;
      // A part of a stack has no bar of its own to carry its interval: no error bars there.
      if (const Estimate* e = opts.error_bars && !g.stacked ? interval_of(p) : nullptr) {
        ys.push_back(e->hi);
        if (e->lo > 0 || !y.log) ys.push_back(e->lo);  // an end ≤ 0 stops at the log floor
      }
    }
  if (y.log) {
    y.range = log_range(ys, y.nonpositive, 1.25);
    y.axis = make_log_axis(y.range.min, y.range.max, log_ticks(y.range.min, y.range.max, {}), opts);
  } else if (g.unit == "%") {
    y.axis = make_linear_axis(0, 100, opts);  // a share reads against the whole
  } else if (g.stacked) {
    // From 0 to the tallest stack, no padding: a stack of shares ends at 100 on the axis's
    // last line, not below an empty 100–150 (rounded to 9 digits: parts that add up to 100
    // in floating point may overshoot it by 1e-14).
    double top = 0;
    for (const auto& [label, height] : stacks) top = std::max(top, height);
    const double scale = top > 0 ? std::pow(10.0, 8 - std::floor(std::log10(top))) : 1.0;
    y.axis = make_linear_axis(0, top > 0 ? std::round(top * scale) / scale : 1.0, opts);
  } else {
    double lo, hi;
    linear_range(ys, lo, hi);
    y.axis = make_linear_axis(lo, hi, opts);
  }
  y.axis->setTitleText(y_title(g, y.log, opts));
  return y;
}

namespace {

// HdrHistogram's percentile axis: percentile p at log10(1 / (1 - p)), from 0% when a curve
// starts there (else room before the first point), past the last point or curve; a tick at
// 50% and at each nine (90%, 99%, 99.9% …) within the range, and none between them.
ValueAxis spectrum_axis(const Group& g, const std::vector<double>& xs, double reach_percent,
                        const ChartOptions& opts) {
  ValueAxis x;
  x.log = x.percentile = true;
  const double lo = spectrum_position(*std::min_element(xs.begin(), xs.end()));
  const double hi =
      spectrum_position(std::max(reach_percent, *std::max_element(xs.begin(), xs.end())));
  const double room = std::pow(10.0, 0.04 * std::max(1.0, std::log10(hi / lo)));
  x.range.min = reach_percent > 0 ? 1.0 : lo / room;  // a curve starts at 0%
  x.range.max = hi * room;
  auto* a = new QCategoryAxis;
  a->setRange(std::log10(x.range.min), std::log10(x.range.max));
  a->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  const auto tick = [&](double percent, double at) {
    if (at > std::log10(x.range.min) && at < std::log10(x.range.max))
      a->append(QString::fromStdString(spectrum_label(percent)), at);
  };
  tick(50, std::log10(2.0));
  for (int nines = 1; nines <= 9; ++nines)
    tick(100.0 * (1.0 - std::pow(10.0, -nines)), static_cast<double>(nines));
  a->setProperty("perflab_log", true);
  a->setProperty("perflab_percentile", true);
  style_axis(a, opts);
  a->setTitleText(g.x_label.empty() ? QStringLiteral("percentile") : q(g.x_label).toHtmlEscaped());
  x.axis = a;
  return x;
}

}  // namespace

// The x axis of a numeric group: Point::x of every point and of every marker.
ValueAxis make_x_axis(const Group& g, const std::vector<const Series*>& series,
                      const ChartOptions& opts, double reach_percent) {
  std::vector<double> xs;
  ValueAxis x;
  x.log = opts.log_x.value_or(g.log_x);
  for (const auto* s : series)
    for (std::size_t i = 0; i < s->points.size(); ++i) xs.push_back(x_of(s->points[i], i));
  for (const auto& m : g.markers)
    if (std::isfinite(m.x) && (m.x > 0 || !x.log)) xs.push_back(m.x);
  if (g.percentile_x &&
      std::all_of(xs.begin(), xs.end(), [](double v) { return v >= 0 && v < 100; }))
    return spectrum_axis(g, xs, reach_percent, opts);
  for (double v : xs)
    if (!(v > 0)) x.nonpositive = true;
  if (x.log) {
    // Room at the ends (4% of the decades): the first value's label clear of the y axis's.
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (double v : xs)
      if (v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
    const double decades = hi > lo ? std::log10(hi / lo) : 0;
    x.range = log_range(xs, x.nonpositive, std::max(1.12, std::pow(10.0, 0.04 * decades)));
    x.axis = make_log_axis(x.range.min, x.range.max, log_ticks(x.range.min, x.range.max, xs), opts);
  } else {
    double lo = *std::min_element(xs.begin(), xs.end());
    double hi = *std::max_element(xs.begin(), xs.end());
    if (hi == lo) hi = lo + 1;
    const double pad = (hi - lo) * 0.03;  // the first and last points whole, not cut in half
    // Sizes, counts and times cannot be negative: the axis of such x starts at 0 at the lowest.
    x.axis = make_linear_axis(lo >= 0 ? std::max(0.0, lo - pad) : lo - pad, hi + pad, opts);
  }
  x.axis->setTitleText(axis_title(q(g.x_label), x.log));
  return x;
}

}  // namespace perflab::charts
