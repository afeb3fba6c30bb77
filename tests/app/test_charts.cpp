// app/charts: the chart built for each kind of group, log axes, values ≤ 0, error bars, wrapped
// labels, overlays and the presentation's fonts (the exports: test_chart_exports.cpp).
#include <cmath>

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QBuffer>
#include <QCategoryAxis>
#include <QDir>
#include <QFile>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QHorizontalStackedBarSeries>
#include <QImage>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPainter>
#include <QScatterSeries>
#include <QSet>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QtTest>

#include "charts/bar_values.h"
#include "charts/chart_export.h"
#include "charts/run_chart.h"
#include "common/figure_format.h"

#include "chart_probes.h"
#include "sample_runs.h"
#include "waits.h"

using namespace perflab;
using namespace perflab::charts;
using namespace perflab::test;

class ChartsTest : public QObject {
  Q_OBJECT

 private slots:
  void categoricalGroupIsGroupedBars() {
    Run run = test::sample_run();
    auto chart = build_chart(run, "append", {});
    QCOMPARE(chart->title(), QString("Append 100 events"));
    auto bars = series_of_type<QBarSeries>(*chart);
    QCOMPARE(bars.size(), 1);
    QCOMPARE(bars.front()->count(), 2);  // one set per series
    auto sets = bars.front()->barSets();
    QCOMPARE(sets[0]->label(), QString("interpolate"));
    QCOMPARE(sets[1]->label(), QString("iolist"));
    QCOMPARE(sets[0]->count(), 3);
    // The median is the figure shown.
    QCOMPARE(sets[0]->at(0), run.find_point("append", "interpolate", "1 writer")->stats.median);
    QCOMPARE(sets[1]->property("perflab_series").toString(), QString("iolist"));
    auto* x = qobject_cast<QBarCategoryAxis*>(axis(*chart, Qt::Horizontal));
    QVERIFY(x);
    QCOMPARE(x->categories(), QStringList({"1 writer", "10 writers", "100 writers"}));
    auto* y = qobject_cast<QValueAxis*>(axis(*chart, Qt::Vertical));
    QVERIFY(y);
    QVERIFY(y->titleText().contains("µs/op"));
    QVERIFY(y->max() >= 1400000 * 1.0);
    QVERIFY(series_of_type<QLineSeries>(*chart).isEmpty());
  }

  // A bar too short to read on a linear axis (main drew local memory's 0.034 and 7.5 us as
  // nothing beside 1,500) has its value written above it, painted, and not when it is hidden.
  void aTinyBarShowsItsValue() {
    Run run;
    run.experiment = "caching";
    run.ensure_group({"tiers", "Get a document", "us", "", false, false, "Wall time per get."});
    const std::pair<const char*, std::vector<double>> tiers[] = {
        {"postgres", {1500, 1480, 1520}}, {"redis", {900, 910, 890}}, {"local", {0.034, 0.034}}};
    for (const auto& [name, samples] : tiers) {
      run.add_point("tiers", name, test::sample_point("native", samples));
      run.add_point("tiers", name,
                    test::sample_point("protobuf", std::string(name) == "local"
                                                       ? std::vector<double>{7.5, 7.4, 7.6}
                                                       : samples));
    }
    auto chart = build_chart(run, "tiers", {});
    const auto items = bar_value_items(*chart);
    QCOMPARE(items.size(), 1);
    QStringList texts;
    for (const auto& v : items.front()->values()) texts << v.text;
    QCOMPARE(texts, QStringList({QString::fromStdString(format_figure(0.034)),
                                 QString::fromStdString(format_figure(7.5))}));
    // Painted: each value's box above its bar holds text pixels, inside the plot.
    QImage img(900, 560, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::white);
    {
      QPainter p(&img);
      paint_chart(p, *chart, QRectF(0, 0, 900, 560));
    }
    const QRectF plot = chart->plotArea();
    const auto rects = items.front()->textRects();
    QCOMPARE(rects.size(), 2);
    QVERIFY(!rects[0].intersects(rects[1]));  // neighbours: one above the other
    for (const QRectF& r : rects) {
      QVERIFY2(plot.contains(r), qPrintable(QString("%1,%2").arg(r.x()).arg(r.y())));
      int inked = 0;
      for (int y = int(r.top()); y < int(r.bottom()); ++y)
        for (int x = int(r.left()); x < int(r.right()); ++x)
          if (qGray(img.pixel(x, y)) < 160) ++inked;
      QVERIFY2(inked > 10, qPrintable(QString("%1 dark pixels").arg(inked)));
    }
    // The tall bars have none; a hidden series' values are not drawn.
    ChartOptions hidden;
    hidden.hidden_series = {"local"};
    auto without = build_chart(run, "tiers", hidden);
    QCOMPARE(bar_value_items(*without).size(), 1);
    QVERIFY(bar_value_items(*without).front()->textRects().isEmpty());
  }

