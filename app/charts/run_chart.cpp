#include "charts/run_chart.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <map>

#include <QBarCategoryAxis>
#include <QBarLegendMarker>
#include <QBarSeries>
#include <QBarSet>
#include <QDateTime>
#include <QFont>
#include <QHash>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QSet>
#include <QValueAxis>
#include <QXYLegendMarker>

namespace perflab::charts {

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

std::vector<const Series*> series_of(const Run& run, const std::string& group) {
  std::vector<const Series*> out;
  for (const auto& s : run.series)
    if (s.group == group && !s.points.empty()) out.push_back(&s);
  return out;
}

// x of a numeric point: Point::x, else its label read as a number, else its index.
double x_of(const Point& p, std::size_t index) {
  if (p.x) return *p.x;
  bool ok = false;
  double v = QString::fromStdString(p.label).toDouble(&ok);
  return ok ? v : static_cast<double>(index);
}

// A log axis range and the floor where values ≤ 0 are drawn.
struct LogRange {
  double min = 1, max = 10, floor = 0;
};

// room_below: bars need the axis to start below the smallest value to have any height.
LogRange log_range(const std::vector<double>& values, bool has_nonpositive, bool room_below) {
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
  double decade = std::pow(10.0, std::floor(std::log10(minpos)));
  if (has_nonpositive) {
    r.min = decade / 10;  // one decade below the smallest positive value
    r.floor = r.min * 2;  // drawn above the axis minimum so a bar has height
  } else {
    r.min = decade < minpos * 0.999 || !room_below ? decade : decade / 10;
  }
  r.max = std::pow(10.0, std::ceil(std::log10(maxv)));
  if (r.max <= r.min * 1.0001) r.max = r.min * 10;
  return r;
}

void style_axis(QAbstractAxis* axis, const ChartOptions& opts) {
  QFont labels = axis->labelsFont();
  labels.setPointSizeF(opts.presentation ? 15 : 9);
  axis->setLabelsFont(labels);
  QFont title = axis->titleFont();
  title.setPointSizeF(opts.presentation ? 16 : 10);
  title.setBold(true);
  axis->setTitleFont(title);
}

QAbstractAxis* make_value_axis(bool log, double lo, double hi, const ChartOptions& opts) {
  if (log) {
    auto* a = new QLogValueAxis;
    a->setBase(10);
    a->setLabelFormat("%g");
    a->setMinorTickCount(-1);
    a->setRange(lo, hi);
    style_axis(a, opts);
    return a;
  }
  auto* a = new QValueAxis;
  a->setRange(lo, hi);
  a->applyNiceNumbers();
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

QString axis_title(const QString& text, bool log, const char* extra = nullptr) {
  QStringList parts;
  if (!text.isEmpty()) parts << text;
  if (log) parts << QStringLiteral("log scale");
  if (extra && *extra) parts << QString::fromUtf8(extra);
  return parts.join(QStringLiteral(", "));
}

QScatterSeries* make_nonpositive_series(const ChartOptions& opts, double floor) {
  auto* s = new QScatterSeries;
  s->setName(nonpositive_series_name() + QStringLiteral(" (drawn at %1)").arg(floor, 0, 'g', 3));
  s->setMarkerShape(QScatterSeries::MarkerShapeRotatedRectangle);
  s->setMarkerSize(opts.presentation ? 18 : 13);
  s->setColor(QColor(220, 30, 30));
  s->setBorderColor(Qt::black);
  s->setProperty("perflab_nonpositive", true);
  return s;
}

void remember_brush(QBarSet* set) {
  set->setProperty("perflab_brush", set->brush());
  set->setProperty("perflab_pen", set->pen());
}

void set_barset_hidden(QBarSet* set, bool hidden) {
  if (hidden) {
    set->setBrush(Qt::NoBrush);
    set->setPen(Qt::NoPen);
  } else {
    set->setBrush(set->property("perflab_brush").value<QBrush>());
    set->setPen(set->property("perflab_pen").value<QPen>());
  }
  set->setProperty("perflab_hidden", hidden);
}

// Ten distinct colours (Tableau 10): a theme's five repeat after five series, and two lines of
// one colour (e.g. "direct redis" and "twemproxy") would be read as one.
QColor series_color(int i) {
  static const QRgb kPalette[] = {0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2,
                                  0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
  return QColor(kPalette[static_cast<unsigned>(i) % std::size(kPalette)]);
}

// How a series is drawn: its colour, and whether it is the old side of an overlay (lighter,
// dashed). The two sides of an overlaid series share the hue of the series' own name.
class SeriesStyles {
 public:
  explicit SeriesStyles(const ChartOptions& o) : opts_(o) {}
  struct Style {
    QColor color;
    bool old_side = false;
  };
  Style of(const std::string& name) {
    std::string base = name;
    bool old_side = false;
    auto strip = [&](const std::string& label) {
      const std::string prefix = label + ": ";
      if (label.empty() || base.rfind(prefix, 0) != 0) return false;
      base = base.substr(prefix.size());
      return true;
    };
    if (strip(opts_.overlay_old))
      old_side = true;
    else
      strip(opts_.overlay_new);
    auto [it, added] = index_.emplace(base, static_cast<int>(index_.size()));
    QColor c = series_color(it->second);
    return {old_side ? c.lighter(145) : c, old_side};
  }

 private:
  const ChartOptions& opts_;
  std::map<std::string, int> index_;
};

void dim_marker(QLegendMarker* m, bool hidden) {
  QBrush b = m->labelBrush();
  QColor c = b.color();
  c.setAlphaF(hidden ? 0.4 : 1.0);
  b.setColor(c);
  m->setLabelBrush(b);
  QFont f = m->font();
  f.setStrikeOut(hidden);
  m->setFont(f);
}

// The interval of a point worth drawing: one with an interval of some width.
const Estimate* interval_of(const Point& p) {
  const Estimate& e = p.median_ci;
  return e.has_interval() && e.hi > e.lo ? &e : nullptr;
}

bool is_error_bar(const QAbstractSeries* s) {
  return s->property("perflab_error_bar_of").isValid();
}

// Shows or hides the error bars of a series (by Series::name).
void set_error_bars_visible(QChart& chart, const QString& series, bool visible) {
  for (auto* s : chart.series())
    if (is_error_bar(s) && s->property("perflab_error_bar_of").toString() == series)
      s->setVisible(visible);
}

// An I-beam from lo to hi at x with caps from x_lo to x_hi, as one polyline (a line series
// draws its points in order: the bottom cap, back to the middle, up, the top cap).
struct ErrorBar {
  double x_lo, x, x_hi, lo, hi;
};
void add_error_bar(QChart& chart, const QString& series, const ErrorBar& b, QAbstractAxis* xaxis,
                   QAbstractAxis* yaxis, const ChartOptions& opts) {
  auto* s = new QLineSeries;
  s->append(
      {{b.x_lo, b.lo}, {b.x_hi, b.lo}, {b.x, b.lo}, {b.x, b.hi}, {b.x_lo, b.hi}, {b.x_hi, b.hi}});
  s->setProperty("perflab_error_bar_of", series);
  chart.addSeries(s);
  s->attachAxis(xaxis);
  s->attachAxis(yaxis);
  QPen pen(error_bar_color());
  pen.setWidthF(opts.presentation ? 2.5 : 1.5);
  pen.setCapStyle(Qt::FlatCap);
  s->setPen(pen);
  for (auto* m : chart.legend()->markers(s)) m->setVisible(false);
  if (opts.hidden_series.count(series.toStdString())) s->setVisible(false);
}

// ---- build_chart, phase by phase ----

// An empty chart with the options' theme, fonts and legend.
std::unique_ptr<QChart> new_chart(const ChartOptions& opts) {
  auto chart = std::make_unique<QChart>();
  chart->setTheme(opts.theme);
  chart->setAnimationOptions(opts.animations ? QChart::SeriesAnimations : QChart::NoAnimation);
  chart->setBackgroundRoundness(0);
  chart->setDropShadowEnabled(false);
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->legend()->setShowToolTips(true);
  QFont f = chart->legend()->font();
  f.setPointSizeF(opts.presentation ? 15 : 9);
  chart->legend()->setFont(f);
  QFont t = chart->titleFont();
  t.setPointSizeF(opts.presentation ? 22 : 13);
  t.setBold(true);
  chart->setTitleFont(t);
  return chart;
}

// An axis of values, linear or log; on a log axis values ≤ 0 are drawn at a floor.
struct ValueAxis {
  QAbstractAxis* axis = nullptr;
  bool log = false;
  bool nonpositive = false;  // some value ≤ 0
  LogRange range;            // when log
  bool clamps(double v) const { return log && !(v > 0); }
  double at(double v) const { return clamps(v) ? range.floor : v; }
};

// The y axis of a group: the points' medians.
ValueAxis make_y_axis(const Group& g, const std::vector<const Series*>& series,
                      const ChartOptions& opts) {
  std::vector<double> ys;
  ValueAxis y;
  y.log = opts.log_y;
  for (const auto* s : series)
    for (const auto& p : s->points) {
      ys.push_back(p.stats.median);
      if (!(p.stats.median > 0)) y.nonpositive = true;
      if (const Estimate* e = opts.error_bars ? interval_of(p) : nullptr) {
        ys.push_back(e->hi);
        if (e->lo > 0 || !y.log) ys.push_back(e->lo);  // an end ≤ 0 stops at the log floor
      }
    }
  if (y.log) {
    y.range = log_range(ys, y.nonpositive, true);
    y.axis = make_value_axis(true, y.range.min, y.range.max, opts);
  } else {
    double lo, hi;
    linear_range(ys, lo, hi);
    y.axis = make_value_axis(false, lo, hi, opts);
  }
  y.axis->setTitleText(axis_title(unit_text(g.unit), y.log,
                                  g.lower_is_better ? "lower is better" : "higher is better"));
  return y;
}

void attach(QChart& chart, QAbstractSeries* s, QAbstractAxis* x, QAbstractAxis* y) {
  chart.addSeries(s);
  s->attachAxis(x);
  s->attachAxis(y);
}

// Grouped bars: categories = point labels in first-seen order, one bar set per series.
void add_bars(QChart& chart, const Group& g, const std::vector<const Series*>& series,
              const ValueAxis& y, const ChartOptions& opts, ChartFacts& f) {
  QStringList categories;
  QSet<QString> seen;
  for (const auto* s : series)
    for (const auto& p : s->points)
      if (!seen.contains(q(p.label))) {
        seen.insert(q(p.label));
        categories << q(p.label);
      }
  auto* bars = new QBarSeries;
  bars->setProperty("perflab_group", q(g.id));
  QScatterSeries* marks = nullptr;
  const int nsets = static_cast<int>(series.size());
  for (int si = 0; si < nsets; ++si) {
    const Series* s = series[si];
    auto* set = new QBarSet(q(s->name));
    set->setProperty("perflab_group", q(g.id));
    set->setProperty("perflab_series", q(s->name));
    QHash<QString, const Point*> by_label;  // the last point of a label, as drawn before
    for (const auto& pt : s->points) by_label.insert(q(pt.label), &pt);
    for (int ci = 0; ci < categories.size(); ++ci) {
      const Point* p = by_label.value(categories[ci], nullptr);
      if (!p) {  // no point in this category: an empty bar
        set->append(y.log ? y.range.min : 0.0);
        continue;
      }
      set->append(y.at(p->stats.median));
      if (y.clamps(p->stats.median)) {
        if (!marks) marks = make_nonpositive_series(opts, y.range.floor);
        // Centre of this set's bar inside the category (bar width 0.5 of the category).
        double width = bars->barWidth();
        marks->append(ci - width / 2 + (si + 0.5) * width / nsets, y.range.floor);
        ++f.clamped_points;
      }
    }
    bars->append(set);
  }
  chart.addSeries(bars);
  auto* xaxis = new QBarCategoryAxis;
  xaxis->append(categories);
  xaxis->setTruncateLabels(false);  // "10 concurrent writers" fits its category
  if (!g.x_label.empty()) xaxis->setTitleText(q(g.x_label));
  style_axis(xaxis, opts);
  chart.addAxis(xaxis, Qt::AlignBottom);
  chart.addAxis(y.axis, Qt::AlignLeft);
  bars->attachAxis(xaxis);
  bars->attachAxis(y.axis);
  if (opts.error_bars) {
    const double width = bars->barWidth();
    for (int si = 0; si < nsets; ++si)
      for (const auto& p : series[si]->points)
        if (const Estimate* e = interval_of(p)) {
          const double cx = categories.indexOf(q(p.label)) - width / 2 + (si + 0.5) * width / nsets;
          const double cap = width / nsets / 6;
          add_error_bar(chart, q(series[si]->name),
                        {cx - cap, cx, cx + cap, y.at(e->lo), y.at(e->hi)}, xaxis, y.axis, opts);
          ++f.error_bars;
        }
  }
  if (marks) attach(chart, marks, xaxis, y.axis);
  SeriesStyles styles(opts);
  for (auto* set : bars->barSets()) {
    const auto style = styles.of(set->label().toStdString());
    set->setColor(style.color);
    set->setBorderColor(style.old_side ? style.color.darker(130) : style.color);
    remember_brush(set);
    if (opts.hidden_series.count(set->label().toStdString())) set_barset_hidden(set, true);
  }
}

// The x axis of a numeric group: Point::x of every point.
ValueAxis make_x_axis(const Group& g, const std::vector<const Series*>& series,
                      const ChartOptions& opts) {
  std::vector<double> xs;
  ValueAxis x;
  x.log = opts.log_x;
  for (const auto* s : series)
    for (std::size_t i = 0; i < s->points.size(); ++i) {
      xs.push_back(x_of(s->points[i], i));
      if (!(xs.back() > 0)) x.nonpositive = true;
    }
  if (x.log) {
    x.range = log_range(xs, x.nonpositive, false);
    x.axis = make_value_axis(true, x.range.min, x.range.max, opts);
  } else {
    double lo = *std::min_element(xs.begin(), xs.end());
    double hi = *std::max_element(xs.begin(), xs.end());
    if (hi == lo) hi = lo + 1;
    x.axis = make_value_axis(false, lo, hi, opts);
  }
  x.axis->setTitleText(axis_title(q(g.x_label), x.log));
  return x;
}

// The error bars of a line's points; caps a fixed share of the x axis wide (of its decades on a
// log axis).
void add_line_error_bars(QChart& chart, const Series& s,
                         const std::vector<std::pair<double, const Point*>>& pts,
                         const ValueAxis& x, const ValueAxis& y, const ChartOptions& opts,
                         ChartFacts& f) {
  for (const auto& [px, p] : pts) {
    const Estimate* e = interval_of(*p);
    if (!e) continue;
    const double at = x.at(px);
    double lo_x = at, hi_x = at;
    if (x.log) {
      const double factor = std::pow(x.range.max / x.range.min, 0.006);
      lo_x = at / factor, hi_x = at * factor;
    } else {
      auto* axis = static_cast<QValueAxis*>(x.axis);
      const double half = (axis->max() - axis->min()) * 0.006;
      lo_x = at - half, hi_x = at + half;
    }
    add_error_bar(chart, q(s.name), {lo_x, at, hi_x, y.at(e->lo), y.at(e->hi)}, x.axis, y.axis,
                  opts);
    ++f.error_bars;
  }
}

// One line with markers per series, points in x order.
void add_lines(QChart& chart, const Group& g, const std::vector<const Series*>& series,
               const ValueAxis& y, const ChartOptions& opts, ChartFacts& f) {
  const ValueAxis x = make_x_axis(g, series, opts);
  chart.addAxis(x.axis, Qt::AlignBottom);
  chart.addAxis(y.axis, Qt::AlignLeft);
  QScatterSeries* marks = nullptr;
  std::vector<std::pair<const Series*, std::vector<std::pair<double, const Point*>>>> lines;
  SeriesStyles styles(opts);
  for (const auto* s : series) {
    std::vector<std::pair<double, const Point*>> pts;
    for (std::size_t i = 0; i < s->points.size(); ++i)
      pts.emplace_back(x_of(s->points[i], i), &s->points[i]);
    std::stable_sort(pts.begin(), pts.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    auto* line = new QLineSeries;
    line->setName(q(s->name));
    line->setProperty("perflab_group", q(g.id));
    line->setProperty("perflab_series", q(s->name));
    QStringList labels;
    for (const auto& [px, p] : pts) {
      bool clamp_x = x.clamps(px);
      bool clamp_y = y.clamps(p->stats.median);
      QPointF at(x.at(px), y.at(p->stats.median));
      line->append(at);
      labels << q(p->label);
      if (clamp_x || clamp_y) {
        if (!marks) marks = make_nonpositive_series(opts, clamp_y ? y.range.floor : x.range.floor);
        marks->append(at);
        ++f.clamped_points;
      }
    }
    line->setProperty("perflab_labels", labels);
    line->setPointsVisible(true);
    line->setMarkerSize(opts.presentation ? 11 : 7);
    chart.addSeries(line);
    QPen pen = line->pen();
    const auto style = styles.of(s->name);
    pen.setColor(style.color);
    pen.setWidthF(opts.presentation ? 3.5 : 2);
    if (style.old_side) pen.setStyle(Qt::DashLine);
    line->setPen(pen);
    line->attachAxis(x.axis);
    line->attachAxis(y.axis);
    if (opts.hidden_series.count(s->name)) line->setVisible(false);
    lines.emplace_back(s, std::move(pts));
  }
  // After every line, so that the legend's first markers are the lines'.
  if (opts.error_bars)
    for (const auto& [s, pts] : lines) add_line_error_bars(chart, *s, pts, x, y, opts, f);
  if (marks) attach(chart, marks, x.axis, y.axis);
  if (x.log && x.nonpositive) f.floor = x.range.floor;
}

// Hidden series keep a dimmed, struck-out legend entry.
void dim_hidden_markers(QChart& chart) {
  for (auto* m : chart.legend()->markers()) {
    auto* s = m->series();
    if (auto* bm = qobject_cast<QBarLegendMarker*>(m)) {
      if (bm->barset()->property("perflab_hidden").toBool()) dim_marker(m, true);
    } else if (s && !s->isVisible() && !is_error_bar(s)) {
      m->setVisible(true);
      dim_marker(m, true);
    }
  }
}

}  // namespace

QString unit_text(const std::string& unit) {
  static const QRegularExpression micro(QStringLiteral("\\bus\\b"));
  return QString::fromStdString(unit).replace(micro, QStringLiteral("µs"));
}

QString nonpositive_series_name() {
  return QStringLiteral("values ≤ 0");
}

std::vector<std::string> chart_groups(const Run& run) {
  std::vector<std::string> out;
  for (const auto& g : run.groups)
    if (!series_of(run, g.id).empty()) out.push_back(g.id);
  return out;
}

std::unique_ptr<QChart> build_chart(const Run& run, const std::string& group_id,
                                    const ChartOptions& opts, ChartFacts* facts) {
  const Group* g = run.group(group_id);
  if (!g) throw ChartError("the run has no group '" + group_id + "'");
  const auto series = series_of(run, group_id);
  auto chart = new_chart(opts);
  ChartFacts local;
  ChartFacts& f = facts ? *facts : local;
  f = {};
  const ValueAxis y = make_y_axis(*g, series, opts);
  if (g->numeric_x)
    add_lines(*chart, *g, series, y, opts, f);
  else
    add_bars(*chart, *g, series, y, opts, f);
  QString note;
  if (f.clamped_points > 0) {
    if (y.log && y.nonpositive) f.floor = y.range.floor;
    note = QStringLiteral(" (%1 ≤ 0 at floor)").arg(f.clamped_points);
  }
  chart->setTitle(q(g->title) + opts.title_suffix + note);
  dim_hidden_markers(*chart);
  return chart;
}

QColor error_bar_color() {
  return QColor(25, 25, 25);
}

void enable_legend_toggles(QChart* chart) {
  for (auto* m : chart->legend()->markers()) {
    QObject::connect(m, &QLegendMarker::clicked, m, [m, chart] {
      if (auto* bm = qobject_cast<QBarLegendMarker*>(m)) {
        QBarSet* set = bm->barset();
        bool hidden = !set->property("perflab_hidden").toBool();
        set_barset_hidden(set, hidden);
        set_error_bars_visible(*chart, set->property("perflab_series").toString(), !hidden);
        dim_marker(m, hidden);
        return;
      }
      QAbstractSeries* s = m->series();
      if (!s) return;
      bool hidden = s->isVisible();
      s->setVisible(!hidden);
      set_error_bars_visible(*chart, s->property("perflab_series").toString(), !hidden);
      m->setVisible(true);  // hiding a series hides its marker: keep it to click again
      dim_marker(m, hidden);
    });
  }
}

std::set<std::string> hidden_series(const QChart* chart) {
  std::set<std::string> out;
  for (auto* s : chart->series()) {
    if (auto* bars = qobject_cast<QBarSeries*>(s)) {
      for (auto* set : bars->barSets())
        if (set->property("perflab_hidden").toBool())
          out.insert(set->property("perflab_series").toString().toStdString());
    } else if (!s->isVisible() && s->property("perflab_series").isValid()) {
      out.insert(s->property("perflab_series").toString().toStdString());
    }
  }
  return out;
}

Run overlay_runs(const Run& a, const std::string& label_a, const Run& b,
                 const std::string& label_b) {
  Run out = b;
  out.series.clear();
  for (const auto& g : a.groups) out.ensure_group(g);  // groups only the old run has
  auto add = [&](const Run& r, const std::string& label) {
    for (const auto& s : r.series) {
      Series copy = s;
      copy.name = label + ": " + s.name;
      out.series.push_back(std::move(copy));
    }
  };
  add(a, label_a);
  add(b, label_b);
  return out;
}

QString run_description(const Run& run) {
  QString params;
  for (const auto& [k, v] : run.params) {
    if (!params.isEmpty()) params += QStringLiteral("; ");
    params += q(k) + "=" + q(v);
  }
  QString when;
  if (run.started_unix_ms > 0)
    when = QDateTime::fromMSecsSinceEpoch(run.started_unix_ms, Qt::UTC)
               .toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'"));
  QString d = QStringLiteral("Perflab %1").arg(q(run.experiment));
  if (!params.isEmpty()) d += QStringLiteral(" — ") + params;
  d += QStringLiteral(" — ") + QString::fromLatin1(to_string(run.status));
  if (!when.isEmpty()) d += " " + when;
  return d;
}

}  // namespace perflab::charts
