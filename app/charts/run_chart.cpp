// A Run's group as a QChart, phase by phase (run_chart.h); the legend's toggles are
// legend_toggles.cpp.
#include "charts/run_chart.h"

#include "charts/relative_chart.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <functional>
#include <limits>
#include <map>

#include <QBarCategoryAxis>
#include <QBarLegendMarker>
#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QDateTime>
#include <QFont>
#include <QFontMetricsF>
#include <QHash>
#include <QHorizontalStackedBarSeries>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QScatterSeries>
#include <QSet>
#include <QValueAxis>
#include <QXYLegendMarker>
#include <QXYSeries>

#include "charts/axis_marker.h"
#include "charts/bar_values.h"
#include "charts/chart_axes.h"
#include "charts/chart_labels.h"
#include "charts/legend_toggles.h"
#include "charts/line_decimation.h"
#include "charts/spectrum_chart.h"
#include "common/figure_format.h"
#include "qt_text/qt_text.h"

namespace perflab::charts {

namespace {

std::vector<const Series*> series_of(const Run& run, const std::string& group) {
  std::vector<const Series*> out;
  for (const auto& s : run.series)
    if (s.group == group && !s.points.empty()) out.push_back(&s);
  return out;
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

// Tableau 10 (a theme's five repeat after five series: two lines of one colour are read as
// one), then three more: the iolist append group has twelve series that should not share one.
QColor series_color(int i) {
  static const QRgb kPalette[] = {0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2,
                                  0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac,
                                  0x17becf, 0x3d3d3d, 0xbcbd22};
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

// The error bars of one series as one item over the plot area, drawn on `anchor`'s axes (none
// when no point has an interval).
void add_error_bars(QChart& chart, QAbstractSeries* anchor, const std::string& series,
                    std::vector<ErrorBar> bars, const ChartOptions& opts, ChartFacts& f) {
  if (bars.empty()) return;
  f.error_bars += static_cast<int>(bars.size());
  QPen pen(error_bar_color(opts.theme));
  pen.setWidthF(opts.presentation ? 2.5 : 1.5);
  pen.setCapStyle(Qt::FlatCap);
  auto* item = new ErrorBars(chart, anchor, q(series), pen, std::move(bars));
  if (opts.hidden_series.count(series)) item->setVisible(false);
}

// Where series `si` of `n` sits in category `ci`: n slots side by side across `width` of the
// category, as grouped bars are drawn.
double slot_x(int ci, int si, int n, double width) {
  return ci - width / 2 + (si + 0.5) * width / n;
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
  f.setPointSizeF((opts.presentation ? 20 : 9) * opts.font_scale);
  chart->legend()->setFont(f);
  QFont t = chart->titleFont();
  t.setPointSizeF((opts.presentation ? 26 : 13) * opts.font_scale);
  t.setBold(true);
  chart->setTitleFont(t);
  return chart;
}

void attach(QChart& chart, QAbstractSeries* s, QAbstractAxis* x, QAbstractAxis* y) {
  chart.addSeries(s);
  s->attachAxis(x);
  s->attachAxis(y);
}

// A category axis for labels (first-seen order), on the chart's bottom edge.
QBarCategoryAxis* category_axis(QChart& chart, const Group& g, const QStringList& categories,
                                const ChartOptions& opts) {
  auto* xaxis = new QBarCategoryAxis;
  xaxis->append(categories);
  xaxis->setTruncateLabels(false);  // "10 concurrent writers" fits its category
  if (!g.x_label.empty()) xaxis->setTitleText(q(g.x_label));
  style_axis(xaxis, opts);
  chart.addAxis(xaxis, Qt::AlignBottom);
  fit_category_labels(chart, xaxis, opts);
  return xaxis;
}

// The I-beams of a categorical series: at the centre of its slot in each point's category.
std::vector<ErrorBar> category_error_bars(const Series& s, int si, int n, double width,
                                          const QHash<QString, int>& index, const ValueAxis& y) {
  std::vector<ErrorBar> out;
  const double cap = width / n / 6;
  for (const auto& p : s.points)
    if (const Estimate* e = interval_of(p)) {
      const double cx = slot_x(index.value(q(p.label)), si, n, width);
      out.push_back({cx - cap, cx, cx + cap, y.at(e->lo), y.at(e->hi)});
    }
  return out;
}

// On a log axis a bar's length would start from an arbitrary floor: each series is a row of
// points instead, side by side inside each category as bars would be.
void add_category_points(QChart& chart, const Group& g, const std::vector<const Series*>& series,
                         const QStringList& categories, const ValueAxis& y,
                         const ChartOptions& opts, ChartFacts& f) {
  auto* xaxis = category_axis(chart, g, categories, opts);
  chart.addAxis(y.axis, Qt::AlignLeft);
  QHash<QString, int> index;
  for (int ci = 0; ci < categories.size(); ++ci) index.insert(categories[ci], ci);
  QScatterSeries* marks = nullptr;
  SeriesStyles styles(opts);
  const int n = static_cast<int>(series.size());
  const double width = 0.6;  // of a category
  for (int si = 0; si < n; ++si) {
    const Series* s = series[si];
    auto* dots = new QScatterSeries;
    dots->setName(q(s->name));
    dots->setProperty("perflab_group", q(g.id));
    dots->setProperty("perflab_series", q(s->name));
    dots->setMarkerSize(opts.presentation ? 18 : 12);
    const auto style = styles.of(s->name);
    dots->setColor(style.color);
    dots->setBorderColor(style.old_side ? style.color.darker(130) : style.color);
    QStringList labels;
    for (const auto& p : s->points) {
      const double at_x = slot_x(index.value(q(p.label)), si, n, width);
      dots->append(at_x, y.at(p.stats.median));
      labels << q(p.label);
      if (y.clamps(p.stats.median)) {
        if (!marks) marks = make_nonpositive_series(opts, y.range.floor);
        marks->append(at_x, y.at(p.stats.median));
        ++f.clamped_points;
      }
    }
    dots->setProperty("perflab_labels", labels);
    attach(chart, dots, xaxis, y.axis);
    if (opts.hidden_series.count(s->name)) dots->setVisible(false);
    if (opts.error_bars)
      add_error_bars(chart, dots, s->name, category_error_bars(*s, si, n, width, index, y), opts,
                     f);
  }
  if (marks) attach(chart, marks, xaxis, y.axis);
}

// The bar sets' colours (by series) and hidden state.
void style_bar_sets(QAbstractBarSeries* bars, const ChartOptions& opts) {
  SeriesStyles styles(opts);
  for (auto* set : bars->barSets()) {
    const auto style = styles.of(set->label().toStdString());
    set->setColor(style.color);
    set->setBorderColor(style.old_side ? style.color.darker(130) : style.color);
    remember_brush(set);
    if (opts.hidden_series.count(set->label().toStdString())) set_barset_hidden(set, true);
  }
}

// A stacked group (the parts of a whole) lies on its side: one stack per label, its long label
// ("interpolate, 10 writers, RTT 1 ms: build 0.17%") reading across, first stack at the top
// (where upright or slanted labels ran off a small chart or into the legend). The value axis
// runs along the bottom; no error bars (a part's interval is not the stack's).
void add_stacked_bars(QChart& chart, const Group& g, const std::vector<const Series*>& series,
                      QStringList categories, const ValueAxis& y, const ChartOptions& opts) {
  // On its side the first category is drawn at the bottom: the first stack goes last, on top.
  std::reverse(categories.begin(), categories.end());
  auto* bars = new QHorizontalStackedBarSeries;
  bars->setProperty("perflab_group", q(g.id));
  for (const Series* s : series) {
    auto* set = new QBarSet(q(s->name));
    set->setProperty("perflab_group", q(g.id));
    set->setProperty("perflab_series", q(s->name));
    QHash<QString, const Point*> by_label;
    for (const auto& pt : s->points) by_label.insert(q(pt.label), &pt);
    for (const auto& c : categories) {
      const Point* p = by_label.value(c, nullptr);
      set->append(p ? p->stats.median : 0.0);
    }
    bars->append(set);
  }
  chart.addSeries(bars);
  auto* cats = new QBarCategoryAxis;
  cats->append(categories);
  cats->setTruncateLabels(false);
  if (!g.x_label.empty()) cats->setTitleText(q(g.x_label));
  style_axis(cats, opts);
  chart.addAxis(cats, Qt::AlignLeft);
  fit_category_labels(chart, cats, opts);
  chart.addAxis(y.axis, Qt::AlignBottom);
  bars->attachAxis(cats);
  bars->attachAxis(y.axis);
  style_bar_sets(bars, opts);
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
  if (g.stacked) return add_stacked_bars(chart, g, series, categories, y, opts);
  if (y.log) return add_category_points(chart, g, series, categories, y, opts, f);
  auto* bars = new QBarSeries;
  bars->setProperty("perflab_group", q(g.id));
  for (const Series* s : series) {
    auto* set = new QBarSet(q(s->name));
    set->setProperty("perflab_group", q(g.id));
    set->setProperty("perflab_series", q(s->name));
    QHash<QString, const Point*> by_label;  // the last point of a label, as drawn before
    for (const auto& pt : s->points) by_label.insert(q(pt.label), &pt);
    for (int ci = 0; ci < categories.size(); ++ci) {
      const Point* p = by_label.value(categories[ci], nullptr);
      set->append(p ? p->stats.median : 0.0);  // no point in this category: no bar
    }
    bars->append(set);
  }
  chart.addSeries(bars);
  auto* xaxis = category_axis(chart, g, categories, opts);
  chart.addAxis(y.axis, Qt::AlignLeft);
  bars->attachAxis(xaxis);
  bars->attachAxis(y.axis);
  if (opts.error_bars) {
    const int n = static_cast<int>(series.size());
    QHash<QString, int> index;
    for (int ci = 0; ci < categories.size(); ++ci) index.insert(categories[ci], ci);
    for (int si = 0; si < n; ++si)
      add_error_bars(chart, bars, series[si]->name,
                     category_error_bars(*series[si], si, n, bars->barWidth(), index, y), opts, f);
  }
  style_bar_sets(bars, opts);
  // A bar too short to read on this linear axis gets its value above it.
  const auto* axis = qobject_cast<const QValueAxis*>(y.axis);
  const double top = axis ? axis->max() : 0;
  std::vector<BarValues::Value> tiny;
  const auto sets = bars->barSets();
  const int n = static_cast<int>(sets.size());
  for (int si = 0; si < n; ++si)
    for (int ci = 0; ci < sets[si]->count(); ++ci) {
      const double v = sets[si]->at(ci);
      if (v > 0 && v < kTinyBarShare * top)
        tiny.push_back({sets[si], slot_x(ci, si, n, bars->barWidth()), v,
                        QString::fromStdString(format_figure(v))});
    }
  if (!tiny.empty()) {
    QFont font = chart.legend()->font();
    font.setPointSizeF(axis_label_points(opts) * 0.9);
    new BarValues(chart, bars, font, std::move(tiny));
  }
}

// The error bars of a line's points (`pts`, drawn at `at_points`); caps a fixed share of the x
// axis wide (of its decades on a log axis).
void add_line_error_bars(QChart& chart, QAbstractSeries* line, const Series& s,
                         const std::vector<std::pair<double, const Point*>>& pts,
                         const QList<QPointF>& at_points, const ValueAxis& x, const ValueAxis& y,
                         const ChartOptions& opts, ChartFacts& f) {
  // Drawn coordinates are linear on either scale (a log axis draws log10 of the values).
  auto* axis = static_cast<QValueAxis*>(x.axis);
  const double half = (axis->max() - axis->min()) * 0.006;
  std::vector<ErrorBar> bars;
  for (std::size_t i = 0; i < pts.size(); ++i)
    if (const Estimate* e = interval_of(*pts[i].second)) {
      // The point's own drawn x (x.at of its x), not worked out again: a log10 a point.
      const double at = at_points[static_cast<qsizetype>(i)].x();
      bars.push_back({at - half, at, at + half, y.at(e->lo), y.at(e->hi)});
    }
  add_error_bars(chart, line, s.name, std::move(bars), opts, f);
}

constexpr std::size_t kMaxMarkedPoints = 500;

// Whether a line's points lie on one of the lines drawn before it: at least three quarters of
// them within 2% of the y axis's span of a point of that line at the same x.
bool covers_drawn(const QList<QPointF>& line, const std::vector<QList<QPointF>>& drawn,
                  const QAbstractAxis* y_axis) {
  const auto* v = qobject_cast<const QValueAxis*>(y_axis);  // (a log axis is one too)
  // A long sweep is a line without markers: not compared point by point.
  if (!v || line.isEmpty() || line.size() > static_cast<qsizetype>(kMaxMarkedPoints)) return false;
  const double tolerance = 0.02 * (v->max() - v->min());
  for (const auto& other : drawn) {
    if (other.size() > static_cast<qsizetype>(kMaxMarkedPoints)) continue;
    int close = 0;
    for (const QPointF& p : line)
      for (const QPointF& o : other)
        if (o.x() == p.x() && std::abs(o.y() - p.y()) <= tolerance) {
          ++close;
          break;
        }
    if (4 * close >= 3 * line.size()) return true;
  }
  return false;
}

// One line with markers per series, points in x order; a spectrum's curves beside them, the
// group's markers over them.
void add_lines(QChart& chart, const Group& g, const std::vector<const Series*>& series,
               const ValueAxis& y, const SpectrumCurves& curves, const ChartOptions& opts,
               ChartFacts& f) {
  const ValueAxis x = make_x_axis(g, series, opts, curves.reach_percent);
  chart.addAxis(x.axis, Qt::AlignBottom);
  chart.addAxis(y.axis, Qt::AlignLeft);
  // A label sits centred on its tick: the last one, near the plot's right end, needs half its
  // width beside the plot ("99.99%" was cut at the chart's edge).
  if (auto* ticks = qobject_cast<QCategoryAxis*>(x.axis); ticks && ticks->count() > 0) {
    const QFontMetricsF fm(ticks->labelsFont());
    const double half = fm.horizontalAdvance(ticks->categoriesLabels().last()) / 2 + 2;
    const int room = static_cast<int>(std::ceil(half));
    chart.setProperty("perflab_right_room", room);  // what a view with tighter margins keeps
    QMargins m = chart.margins();
    m.setRight(std::max(m.right(), room));
    chart.setMargins(m);
  }
  QScatterSeries* marks = nullptr;
  QXYSeries* anchor = nullptr;  // the first series: maps the markers' x
  SeriesStyles styles(opts);
  std::vector<QList<QPointF>> drawn;  // the lines so far, as drawn (log axes: log10)
  for (const auto* s : series) {
    std::vector<std::pair<double, const Point*>> pts;
    for (std::size_t i = 0; i < s->points.size(); ++i)
      pts.emplace_back(x_of(s->points[i], i), &s->points[i]);
    std::stable_sort(pts.begin(), pts.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    // Beside its whole curve a spectrum's five points are dots: a straight line between two of
    // them would tell another story than the curve does.
    const auto curve = curves.by_series.find(s->name);
    const bool dots = curve != curves.by_series.end();
    QXYSeries* line = dots ? static_cast<QXYSeries*>(new QScatterSeries) : new QLineSeries;
    line->setName(q(s->name));
    line->setProperty("perflab_group", q(g.id));
    line->setProperty("perflab_series", q(s->name));
    QStringList labels;
    QList<QPointF> at_points;  // given at once: a point at a time is a signal per point
    labels.reserve(static_cast<qsizetype>(pts.size()));
    at_points.reserve(static_cast<qsizetype>(pts.size()));
    for (const auto& [px, p] : pts) {
      bool clamp_x = x.clamps(px);
      bool clamp_y = y.clamps(p->stats.median);
      QPointF at(x.at(px), y.at(p->stats.median));
      at_points << at;
      labels << q(p->label);
      if (clamp_x || clamp_y) {
        if (!marks) marks = make_nonpositive_series(opts, clamp_y ? y.range.floor : x.range.floor);
        marks->append(at);
        ++f.clamped_points;
      }
    }
    const bool marked = s->points.size() <= kMaxMarkedPoints;
    auto* x_values = qobject_cast<QValueAxis*>(x.axis);
    if (opts.for_screen && !marked && !dots && x_values) {
      draw_decimated(chart, line, x_values, at_points, labels);
    } else {
      line->replace(at_points);
      line->setProperty("perflab_labels", labels);
    }
    // A marker per point while they can be told apart; a long sweep is a line (100,000 markers
    // are a smear that takes a second to paint).
    line->setPointsVisible(marked);
    line->setMarkerSize(opts.presentation ? 11 : 7);
    chart.addSeries(line);
    const auto style = styles.of(s->name);
    if (auto* scatter = qobject_cast<QScatterSeries*>(line)) {
      scatter->setMarkerSize(opts.presentation ? 16 : 10);
      scatter->setColor(style.color);
      scatter->setBorderColor(style.color);
    } else {
      QPen pen = line->pen();
      pen.setColor(style.color);
      pen.setWidthF(opts.presentation ? 3.5 : 2);
      // Dashed: an old run's side in a comparison, or a line that lies on one drawn before it
      // (the line below shows through the gaps: Redis direct under the proxy's sweep).
      if (style.old_side || (opts.overlay_old.empty() && covers_drawn(at_points, drawn, y.axis)))
        pen.setStyle(Qt::DashLine);
      line->setPen(pen);
      drawn.push_back(at_points);
    }
    line->attachAxis(x.axis);
    line->attachAxis(y.axis);
    if (opts.hidden_series.count(s->name)) line->setVisible(false);
    if (opts.error_bars) add_line_error_bars(chart, line, *s, pts, at_points, x, y, opts, f);
    if (dots) add_spectrum_curve(chart, s->name, curve->second, x, y, style.color, opts);
    if (!anchor) anchor = line;
  }
  if (marks) attach(chart, marks, x.axis, y.axis);
  if (anchor && !g.markers.empty())
    add_axis_markers(
        chart, g, anchor, x, [&](const std::string& name) { return styles.of(name).color; }, opts);
  if (x.log && x.nonpositive) f.floor = x.range.floor;
}

}  // namespace

QString nonpositive_series_name() {
  return QStringLiteral("values ≤ 0");
}

std::vector<std::string> chart_groups(const Run& run) {
  std::vector<std::string> out;
  for (const auto& g : run.groups)
    if (!series_of(run, g.id).empty()) out.push_back(g.id);
  return out;
}

std::string headline_group(const Run& run) {
  const auto ids = chart_groups(run);
  for (const auto& id : ids)
    if (run.group(id)->headline) return id;
  return ids.empty() ? std::string() : ids.front();
}

std::unique_ptr<QChart> build_chart(const Run& run, const std::string& group_id,
                                    const ChartOptions& opts, ChartFacts* facts) {
  if (!opts.relative_to.empty()) return build_relative_chart(run, group_id, opts, facts);
  const Group* g = run.group(group_id);
  if (!g) throw ChartError("the run has no group '" + group_id + "'");
  const auto series = series_of(run, group_id);
  if (!opts.log_x && g->numeric_x) {  // the group's own x scale: a sweep over sizes is log
    ChartOptions with_x = opts;
    with_x.log_x = opens_on_log_x(run, *g);
    return build_chart(run, group_id, with_x, facts);
  }
  auto chart = new_chart(opts);
  ChartFacts local;
  ChartFacts& f = facts ? *facts : local;
  f = {};
  const SpectrumCurves curves = spectrum_curves(*g, series);
  const ValueAxis y = make_y_axis(*g, series, opts, curves.values);
  if (g->numeric_x)
    add_lines(*chart, *g, series, y, curves, opts, f);
  else
    add_bars(*chart, *g, series, y, opts, f);
  QString note;
  if (f.clamped_points > 0) {
    if (y.log && y.nonpositive) f.floor = y.range.floor;
    note = QStringLiteral(" (%1 ≤ 0 at floor)").arg(f.clamped_points);
  }
  chart->setTitle(q(g->title) + opts.title_suffix + note);
  for (auto* axis : chart->axes())
    if (!axis->titleText().isEmpty()) fit_axis_title(*chart, axis);
  dim_hidden_markers(*chart);
  return chart;
}

QColor error_bar_color() {
  return error_bar_color(QChart::ChartThemeLight);
}

QColor error_bar_color(QChart::ChartTheme theme) {
  switch (theme) {
    case QChart::ChartThemeDark:
    case QChart::ChartThemeBlueCerulean:
    case QChart::ChartThemeHighContrast:  // dark backgrounds: light bars
      return QColor(235, 235, 235);
    default:
      return QColor(25, 25, 25);
  }
}

QString category_text(const QBarCategoryAxis* axis, int index) {
  const QStringList given = axis->property("perflab_categories").toStringList();
  return index >= 0 && index < given.size() ? given[index] : axis->at(index);
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