  // Thirteen builders' single-writer bars beside 100 writers' (an IO-list append chart): their
  // values would stack into a column over the chart, so that category shows none; a category
  // of two short bars still shows both.
  void manyTinyBarsOfACategoryShowNoValues() {
    Run run;
    run.experiment = "iolist";
    run.ensure_group({"append", "Append", "us/op", "", false, true, "Wall time per append."});
    for (int b = 0; b < 13; ++b) {
      const std::string name = "builder " + std::to_string(b);
      run.add_point("append", name, test::sample_point("single writer", {4600.0 + 10 * b}));
      run.add_point("append", name, test::sample_point("100 writers", {180000.0 + 1000 * b}));
      if (b < 2) run.add_point("append", name, test::sample_point("two", {900.0}));
    }
    auto chart = build_chart(run, "append", {});
    const auto items = bar_value_items(*chart);
    QCOMPARE(items.size(), 1);
    QCOMPARE(items.front()->values().size(), 15u);
    QImage img(900, 560, QImage::Format_ARGB32_Premultiplied);
    {
      QPainter p(&img);
      paint_chart(p, *chart, QRectF(0, 0, 900, 560));
    }
    const auto rects = items.front()->textRects();
    QCOMPARE(rects.size(), 2);  // the category of two
    // Over the third category's slot.
    const double from = chart->mapToPosition({1.5, 0}, chart->series().front()).x();
    const double to = chart->mapToPosition({2.5, 0}, chart->series().front()).x();
    for (const QRectF& r : rects) QVERIFY(from < r.center().x() && r.center().x() < to);
  }

  // A stacked group (the phases of one append): one stack per label, the axis reaching the
  // tallest stack, and linear even when log y is asked for (parts add up on a linear axis).
  void stackedGroupIsStackedBars() {
    Run run = test::sample_run();
    Group g{"breakdown", "Where an append's time goes", "% of an append", "", false, true, ""};
    g.stacked = true;
    run.ensure_group(g);
    run.add_point("breakdown", "build", test::sample_point("iolist", {1, 1, 1}));
    run.add_point("breakdown", "INSERT", test::sample_point("iolist", {59, 60, 61}));
    run.add_point("breakdown", "build", test::sample_point("interpolate", {2, 2, 2}));
    run.add_point("breakdown", "INSERT", test::sample_point("interpolate", {88, 90, 92}));
    ChartOptions o;
    o.log_y = true;
    auto chart = build_chart(run, "breakdown", o);
    auto stacks = series_of_type<QHorizontalStackedBarSeries>(*chart);
    QCOMPARE(stacks.size(), 1);
    QVERIFY(series_of_type<QBarSeries>(*chart).isEmpty());
    auto sets = stacks.front()->barSets();
    QCOMPARE(sets.size(), 2);
    QCOMPARE(sets[0]->label(), QString("build"));
    QCOMPARE(sets[1]->at(0), 90.0);  // interpolate, the second stack: below
    // On its side: the values run across, the stacks' labels down the left, first at the top.
    auto* y = qobject_cast<QValueAxis*>(axis(*chart, Qt::Horizontal));
    QVERIFY(y);  // linear, not QLogValueAxis
    QVERIFY(y->max() >= 92.0);
    auto* labels = qobject_cast<QBarCategoryAxis*>(axis(*chart, Qt::Vertical));
    QVERIFY(labels);
    QCOMPARE(labels->at(labels->count() - 1), QString("iolist"));  // drawn at the top
    // A part of a stack carries no error bar (it would stand at the part's height, not the
    // stack's).
    QVERIFY(std::none_of(chart->series().begin(), chart->series().end(),
                         [](auto* s) { return s->property("perflab_error_bar_of").isValid(); }));
    // Stacks of shares that add up to 100 (in floating point, a hair over): the axis ends at
    // 100, not at a padded 150.
    Run shares = test::sample_run();
    shares.ensure_group(g);
    shares.add_point("breakdown", "build", test::sample_point("iolist", {0.1 + 0.2}));
    shares.add_point("breakdown", "INSERT", test::sample_point("iolist", {100 - 0.3 + 1e-13}));
    auto stacked = build_chart(shares, "breakdown", {});
    auto* top = qobject_cast<QValueAxis*>(axis(*stacked, Qt::Horizontal));
    QVERIFY(top);
    QCOMPARE(top->max(), 100.0);
    // An ordinary group of the same run stays grouped.
    QCOMPARE(series_of_type<QBarSeries>(*build_chart(run, "append", {})).size(), 1);
  }

  // The iolist append group has twelve series: no two of them share a colour.
  void twelveSeriesHaveTwelveColours() {
    Run run = test::sample_run();
    run.ensure_group({"many", "Twelve series", "us/op", "", false, true, ""});
    for (int i = 0; i < 12; ++i)
      run.add_point("many", "series " + std::to_string(i),
                    test::sample_point("single writer", {1.0 + i}));
    auto chart = build_chart(run, "many", {});
    auto bars = series_of_type<QBarSeries>(*chart);
    QCOMPARE(bars.size(), 1);
    QSet<QRgb> colours;
    for (auto* set : bars.front()->barSets()) colours.insert(set->color().rgb());
    QCOMPARE(bars.front()->barSets().size(), 12);
    QCOMPARE(colours.size(), 12);
  }

  void numericGroupIsLines() {
    Run run = test::sample_run();
    ChartOptions linear;  // 1 … 8191 events span decades: the group opens on log x
    linear.log_x = false;
    auto chart = build_chart(run, "build", linear);
    auto lines = series_of_type<QLineSeries>(*chart);
    QCOMPARE(lines.size(), 2);
    QCOMPARE(lines[0]->name(), QString("interpolate"));
    QCOMPARE(lines[0]->count(), 5);
    QCOMPARE(lines[0]->at(4).x(), 8191.0);
    QCOMPARE(lines[1]->at(2).y(), run.find_point("build", "iolist", "100")->stats.median);
    QVERIFY(lines[0]->pointsVisible());
    QCOMPARE(lines[0]->property("perflab_labels").toStringList().at(3), QString("1000"));
    QVERIFY(series_of_type<QBarSeries>(*chart).isEmpty());
    auto* x = qobject_cast<QValueAxis*>(axis(*chart, Qt::Horizontal));
    QVERIFY(x);
    QVERIFY(x->titleText().contains("events per statement"));
  }

  // A line that lies on one drawn before it is dashed, so that the one below shows (main hid
  // Redis direct under the proxy's sweep); lines apart stay solid.
  void aLineOnAnotherIsDashed() {
    Run run = test::sample_run();
    for (const double e : {1.0, 10.0, 100.0, 1000.0}) {
      const double t = 200 * e;  // on interpolate's medians, then one far from both
      run.add_point("build", "interpolate copy",
                    test::sample_point(std::to_string(static_cast<int>(e)), {t, t, t}, e));
      run.add_point("build", "far",
                    test::sample_point(std::to_string(static_cast<int>(e)), {t * 50, t * 50}, e));
    }
    for (const bool log : {false, true}) {
      ChartOptions o;
      o.log_y = log;
      auto chart = build_chart(run, "build", o);
      std::map<QString, Qt::PenStyle> style;
      for (auto* l : series_of_type<QLineSeries>(*chart)) style[l->name()] = l->pen().style();
      QCOMPARE(style["interpolate"], Qt::SolidLine);  // drawn first
      QCOMPARE(style["interpolate copy"], Qt::DashLine);
      QCOMPARE(style["far"], Qt::SolidLine);
      // iolist, 0.3x interpolate, is apart on a log axis; on this linear one (to 10^7, "far")
      // its points lie within 2% of the span of interpolate's, and are drawn dashed.
      QCOMPARE(style["iolist"], log ? Qt::SolidLine : Qt::DashLine);
    }
  }

  void sixSeriesHaveSixDistinctColours() {
    Run run = test::sample_run();
    for (const char* extra : {"a", "b", "c", "d"}) {
      run.add_point("append", extra, test::sample_point("1 writer", {1, 2, 3}));
      run.add_point("build", extra, test::sample_point("1", {1, 2, 3}, 1.0));
    }
    QSet<QRgb> bar_colours, line_colours;
    auto bars = build_chart(run, "append", {});
    for (auto* set : series_of_type<QBarSeries>(*bars).front()->barSets())
      bar_colours.insert(set->color().rgb());
    QCOMPARE(bar_colours.size(), 6);
    auto lines = build_chart(run, "build", {});
    for (auto* l : series_of_type<QLineSeries>(*lines)) line_colours.insert(l->pen().color().rgb());
    QCOMPARE(line_colours.size(), 6);
  }

  void logToggleGivesLogAxes() {
    Run run = test::sample_run();
    ChartOptions o;
    o.log_y = true;
    auto cats = build_chart(run, "append", o);
    auto* y = axis(*cats, Qt::Vertical);
    QVERIFY(is_log(y));
    // Tight around the data (15000 … 1400000 µs), not whole decades (10000 … 10000000).
    const double lo = std::pow(10, static_cast<QValueAxis*>(y)->min());
    const double hi = std::pow(10, static_cast<QValueAxis*>(y)->max());
    QVERIFY2(lo > 15000 * 0.77 / 1.5 && lo < 15000 * 0.77, qPrintable(QString::number(lo)));
    QVERIFY2(hi > 1400000 * 1.05 && hi < 1400000 * 1.05 * 1.5, qPrintable(QString::number(hi)));
    QVERIFY(y->titleText().contains("log"));
    // Never bars on a log axis: a point per series and category, each with its labels.
    QVERIFY(series_of_type<QBarSeries>(*cats).isEmpty());
    const auto dots = series_of_type<QScatterSeries>(*cats);
    QCOMPARE(dots.size(), 2);
    QCOMPARE(dots[0]->count(), 3);
    QCOMPARE(dots[0]->property("perflab_labels").toStringList().size(), 3);
    // One number format on the axis: no "1e+06" beside "100000".
    const QStringList labels = static_cast<QCategoryAxis*>(y)->categoriesLabels();
    QVERIFY(labels.size() >= 3);
    for (const QString& l : labels) QVERIFY2(!l.contains("e+"), qPrintable(l));
    // x stays categorical even when log x is asked for categories.
    o.log_x = true;
    QVERIFY(qobject_cast<QBarCategoryAxis*>(axis(*build_chart(run, "append", o), Qt::Horizontal)));

    auto lines = build_chart(run, "build", o);
    auto* x = static_cast<QCategoryAxis*>(axis(*lines, Qt::Horizontal));
    QVERIFY(is_log(x) && is_log(axis(*lines, Qt::Vertical)));
    // A numeric x with few values is labelled at those values, with room on both sides so
    // no point is cut in half.
    QCOMPARE(x->categoriesLabels(), QStringList({"1", "10", "100", "1000", "8191"}));
    QVERIFY(x->min() < std::log10(1.0) && x->max() > std::log10(8191.0));
    o.log_y = false;
    auto lines2 = build_chart(run, "build", o);
    QVERIFY(is_log(axis(*lines2, Qt::Horizontal)));
    QVERIFY(!is_log(axis(*lines2, Qt::Vertical)));
  }

  void groupsDeclareTheirScaleAndHeadline() {
    Run run = test::sample_run();
    run.groups[1].log_x = run.groups[1].log_y = true;  // "build": a log-log sweep
    run.groups[1].headline = true;
    QCOMPARE(headline_group(run), std::string("build"));
    auto lines = build_chart(run, "build", {});  // no choice: the group's own scales
    QVERIFY(is_log(axis(*lines, Qt::Horizontal)) && is_log(axis(*lines, Qt::Vertical)));
    ChartOptions linear;
    linear.log_y = linear.log_x = false;  // the person's choice wins
    auto lin = build_chart(run, "build", linear);
    QVERIFY(!is_log(axis(*lin, Qt::Horizontal)) && !is_log(axis(*lin, Qt::Vertical)));
    // A percentage reads against the whole: 0 to 100.
    run.ensure_group({"hit", "Hit ratio", "%", "budget", true, false, ""});
    run.add_point("hit", "native", test::sample_point("1", {12, 13, 14}, 1));
    run.add_point("hit", "native", test::sample_point("2", {40, 41, 42}, 2));
    auto pct = build_chart(run, "hit", {});
    auto* py = static_cast<QValueAxis*>(axis(*pct, Qt::Vertical));
    QCOMPARE(py->min(), 0.0);
    QCOMPARE(py->max(), 100.0);
    QCOMPARE(headline_group(run), std::string("build"));
    run.groups[1].headline = false;
    QCOMPARE(headline_group(run), std::string("append"));  // none named: the first
  }

  void nonPositiveValuesOnLogScaleAreMarkedNotDropped() {
    Run run = test::sample_run();
    run.add_point("append", "copy", test::sample_point("1 writer", {0, 0, 0}));
    run.add_point("append", "copy", test::sample_point("10 writers", {500, 510, 490}));
    ChartOptions o;
    o.log_y = true;
    ChartFacts facts;
    auto chart = build_chart(run, "append", o, &facts);
    QCOMPARE(facts.clamped_points, 1);
    QVERIFY(facts.floor > 0 && facts.floor < 490);
    QList<QScatterSeries*> dots, marks;
    for (auto* s : series_of_type<QScatterSeries>(*chart))
      (s->property("perflab_nonpositive").toBool() ? marks : dots) << s;
    QCOMPARE(dots.size(), 3);
    QCOMPARE(dots[2]->at(0).y(), std::log10(facts.floor));  // drawn at the floor, not dropped
    QCOMPARE(marks.size(), 1);
    QCOMPARE(marks.front()->count(), 1);
    QCOMPARE(marks.front()->at(0).y(), std::log10(facts.floor));
    QVERIFY(marks.front()->name().contains(QString::fromUtf8("≤ 0")));
    QVERIFY(chart->title().contains(QString::fromUtf8("≤ 0")));
    QImage img = render_image(run, {{"append"}, o, {800, 500}});
    QVERIFY(pixels_like(img, QColor(220, 30, 30)) > 20);  // the marker

    // Linear scale: the zero stays a zero, no marker.
    ChartFacts lin;
    auto linear = build_chart(run, "append", {}, &lin);
    QCOMPARE(lin.clamped_points, 0);
    QCOMPARE(series_of_type<QBarSeries>(*linear).front()->barSets()[2]->at(0), 0.0);
    QVERIFY(series_of_type<QScatterSeries>(*linear).isEmpty());

    // Lines: a negative value (e.g. a difference) on log y.
    run.add_point("build", "unnest", test::sample_point("1", {-3, -2, -1}, 1.0));
    run.add_point("build", "unnest", test::sample_point("10", {40, 41, 42}, 10.0));
    ChartFacts lf;
    auto lines = build_chart(run, "build", o, &lf);
    QCOMPARE(lf.clamped_points, 1);
    auto unnest = series_of_type<QLineSeries>(*lines).at(2);
    QCOMPARE(unnest->count(), 2);
    QCOMPARE(unnest->at(0).y(), std::log10(lf.floor));
    QCOMPARE(series_of_type<QScatterSeries>(*lines).front()->count(), 1);
  }

  void unknownGroupIsAnError() {
    Run run = test::sample_run();
    QVERIFY_THROWS_EXCEPTION(ChartError, build_chart(run, "nope", {}));
  }

  void hiddenSeriesAndLegendToggles() {
    Run run = test::sample_run();
    ChartOptions o;
    o.hidden_series = {"iolist"};
    auto lines = build_chart(run, "build", o);
    QVERIFY(!series_of_type<QLineSeries>(*lines)[1]->isVisible());
    QCOMPARE(hidden_series(lines.get()), std::set<std::string>{"iolist"});
    auto bars = build_chart(run, "append", o);
    QCOMPARE(hidden_series(bars.get()), std::set<std::string>{"iolist"});

    auto chart = build_chart(run, "build", {});
    enable_legend_toggles(chart.get());
    auto markers = chart->legend()->markers();
    QCOMPARE(visible_markers(*chart), 2);  // the error bars have none to show
    emit markers[0]->clicked();
    QVERIFY(!series_of_type<QLineSeries>(*chart)[0]->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(markers[0]->isVisible(),
                             test::kWaitMs);  // still there to be clicked again
    QCOMPARE(hidden_series(chart.get()), std::set<std::string>{"interpolate"});
    emit markers[0]->clicked();
    QVERIFY(series_of_type<QLineSeries>(*chart)[0]->isVisible());

    auto bchart = build_chart(run, "append", {});
    enable_legend_toggles(bchart.get());
    emit bchart->legend()->markers()[1]->clicked();
    QCOMPARE(hidden_series(bchart.get()), std::set<std::string>{"iolist"});
  }

  void errorBarsShowTheIntervals() {
    Run run = test::sample_run();
    // Bars: one I-beam per point, at the centre of its bar, from the interval's low end to its
    // high end; no legend entry of its own.
    ChartFacts f;
    auto bars = build_chart(run, "append", {}, &f);
    QCOMPARE(f.error_bars, 6);
    QCOMPARE(beams(*bars).size(), 6);
    QCOMPARE(error_bar_items(*bars).size(), 2);  // one item per series, not one per point
    QCOMPARE(visible_markers(*bars), 2);
    const Point* p = run.find_point("append", "iolist", "100 writers");
    bool found = false;
    for (const auto& [item, b] : beams(*bars)) {
      QCOMPARE(item->pen().color(), error_bar_color());
      if (item->series() == "iolist" && b.x > 1.5) {
        QCOMPARE(b.lo, p->median_ci.lo);
        QCOMPARE(b.hi, p->median_ci.hi);
        QVERIFY(b.x_lo < b.x && b.x < b.x_hi);  // the caps
        found = true;
      }
    }
    QVERIFY(found);
    // The value axis spans the intervals, on a log axis too.
    ChartOptions log;
    log.log_y = true;
    auto lbars = build_chart(run, "append", log);
    QCOMPARE(beams(*lbars).size(), 6);
    const double top = run.find_point("append", "interpolate", "100 writers")->median_ci.hi;
    QVERIFY(std::pow(10, static_cast<QValueAxis*>(axis(*lbars, Qt::Vertical))->max()) >= top);
    // Lines: hidden with their series and toggled with it.
    ChartOptions hide;
    hide.hidden_series = {"iolist"};
    auto lines = build_chart(run, "build", hide);
    QCOMPARE(beams(*lines).size(), 10);
    for (auto* e : error_bar_items(*lines)) QCOMPARE(e->isVisible(), e->series() != "iolist");
    QCOMPARE(hidden_series(lines.get()), std::set<std::string>{"iolist"});
    auto chart = build_chart(run, "build", {});
    enable_legend_toggles(chart.get());
    emit chart->legend()->markers()[0]->clicked();  // interpolate
    for (auto* e : error_bar_items(*chart)) QCOMPARE(e->isVisible(), e->series() != "interpolate");
    // Off on request.
    ChartOptions none;
    none.error_bars = false;
    QVERIFY(error_bar_items(*build_chart(run, "append", none)).isEmpty());
  }

  void aLinesErrorBarsStandAtItsPointsOnALogX() {
    // On a log x axis a point is drawn at log10 of its x: its I-beam stands there too, the
    // point's own drawn x, for every point of every line (in x order, the line's order).
    Run run = test::sample_run();
    ChartOptions o;
    o.log_x = true;
    o.log_y = false;
    auto chart = build_chart(run, "build", o);
    QVERIFY(is_log(axis(*chart, Qt::Horizontal)));
    int checked = 0;
    for (auto* line : series_of_type<QLineSeries>(*chart)) {
      const QString name = line->property("perflab_series").toString();
      std::vector<ErrorBar> bars;
      for (const auto& b : beams(*chart))
        if (b.item->series() == name) bars.push_back(b.bar);
      const QList<QPointF> points = line->points();
      QCOMPARE(static_cast<qsizetype>(bars.size()), points.size());
      for (qsizetype i = 0; i < points.size(); ++i) {
        const ErrorBar& b = bars[static_cast<std::size_t>(i)];
        QCOMPARE(b.x, points[i].x());
        QVERIFY(b.x_lo < b.x && b.x < b.x_hi);
        QVERIFY(b.lo <= points[i].y() && points[i].y() <= b.hi);
        ++checked;
      }
    }
    QVERIFY(checked > 0);
    // At log10 of the points' x, as the axis draws them.
    const Series* first = nullptr;
    for (const auto& s : run.series)
      if (s.group == "build" && !s.points.empty() && !first) first = &s;
    QVERIFY(first && first->points.front().x);
    auto* line = series_of_type<QLineSeries>(*chart).front();
    double least_x = *first->points.front().x;
    for (const auto& p : first->points) least_x = std::min(least_x, *p.x);
    QCOMPARE(line->points().front().x(), std::log10(least_x));
  }

  void aLargeRunAddsOneErrorBarItemPerSeries() {
    // 20,000 points with intervals in two series: two items and two series, whatever the count
    // (a series per point made a 10,000-point chart take minutes to show).
    Run run = test::sample_run();
    Group g;
    g.id = "big";
    g.title = "big";
    g.numeric_x = true;
    run.groups.push_back(g);
    for (const char* name : {"a", "b"}) {
      Series s;
      s.group = "big";
      s.name = name;
      for (int i = 0; i < 10000; ++i) {
        Point pt;
        pt.label = std::to_string(i);
        pt.x = i + 1;
        pt.stats.median = 10 + i % 7;
        pt.median_ci = {
            pt.stats.median,         pt.stats.median - 1, pt.stats.median + 1, 0.95, true,
            CiMethod::OrderStatistic};
        s.points.push_back(pt);
      }
      run.series.push_back(s);
    }
    ChartFacts f;
    auto chart = build_chart(run, "big", {}, &f);
    QCOMPARE(f.error_bars, 20000);
    QCOMPARE(error_bar_items(*chart).size(), 2);
    QCOMPARE(chart->series().size(), 2);
    QCOMPARE(beams(*chart).size(), 20000);
    // 10,000 markers a series would be a smear: the lines alone.
    for (auto* line : series_of_type<QLineSeries>(*chart)) QVERIFY(!line->pointsVisible());
  }

  void categoryLabelsWrapWhenTheyDoNotFit() {
    // A label wider than its category would be dropped by Qt: wrapped over lines (or turned)
    // when narrow, level on one line when there is room, decided on every resize; the
    // categories keep their names.
    Run run = test::sample_run();
    for (auto& s : run.series)
      if (s.group == "append")
        for (auto& p : s.points) p.label += ", a network round trip of 1 ms";
    auto chart = build_chart(run, "append", {});
    auto* x = qobject_cast<QBarCategoryAxis*>(axis(*chart, Qt::Horizontal));
    QVERIFY(x);
    const QString first = "1 writer, a network round trip of 1 ms";
    QGraphicsScene scene;
    scene.addItem(chart.get());
    chart->setGeometry(QRectF(0, 0, 500, 400));
    chart->layout()->activate();
    QVERIFY(x->labelsAngle() != 0 || x->at(0).contains("<br>"));
    QCOMPARE(category_text(x, 0), first);
    chart->setGeometry(QRectF(0, 0, 4000, 400));
    chart->layout()->activate();
    QCOMPARE(x->labelsAngle(), 0);
    QCOMPARE(x->at(0), first);
    scene.removeItem(chart.get());
  }

  void overlayNamesBothRuns() {
    Run a = test::sample_run(1.0), b = test::sample_run(0.5);
    Run o = overlay_runs(a, "old", b, "new");
    auto chart = build_chart(o, "append", {});
    auto sets = series_of_type<QBarSeries>(*chart).front()->barSets();
    QCOMPARE(sets.size(), 4);
    QStringList labels;
    for (auto* s : sets) labels << s->label();
    QVERIFY(labels.contains("old: iolist"));
    QVERIFY(labels.contains("new: interpolate"));
  }

  void presentationModeEnlargesFonts() {
    Run run = test::sample_run();
    ChartOptions o;
    auto normal = build_chart(run, "append", o);
    o.presentation = true;
    auto big = build_chart(run, "append", o);
    QVERIFY(big->titleFont().pointSizeF() > normal->titleFont().pointSizeF() * 1.4);
    QVERIFY(axis(*big, Qt::Vertical)->labelsFont().pointSizeF() >
            axis(*normal, Qt::Vertical)->labelsFont().pointSizeF() * 1.4);
  }
};

QTEST_MAIN(ChartsTest)
#include "test_charts.moc"
